import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { isHeaderTotal, readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { vmsOf } from '../../src/engine/target/fixtures.ts';
import { describe, isSuccess } from '../support.ts';

/**
 * The list carries a total count: some integer field (named by the overlay, or discovered among fields named
 * total/count) that is the same on every page and equals the number of distinct VMs a full walk finds.
 */
export const totalCount: Check = {
  id: 'pagination.total',
  group: 'pagination',
  clauses: ['PAGE-TOTAL'],
  level: 'must',
  why: { must: "the seed says list responses include a total count" },
  title: 'List responses include a total count, consistent across pages',
  async run(ctx) {
    const first = await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: 10 } });
    if (!isSuccess(first)) return fail(`listing failed: ${describe(first)}`, [first]);
    const declared = ctx.declarations.totalField;
    const pointers = declared ? ['/' + declared.replace(/\./g, '/')] : totalCandidatesOf(first).map((c) => c.pointer);
    if (pointers.length === 0) {
      return fail(`no total count in the list response (no integer field named total or count, no X-Total-Count header${declared ? `; declared ${declared}` : ''})`, [first]);
    }
    const firstValue = readTotal(first, pointers[0]!);
    const hint = typeof firstValue === 'number' ? firstValue : 100;
    // Several pages, so consistency across pages is actually tested.
    const perPage = Math.min(100, Math.max(1, Math.ceil(hint / 3)));
    const walk = await ctx.fixtures.walk(perPage);
    if (walk.capped) return skip(`the list is too long to walk within the bound (${walk.stoppedBecause})`, 'an organization whose VM list fits in a bounded walk');
    if (!walk.complete) return fail(`walking the list failed: ${walk.stoppedBecause}`, walk.pages.slice(-1));
    const distinct = new Set(walk.items.map((v) => JSON.stringify(v['id']))).size;
    const rejected: string[] = [];
    for (const pointer of pointers) {
      const values = walk.pages.filter((p) => vmsOf(p).length > 0).map((p) => readTotal(p, pointer));
      const problem =
        values.some((v) => typeof v !== 'number' || !Number.isInteger(v)) ? `${pointer} is not an integer on every page (${JSON.stringify(values)})`
        : new Set(values).size > 1 ? `${pointer} changes across pages (${JSON.stringify(values)})`
        : values[0] !== distinct ? `${pointer} is ${values[0]} but the walk found ${distinct} distinct VMs`
        : undefined;
      if (!problem) {
        // A header is not a field the overlay vocabulary can declare: observed apart, so --emit-overlay leaves it out.
        ctx.observe(isHeaderTotal(pointer) ? 'totalHeader' : 'totalField', isHeaderTotal(pointer) ? pointer.slice('header:'.length) : pointer);
        return pass(`total at ${pointer}${declared ? ' (declared)' : ' (discovered)'} = ${distinct}, the same on all ${walk.pages.length} pages at per_page=${perPage}`);
      }
      rejected.push(problem);
    }
    const moving = walk.moved ? ' (the list kept changing while it was walked, also after waiting for it to settle)' : '';
    return fail(`no consistent total count: ${rejected.join('; ')}${moving}`, walk.pages.slice(0, 3), { perPage: walk.perPage, distinct, candidates: pointers });
  },
};
