import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { DELIVERY_SLACK_MS, targetClockAt } from '../../src/engine/events/events.ts';
import { verifySignature, timestampSkew } from '../../src/engine/events/signatures.ts';

/**
 * Deliveries carry the declared signature, computed over the declared payload (the exact body, a timestamp, an id)
 * with the registered secret; where a tolerance is declared, the signed timestamp is that close to the target's clock.
 */
export const signature: Check = {
  id: 'webhooks.signature',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the signing scheme is the overlay's declaration" },
  title: 'Deliveries are signed as the overlay declares',
  async run(ctx) {
    const s = await ctx.events.events();
    const sig = s.decl.signature;
    if (!sig)
      return undeclared(
        'the overlay declares no signature scheme (x-webhook-signature)',
        'declare x-webhook-signature in --overlay'
      );
    if (!s.main.secret)
      return undeclared(
        'the overlay declares no secret field to register a secret with',
        'declare the secret field of x-webhook-registration in --overlay'
      );
    await ctx.events.eventBackup().catch(() => undefined);
    await s.receiver.waitFor((d) => d.path === s.main.path, ctx.events.deliveryTimeoutMs());
    const registrations = [s.main, s.family].filter((r) => r?.secret !== undefined);
    const judged = registrations.flatMap((r) =>
      s.receiver.deliveries
        .filter((d) => d.path === r!.path)
        .map((d) => ({ d, verdict: verifySignature(d, sig, r!.secret!) }))
    );
    if (judged.length === 0)
      return skip('no delivery arrived at the signed endpoints', 'deliveries that arrive (see webhooks.backup-event)');
    const scheme = sig.scheme === 'standard-webhooks' ? 'Standard Webhooks' : `${sig.algorithm} (${sig.payload})`;
    const bad = judged.filter((j) => !j.verdict.valid);
    if (bad.length) {
      return fail(
        `${bad.length} of ${judged.length} deliveries fail the ${scheme} signature in ${sig.header}: ${bad[0]!.verdict.reason} (got ${JSON.stringify(bad[0]!.d.headers[sig.header.toLowerCase()] ?? null)})`,
        [],
        {
          deliveries: bad.slice(0, 5).map((b) => ({
            path: b.d.path,
            reason: b.verdict.reason,
            header: b.d.headers[sig.header.toLowerCase()] ?? null,
          })),
        }
      );
    }
    const tolerance = sig.toleranceSeconds;
    const timed = judged.filter((j) => j.verdict.timestamp !== undefined);
    if (tolerance === undefined || timed.length === 0)
      return pass(`all ${judged.length} deliveries carry a valid ${scheme} signature`);
    // The declared clock: the target's, read off its Date headers, or the wall clock (this machine's).
    const wall = sig.clock === 'wall';
    const clockName = wall ? 'the wall clock' : "the target's clock";
    const skews = timed.map((j) => ({
      ...j,
      now: wall ? j.d.receivedAt : targetClockAt(ctx.log, j.d.receivedAt, ctx.config.timeScale),
    }));
    const known = skews
      .filter((j) => j.now !== undefined)
      .map((j) => ({ ...j, skew: timestampSkew(j.verdict.timestamp!, j.now!) }));
    if (known.length === 0)
      return pass(
        `all ${judged.length} deliveries carry a valid ${scheme} signature; the timestamps' freshness is not judged (no Date header to read the target's clock from at time scale ${ctx.config.timeScale})`
      );
    // The target's clock at a delivery is read off its last Date header and this machine's clock, and the delivery waited
    // in the target's scheduler, the network and this receiver: up to DELIVERY_SLACK_MS of real time, which a time
    // scale multiplies. Only a skew beyond tolerance and that slack is the target's (a loaded machine must not decide).
    const slack = Math.ceil((DELIVERY_SLACK_MS / 1000) * (wall ? 1 : ctx.config.timeScale));
    const stale = known.filter((j) => j.skew > tolerance + slack);
    if (stale.length) {
      return fail(
        `${stale.length} of ${known.length} deliveries are signed with a timestamp ${Math.round(stale[0]!.skew)} ${wall ? 'seconds' : 'target-seconds'} from ${clockName} (declared tolerance ${tolerance} s, and ${slack} s for the delivery's own delay)`,
        [],
        {
          deliveries: stale.slice(0, 5).map((j) => ({
            path: j.d.path,
            timestamp: j.verdict.timestamp,
            targetClock: Math.round(j.now! / 1000),
            skewSeconds: Math.round(j.skew),
          })),
        }
      );
    }
    return pass(
      `all ${judged.length} deliveries carry a valid ${scheme} signature, timestamps within ${Math.ceil(Math.max(...known.map((j) => j.skew)))} s of ${clockName} (tolerance ${tolerance} s, and ${slack} s for the delivery's own delay)`
    );
  },
};
