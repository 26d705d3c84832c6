import type { Check } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/** 10 token issuances per minute per API key: ten are served, the eleventh refused. */
export const tokenLimit: Check = {
  id: 'limits.token-limit',
  group: 'limits',
  clauses: ['LIMIT-TOKEN-10'],
  level: 'must',
  why: { must: `the seed states ${LIMITS.tokens.limit} token issuances per minute per API key` },
  title: `Token issuance: ${LIMITS.tokens.limit} per minute per API key are served, the next is refused`,
  async run(ctx) {
    return limitOutcome(
      ctx.limits?.token,
      ctx.config.profile === 'quick' ? '; --profile full waits a window to tell a boundary from a looser limit' : '',
      '--profile full (or certify): it waits a window to tell a boundary from a looser limit'
    );
  },
};
