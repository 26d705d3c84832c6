import type { Check } from '../../src/engine/run/check.ts';
import { skip } from '../../src/engine/run/check.ts';
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
      const sent = probe.bursts.reduce((n, b) => n + b.exchanges.length, 0);
      const how = ctx.config.profile === 'certify' ? `--max-creates with room for ${2 * 61} more creates (the create budget was spent before the write probe)` : `--profile certify, or --allow-writes ${2 * 61} (probes with real creates of the smallest VM, all in the ledger)`;
      return skip(`inconclusive: ${sent} writes that create nothing were never limited; the target may not count them, and real creates were not allowed`, how);
    }
    return limitOutcome(probe, '', undefined, ctx.limits?.error);
  },
};
