import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { isSuccess, describe } from '../support.ts';

/** Issuance is limited per key: a second key still gets a token when the first key's budget is spent. */
export const keyScope: Check = {
  id: 'limits.key-scope',
  group: 'limits',
  clauses: ['LIMIT-TOKEN-10'],
  level: 'must',
  why: { must: "the seed states the issuance limit per API key" },
  title: "A second API key has its own token-issuance budget",
  async run(ctx) {
    if (!ctx.tokens.has('second')) return skip('needs --api-key-b (a key of a second organization)', '--api-key-b KEY (a key of a second organization)');
    const probe = ctx.limits?.token;
    if (!probe?.scope) return skip('the primary key was never limited during the probe, so the scope could not be seen', 'the issuance probe must meet a rejection (see limits.token-limit)');
    if (!isSuccess(probe.scope)) return fail(`--api-key-b was refused a token while --api-key's budget was spent: ${describe(probe.scope)}`, [probe.firstRejection!, probe.scope]);
    return pass('--api-key-b was issued a token while --api-key was limited');
  },
};
