import type { Check } from '../../src/engine/check.ts';
import { skip } from '../../src/engine/check.ts';
import { limitOutcome } from './verdict.ts';

/** 60 writes per minute per token, probed with create requests that create nothing. */
export const writeLimit: Check = {
  id: 'limits.write-limit',
  group: 'limits',
  clauses: ['LIMIT-WRITE-60'],
  level: 'must',
  why: { must: "the seed states 60 write requests per minute per token" },
  title: 'Writes: 60 per minute per token are served, the next is refused',
  async run(ctx) {
    if (ctx.config.readOnly) return skip('--read-only: the write limit can only be probed with writes', 'a run without --read-only');
    const probe = ctx.limits?.write;
    if (probe?.verdict.kind === 'looser' && probe.verdict.accepted === 'unlimited' && !probe.note) {
      // Invalid bodies may simply not be counted; only real creates could tell, and those need the user's consent.
      return skip(`inconclusive: ${probe.bursts.reduce((n, b) => n + b.exchanges.length, 0)} writes that create nothing were never limited; the target may not count them (rerun with --allow-writes 61 to probe with real creates)`, '--profile certify or --allow-writes 61 (probes with real creates of the smallest VM)');
    }
    return limitOutcome(probe);
  },
};
