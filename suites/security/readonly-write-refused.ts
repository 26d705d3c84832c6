import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { describe, wasAccepted, observeErrorCase } from '../support.ts';

/** A key inherits its owner's permissions: a read-only owner's key cannot create a VM. */
export const readonlyWriteRefused: Check = {
  id: 'security.readonly-write-refused',
  group: 'security',
  clauses: ['KEY-INHERITS-ROLE'],
  level: 'must',
  why: { must: "the seed says a key inherits its owner's role permissions" },
  title: 'A read-only key cannot create a VM',
  async run(ctx) {
    if (!ctx.tokens.has('readonly')) return skip('needs --api-key-readonly (a key whose owner may only read)', '--api-key-readonly KEY (a key whose owner may only read)');
    const { body } = ctx.fixtures.vmCreateBody('readonly');
    const ex = await ctx.call({ as: 'readonly', method: 'POST', path: '/v1/vms', json: body });
    if (wasAccepted(ex)) {
      ctx.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: ctx.checkId });
      return fail(`the read-only key created a VM: ${describe(ex)}`, [ex]);
    }
    observeErrorCase(ctx, 'forbidden', ex);
    return pass(`refused: ${describe(ex)}`);
  },
};
