import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';

/**
 * role carries the key owner's role. A read-only owner and an owner who may write cannot share a role,
 * since a role is what their permissions derive from (KEY-INHERITS-ROLE).
 */
export const tokenRole: Check = {
  id: 'auth.token-role',
  group: 'auth',
  clauses: ['AUTH-TOKEN-ROLE'],
  level: 'must',
  why: { must: "the seed says role carries the role of the key's owning user" },
  title: 'The token of a read-only key carries a different role from the token of a key that may write',
  async run(ctx) {
    if (!ctx.tokens.has('readonly'))
      return skip(
        'needs --api-key-readonly (a key whose owner may only read)',
        '--api-key-readonly KEY (a key whose owner may only read)'
      );
    const writer = (await ctx.tokens.response('primary'))['role'];
    const reader = (await ctx.tokens.response('readonly'))['role'];
    if (writer === reader)
      return fail(
        `the read-only key's token and the primary key's token both carry role ${JSON.stringify(writer)}`,
        [],
        { primary: writer, readonly: reader }
      );
    ctx.observe('roles', { primary: writer, readonly: reader });
    return pass(`roles differ (${JSON.stringify(writer)} and ${JSON.stringify(reader)})`);
  },
};
