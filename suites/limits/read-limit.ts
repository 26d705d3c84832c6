import type { Check } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/** 300 reads per minute per token: 300 are served, the next refused. */
export const readLimit: Check = {
  id: 'limits.read-limit',
  group: 'limits',
  clauses: ['LIMIT-READ-300'],
  level: 'must',
  why: { must: `the seed states ${LIMITS.reads.limit} read requests per minute per token` },
  title: `Reads: ${LIMITS.reads.limit} per minute per token are served, the next is refused`,
  async run(ctx) {
    return limitOutcome(ctx.limits?.read, '', undefined, ctx.limits?.error);
  },
};
