import type { Check } from '../../src/engine/run/check.ts';
import { failAt, skip } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';
import { neverLimited } from '../../src/engine/documented-limits/verdicts.js';

/**
 * 60 writes per minute per token, probed with create requests that create nothing. Whether those count is the target's
 * choice: declared in x-rate-limit-accounting, it is held at DECLARED level either way.
 */
export const writeLimit: Check = {
  id: 'limits.write-limit',
  group: 'limits',
  clauses: ['LIMIT-WRITE-60'],
  level: 'must',
  why: {
    must: `the seed states ${LIMITS.writes.limit} write requests per minute per token`,
    declared:
      'whether a refused write spends the budget is not shown; the overlay declares it (x-rate-limit-accounting refused)',
  },
  title: `Writes: ${LIMITS.writes.limit} per minute per token are served, the next is refused`,
  async run(ctx) {
    if (ctx.config.readOnly)
      return skip('--read-only: the write limit can only be probed with writes', 'a run without --read-only');
    const probe = ctx.limits?.write;
    const refused = ctx.declarations.rateLimitAccounting?.refused;
    // Never limited, and not probed again with real creates (whose probe leaves a note).
    const uncounted = neverLimited(probe?.verdict) && !probe?.note;
    if (uncounted && refused === 'counted') {
      const sent = probe!.bursts.reduce((n, b) => n + b.exchanges.length, 0);
      return failAt(
        'declared',
        `${sent} writes the target refused (creates with an empty body) were never limited, although the overlay declares that refused requests count (x-rate-limit-accounting refused: counted)`,
        probe!.bursts.flatMap((b) => b.exchanges.slice(-1))
      );
    }
    if (refused === 'free' && probe && !uncounted && !probe.note && probe.firstRejection) {
      const spentAfter = probe.bursts[0]!.accepted;
      return failAt(
        'declared',
        `${spentAfter} writes the target refused (creates with an empty body) spent the write budget, and the next was rate-limited, although the overlay declares that refused requests do not count (x-rate-limit-accounting refused: free)`,
        [probe.firstRejection]
      );
    }
    if (uncounted) {
      // Invalid bodies may simply not be counted; only real creates could tell, and those need the user's consent.
      const sent = probe!.bursts.reduce((n, b) => n + b.exchanges.length, 0);
      const how =
        ctx.config.profile === 'certify'
          ? `--max-creates with room for ${2 * 61} more creates (the create budget was spent before the write probe)`
          : `--profile certify, or --allow-writes ${2 * 61} (probes with real creates of the smallest VM, all in the ledger)`;
      const declared = refused === 'free' ? ' (the overlay declares that refused requests do not count)' : '';
      return skip(
        `inconclusive: ${sent} writes that create nothing were never limited${declared || '; the target may not count them'}, and real creates were not allowed`,
        how
      );
    }
    return limitOutcome(probe, '', undefined, ctx.limits?.error);
  },
};
