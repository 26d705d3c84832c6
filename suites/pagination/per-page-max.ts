import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { vmsOf } from '../../src/engine/fixtures.ts';
import { describe, isSuccess } from '../support.ts';

/** No page holds more than 100 items, whatever per_page asks; per_page=100 itself is served. */
export const perPageMax: Check = {
  id: 'pagination.per-page-max',
  group: 'pagination',
  clauses: ['PAGE-MAX-100'],
  level: 'must',
  why: { must: "the seed states per_page's maximum of 100" },
  title: 'per_page above 100 never yields more than 100 items',
  async run(ctx) {
    const at100 = await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: 100 } });
    if (!isSuccess(at100)) return fail(`per_page=100, the documented maximum, was refused: ${describe(at100)}`, [at100]);
    const over = [101, 1000];
    const results = [];
    for (const n of over) results.push({ n, ex: await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: n } }) });
    const tooMany = results.filter((r) => isSuccess(r.ex) && vmsOf(r.ex).length > 100);
    if (tooMany.length) {
      return fail(`per_page=${tooMany[0]!.n} returned ${vmsOf(tooMany[0]!.ex).length} items`, tooMany.map((r) => r.ex));
    }
    const behaviour = results.map((r) => (isSuccess(r.ex) ? 'clamp' : r.ex.response && r.ex.response.status < 500 ? 'reject' : 'error'));
    const serverErrors = results.filter((_, i) => behaviour[i] === 'error');
    if (serverErrors.length) return fail(`per_page=${serverErrors[0]!.n} answered ${describe(serverErrors[0]!.ex)}`, serverErrors.map((r) => r.ex));
    ctx.observe('perPageOverMax', behaviour[0]);
    const seen = vmsOf(at100).length;
    if (behaviour.every((b) => b === 'clamp') && seen < 100) {
      return skip(`per_page above 100 is served, but the list holds only ${seen} VMs, so a missing cap cannot be seen`, '--profile certify (fills the list past 100 VMs within --max-creates)');
    }
    return pass(`per_page above 100 is ${behaviour[0] === 'reject' ? 'rejected' : 'clamped to at most 100 items'} (${results.map((r) => describe(r.ex)).join('; ')})`);
  },
};
