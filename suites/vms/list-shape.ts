import type { Check } from '../../src/engine/check.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { fromLog, describe, isSuccess, pathOf } from '../support.ts';

/** Every list response of the run has vms[] whose elements carry a string id and a string name. */
export const listShape: Check = {
  id: 'vms.list-shape',
  group: 'vms',
  clauses: ['VM-LIST', 'VM-LIST-ELEMENT', 'ID-OPAQUE-STRING'],
  level: 'must',
  title: 'List responses carry vms[] with string id and name',
  reviewsLog: true,
  async run(ctx) {
    await ctx.call({ method: 'GET', path: '/v1/vms' });
    const lists = fromLog(ctx, (ex) => ex.request.method === 'GET' && pathOf(ex) === '/v1/vms' && isSuccess(ex));
    const bad = lists.map((ex) => ({ ex, errors: ctx.schema.assert(ex)?.baseErrors ?? [] })).filter((r) => r.errors.length);
    if (bad.length) {
      return fail(`${bad.length} of ${lists.length} list responses break the list shape: ${bad[0]!.errors.slice(0, 3).join('; ')}`, bad.map((b) => b.ex), {
        violations: bad.slice(0, 5).map((b) => ({ exchange: describe(b.ex), errors: b.errors.slice(0, 5) })),
      });
    }
    return pass(`${lists.length} list responses carry vms[] with string id and name`);
  },
};
