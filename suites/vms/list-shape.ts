import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { baseSchemaViolations, describeExchange, isSuccess, pathOf } from '../support.ts';

/** Every list response of the run has vms[] whose elements carry a string id and a string name. */
export const listShape: Check = {
  id: 'vms.list-shape',
  group: 'vms',
  clauses: ['VM-LIST', 'VM-LIST-ELEMENT', 'ID-OPAQUE-STRING'],
  level: 'must',
  why: { must: "the seed states the vms array and each element's string id and name" },
  title: 'List responses carry vms[] with string id and name',
  reviewsLog: true,
  async run(ctx) {
    await ctx.call({ method: 'GET', path: '/v1/vms' });
    const { checked, bad } = baseSchemaViolations(
      ctx,
      (ex) => ex.request.method === 'GET' && pathOf(ex) === '/v1/vms' && isSuccess(ex)
    );
    if (bad.length) {
      return fail(
        `${bad.length} of ${checked} list responses break the list shape: ${bad[0]!.errors.slice(0, 3).join('; ')}`,
        bad.map((b) => b.ex),
        {
          violations: bad.slice(0, 5).map((b) => ({ exchange: describeExchange(b.ex), errors: b.errors.slice(0, 5) })),
        }
      );
    }
    return pass(`${checked} list responses carry vms[] with string id and name`);
  },
};
