import type { Check } from '../../src/engine/run/check.ts';
import { skip } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/**
 * LIMIT-WRITE-60 over its operations: every write counts against the write budget, so a burst whose writes
 * take turns between the empty create and every other write operation of the document (deletes, a backup, a restore,
 * a registration, on ids that exist nowhere) is held to the same 60. Run once the primary probe showed its writes that
 * create nothing counted exactly: a target that counts refused writes has no reason to leave another operation's out.
 */
export const writeLimitOperations: Check = {
  id: 'limits.write-limit-operations',
  group: 'limits',
  clauses: ['LIMIT-WRITE-60'],
  level: 'must',
  why: {
    must: `the seed states ${LIMITS.writes.limit} write requests per minute per token: every write operation, not the create alone`,
  },
  title: `Writes: ${LIMITS.writes.limit} per minute whichever write operations spend them`,
  async run(ctx) {
    if (ctx.config.readOnly) return skip('--read-only: the write probe sends writes', 'a run without --read-only');
    if (!ctx.limits) return limitOutcome(undefined, '', undefined, undefined);
    const probe = ctx.limits.writeAcrossOperations;
    if (!probe) {
      const primary = ctx.limits.write ? limitOutcome(ctx.limits.write).message : 'not run';
      return skip(
        `the primary write probe did not show exactly ${LIMITS.writes.limit} writes with requests that change nothing (${primary}), so writes spread over other operations cannot be held to it`,
        'limits.write-limit decided exact (a lower --time-scale)'
      );
    }
    const outcome = limitOutcome(probe, '', undefined, ctx.limits.error);
    if (outcome.status !== 'skipped') outcome.message = `${outcome.message} (over ${probe.operations.join(', ')})`;
    return outcome;
  },
};
