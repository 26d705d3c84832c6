import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';

/** Keys of two organizations are told apart by the organization field of their tokens. */
export const tokenOrganization: Check = {
  id: 'auth.token-organization',
  group: 'auth',
  clauses: ['AUTH-TOKEN-ORGANIZATION'],
  level: 'must',
  why: { must: "the seed says organization identifies the organization that owns the key" },
  title: 'Tokens of keys from different organizations name different organizations',
  async run(ctx) {
    if (!ctx.tokens.has('second')) return skip('needs --api-key-b (a key of a second organization)', '--api-key-b KEY (a key of a second organization)');
    const a = (await ctx.tokens.response('primary'))['organization'];
    const b = (await ctx.tokens.response('second'))['organization'];
    if (a === b) return fail(`both keys' tokens name the same organization ${JSON.stringify(a)}`, [], { primary: a, second: b });
    return pass('the two keys name different organizations', [], { primary: a, second: b });
  },
};
