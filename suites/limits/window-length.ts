import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { waitsLong } from '../../src/engine/config/config.ts';
import { windowTooShort, type WindowLengthObservation } from '../../src/engine/limits/window-length.ts';
import { dateAdvance } from '../../src/engine/limits/probes.ts';
import { fasterClockOf } from '../../src/engine/documented-limits/verdicts.js';

/** Seconds the target's Date advanced over an observation (its first request to its last). */
const dated = (o: WindowLengthObservation) => dateAdvance([o.first, o.last]);

/**
 * The limits are per minute, so a spent budget stays spent as long as a minute's window holds it: no window of a
 * minute (fixed anywhere, sliding, a bucket refilled over a minute) serves more than twice its limit in a span shorter
 * than a minute. Observed once each budget has come back (src/engine/limits/window-length.ts).
 */
export const windowLength: Check = {
  id: 'limits.window-length',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60', 'LIMIT-TOKEN-10'],
  level: 'must',
  why: {
    must: 'the seed states the limits per minute: a window shorter than a minute serves more than its limit per minute',
  },
  title: 'A spent budget stays spent as long as a minute holds it',
  async run(ctx) {
    if (!waitsLong(ctx.config))
      return skip('needs --profile full: it waits for a spent budget to come back', '--profile full (or certify)');
    const observed = [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write].flatMap((p) =>
      p?.windowLength ? [p.windowLength] : []
    );
    if (observed.length === 0)
      return skip(
        'no spent budget was seen to come back during the probes',
        'the limit probes must meet a rejection and see the budget back (see limits.window-resets)'
      );
    // A span the run counted on its own clock, where the target's Date ran over three times as fast: the run's
    // --time-scale is not the target's (the user's input), and its minute was several of the target's.
    const tooShort = observed.filter(windowTooShort);
    const clockOff = tooShort.filter((o) => fasterClockOf({ dated: dated(o), elapsed: o.spanSeconds }) !== undefined);
    const short = tooShort.filter((o) => !clockOff.includes(o));
    if (short.length === 0 && clockOff.length) {
      const o = clockOff[0]!;
      return skip(
        `not judged: ${o.served} ${o.what} were served within ${o.spanSeconds.toFixed(1)} target seconds by the run's clock, but the target's Date advanced ${dated(o)} s meanwhile: its clock runs faster than --time-scale ${ctx.config.timeScale} assumes`,
        "rerun with the target's own time scale"
      );
    }
    if (short.length) {
      return fail(
        short
          .map(
            (o) =>
              `${o.served} ${o.what} were served within ${o.spanSeconds.toFixed(1)} target seconds: more than twice the limit of ${o.limit} in less than a minute, which no window of a minute allows (the budget came back too soon)`
          )
          .join('; '),
        short.flatMap((o) => [o.first, o.last])
      );
    }
    const judged = observed.map((o) => `${o.what}: ${o.served} served in ${o.spanSeconds.toFixed(0)} target seconds`);
    return pass(
      `every budget seen to come back stayed within twice its limit in less than a minute (${judged.join('; ')})`
    );
  },
};
