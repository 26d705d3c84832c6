import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, failAt, skip } from '../../src/engine/run/check.ts';
import { waitsLong } from '../../src/engine/config/config.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { isSuccess } from '../support.ts';
import { parseRetryAfter } from '../../src/engine/transport/retry-after.ts';
import { dateAdvance } from '../../src/engine/limits/probes.ts';
import { clockRateOf, fasterClockOf } from '../../src/engine/documented-limits/verdicts.js';

/**
 * The limits are per minute: once a window has passed, a spent budget is available again. Where the overlay declares
 * which clock Retry-After counts, the budget must be back once that reading of it has passed.
 */
export const windowResets: Check = {
  id: 'limits.window-resets',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60', 'LIMIT-TOKEN-10'],
  level: 'must',
  why: {
    must: 'the seed states the limits per minute: a spent budget comes back',
    declared:
      'which clock Retry-After counts and which kind of window counts a budget are not shown; the overlay declares them (x-rate-limit-accounting)',
  },
  title: 'A spent budget comes back once the minute has passed',
  async run(ctx) {
    if (!waitsLong(ctx.config))
      return skip('needs --profile full: it waits out a window', '--profile full (or certify)');
    const probes = [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write].filter((p) => p?.reset);
    if (probes.length === 0)
      return skip(
        'no budget was spent during the probes',
        'the limit probes must meet a rejection (see limits.read-limit)'
      );
    const served = (p: (typeof probes)[number], ex: Exchange) =>
      p === ctx.limits?.write ? ex.response?.status !== p!.firstRejection!.response?.status : isSuccess(ex);
    // The last request of the reset observation: after a window, or after Retry-After read as real or target seconds.
    const lastOf = (p: (typeof probes)[number]) =>
      (p!.reset!.afterWindow ?? p!.reset!.afterRetryAfterReal ?? p!.reset!.afterRetryAfter)!;
    const stuck = probes.filter((p) => !served(p, lastOf(p)));
    // The target's own countdown moved at another rate than the run's clock: the run's --time-scale is not the
    // target's (the user's input), and a window the run counted has not passed on the target. Read at the request sent
    // once Retry-After had passed by the run's clock, the first the countdown cannot have wrapped before.
    const { timeScale } = ctx.config;
    const rates = stuck.flatMap((p) => {
      const from = p!.reset!.rejection;
      const last = p!.reset!.afterRetryAfter;
      if (!last || served(p, last)) return [];
      const { elapsed, dated } = readings(from, last, timeScale);
      const rate = clockRateOf({
        first: p!.reset!.retryAfter,
        later: parseRetryAfter(last, timeScale),
        dated,
        elapsed,
      });
      return rate === undefined ? [] : [{ p: p!, rate, elapsed, last }];
    });
    if (rates.length) {
      const r = rates[0]!;
      const scale = Math.round(timeScale * r.rate * 10) / 10;
      return skip(
        `not judged: the target's Retry-After for ${r.p.what} fell from ${r.p.reset!.retryAfter} to ${parseRetryAfter(r.last, timeScale)} s while the run counted ${Math.round(r.elapsed)} target-seconds at --time-scale ${timeScale}: the target's clock runs at about ${scale} times real time, not ${timeScale}`,
        `rerun with the target's own time scale (--time-scale ${scale}, or 1 for a deployment at real time)`
      );
    }
    if (stuck.length)
      return fail(
        `still refused a whole window after the rejection: ${stuck.map((p) => p!.what).join(', ')}`,
        stuck.map(lastOf)
      );
    // Declared target seconds: the request sent once Retry-After (read so) had passed was served. Declared wall-clock
    // seconds: the one sent once they had passed was, unless the target's reading (earlier) already was.
    const clock = ctx.declarations.rateLimitAccounting?.retryAfterClock;
    const late = probes.filter((p) => {
      const r = p!.reset!;
      if (!clock || r.retryAfter === undefined || !r.afterRetryAfter) return false;
      if (clock === 'target') return !served(p, r.afterRetryAfter);
      // Wall-clock seconds a time scale leaves no room to judge (the tolerance is the whole window) are not held.
      if (r.realReadingUnjudged) return false;
      return !served(p, r.afterRetryAfter) && !(r.afterRetryAfterReal && served(p, r.afterRetryAfterReal));
    });
    if (late.length) {
      const reading = clock === 'target' ? "the target's seconds" : 'wall-clock seconds';
      return failAt(
        'declared',
        `still refused once Retry-After had passed, read as ${reading} as the overlay declares (x-rate-limit-accounting retry-after-clock: ${clock}): ${late.map((p) => `${p!.what} (Retry-After ${p!.reset!.retryAfter})`).join(', ')}`,
        late.map((p) => p!.reset!.afterRetryAfter!)
      );
    }
    // The declared window kind, from a budget spent in two halves half a window apart (limits/window-kind.ts).
    const declaredWindow = ctx.declarations.rateLimitAccounting?.window;
    const kind = ctx.limits?.windowKind;
    if (declaredWindow && kind?.kind && kind.kind !== declaredWindow) {
      const [, , third] = kind.bursts;
      return failAt(
        'declared',
        `the ${kind.what} budget counts ${kind.kind === 'sliding' ? 'a sliding window' : 'fixed windows'}, although the overlay declares ${declaredWindow} (x-rate-limit-accounting window): spent in two halves half a window apart, a window after the first half ${third!.accepted} of ${kind.limit} were served (${kind.kind === 'sliding' ? 'only the first half came back' : 'the whole budget came back'})`,
        [third!.rejections[0] ?? third!.exchanges.at(-1)!].filter(Boolean)
      );
    }
    const byRetryAfter = probes.filter((p) => p!.reset!.afterRetryAfter && !p!.reset!.afterWindow).length;
    ctx.observe('windowReset', { probes: probes.length, servedAtRetryAfter: byRetryAfter });
    const kindNote = !declaredWindow
      ? ''
      : kind?.kind
        ? `; the ${kind.what} budget counts ${kind.kind} windows, as declared`
        : `; the declared ${declaredWindow} window not verified: ${kind?.reason ?? 'not observed'}`;
    const unjudgedClock =
      clock === 'wall' ? probes.find((p) => p!.reset!.realReadingUnjudged)?.reset?.realReadingUnjudged : undefined;
    const clockNote = unjudgedClock ? `; the declared wall-clock Retry-After not judged: ${unjudgedClock}` : '';
    // A target whose clock runs faster than the run's --time-scale: every wait was longer than needed, so say so.
    const faster = probes
      .map((p) => fasterClockOf(readings(p!.reset!.rejection, lastOf(p), timeScale)))
      .find((r) => r !== undefined);
    const fasterNote = faster
      ? `; the target's Date advanced about ${Math.round(faster * 10) / 10} times as fast as --time-scale ${timeScale} assumes, so each wait was that much longer than needed (--time-scale ${Math.round(timeScale * faster)} would match the target)`
      : '';
    return pass(
      `every spent budget came back (${probes.map((p) => p!.what).join(', ')}); ${byRetryAfter} of them as soon as Retry-After said${kindNote}${clockNote}${fasterNote}`
    );
  },
};

/** Target-seconds the run counted between two of its requests, and the seconds the target's Date advanced between them. */
function readings(from: Exchange, last: Exchange, timeScale: number): { elapsed: number; dated?: number } {
  const elapsed = ((Date.parse(last.startedAt) - Date.parse(from.startedAt)) * timeScale) / 1000;
  const dated = dateAdvance([from, last]);
  return dated === undefined ? { elapsed } : { elapsed, dated };
}
