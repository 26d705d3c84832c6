import type { Check } from '../../src/engine/run/check.ts';
import { skip } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/**
 * LIMIT-READ-300 over its operations: every read counts against the read budget, so a burst whose reads take
 * turns between the list and the other read operations the run saw served (a task, a record) is held to the same 300.
 * A target that charges a task poll to the write budget refuses the burst early (stricter).
 */
export const readLimitOperations: Check = {
  id: 'limits.read-limit-operations',
  group: 'limits',
  clauses: ['LIMIT-READ-300'],
  level: 'must',
  why: {
    must: `the seed states ${LIMITS.reads.limit} read requests per minute per token: every read operation, not the list alone`,
  },
  title: `Reads: ${LIMITS.reads.limit} per minute whichever read operations spend them`,
  async run(ctx) {
    const probe = ctx.limits?.readAcrossOperations;
    if (ctx.limits && !probe)
      return skip(
        'the run saw no read operation served besides the list (no task, no record)',
        'a run whose VM and task the target serves (the vms and tasks groups)'
      );
    const outcome = limitOutcome(probe, '', undefined, ctx.limits?.error);
    if (probe && outcome.status !== 'skipped')
      outcome.message = `${outcome.message} (over ${probe.operations.join(', ')})`;
    return outcome;
  },
};
