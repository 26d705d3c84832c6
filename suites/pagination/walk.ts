import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';

const REFERENCE_PAGE_SIZE = 50;

/** Pages are disjoint and together cover the list: walks at two page sizes find the same VMs, each exactly once. */
export const pageWalk: Check = {
  id: 'pagination.walk',
  group: 'pagination',
  clauses: ['PAGE-PARAMS'],
  level: 'must',
  why: { must: "the seed states page and per_page on every list endpoint" },
  title: 'page and per_page walk the list with no duplicates and no gaps',
  async run(ctx) {
    // The reference walk uses 50, not the maximum: whether 100 itself is served is pagination.per-page-max's question.
    const reference = await ctx.fixtures.walk(REFERENCE_PAGE_SIZE);
    if (reference.capped) return skip(`the list is too long to walk within the bound (${reference.stoppedBecause})`, 'an organization whose VM list fits in a bounded walk');
    if (!reference.complete) return fail(`walking at per_page=${reference.perPage} failed: ${reference.stoppedBecause}`, reference.pages.slice(-1));
    const n = reference.items.length;
    if (n < 2) return skip(`the list holds ${n} VMs; at least 2 are needed to walk more than one page`, '--profile certify (creates VMs for a second page within --max-creates)');
    const walk = await ctx.fixtures.walk(Math.max(1, Math.min(23, Math.ceil(n / 4))));
    const perPage = walk.perPage;
    if (walk.capped) return skip(`the list is too long to walk within the bound (${walk.stoppedBecause})`, 'an organization whose VM list fits in a bounded walk');
    if (!walk.complete) return fail(`walking at per_page=${perPage} failed: ${walk.stoppedBecause}`, walk.pages.slice(-1));
    const moving = reference.moved || walk.moved ? ' (the list kept changing while it was walked, also after waiting for it to settle)' : '';
    const ids = walk.items.map((v) => JSON.stringify(v['id']));
    const seen = new Map<string, number>();
    ids.forEach((id, i) => seen.set(id, seen.has(id) ? seen.get(id)! : i));
    const duplicates = ids.filter((id, i) => seen.get(id) !== i);
    if (duplicates.length) {
      const at = ids.indexOf(duplicates[0]!, seen.get(duplicates[0]!)! + 1);
      const page = walk.firstPage + Math.floor(at / perPage);
      return fail(`${duplicates.length} VMs appear on more than one page at per_page=${perPage} (e.g. id ${duplicates[0]} again on page ${page})${moving}`, walk.pages.slice(Math.max(0, page - walk.firstPage - 1), page - walk.firstPage + 1), { perPage, duplicates: duplicates.slice(0, 10) });
    }
    const got = new Set(ids);
    const missing = reference.items.map((v) => JSON.stringify(v['id'])).filter((id) => !got.has(id));
    if (missing.length) return fail(`${missing.length} VMs listed at per_page=${reference.perPage} are missing from the walk at per_page=${perPage} (e.g. ${missing[0]})${moving}`, walk.pages.slice(0, 2), { perPage, missing: missing.slice(0, 10) });
    // The other way round: what the small pages show and the large ones never do was dropped by the large walk (a last
    // page answered empty, say). Walked once more first, so a VM created in between is not taken for one.
    const inReference = new Set(reference.items.map((v) => JSON.stringify(v['id'])));
    if (ids.some((id) => !inReference.has(id))) {
      const again = await ctx.fixtures.walk(reference.perPage);
      for (const v of again.items) inReference.add(JSON.stringify(v['id']));
      const extra = ids.filter((id) => !inReference.has(id));
      if (extra.length) return fail(`${extra.length} VMs listed at per_page=${perPage} never appear in two walks at per_page=${reference.perPage} (e.g. ${extra[0]}): a page was left out`, [...reference.pages.slice(-2), ...walk.pages.slice(-1)], { perPage, extra: extra.slice(0, 10) });
    }
    ctx.observe('firstPage', walk.firstPage);
    return pass(`${walk.pages.length} pages at per_page=${perPage} hold each of the ${n} VMs exactly once (first page ${walk.firstPage})`);
  },
};
