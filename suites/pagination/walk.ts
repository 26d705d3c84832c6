import type { Check, CheckOutcome } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { ListWalk } from '../../src/engine/target/run-objects.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { VIEW } from './_views.ts';

const REFERENCE_PAGE_SIZE = 50;
/** VMs a long list is judged on: its first 300, read at two page sizes whose boundaries fall in different places. */
const PREFIX = 300;

/** Pages are disjoint and together cover the list: walks at two page sizes find the same VMs, each exactly once. */
export const pageWalk: Check = {
  id: 'pagination.walk',
  group: 'pagination',
  clauses: ['PAGE-PARAMS'],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: { must: 'the seed states page and per_page on every list endpoint' },
  title: 'page and per_page walk the list with no duplicates and no gaps',
  async run(ctx) {
    const scale = await ctx.objects.listScale();
    if (!scale.whole) return walkPrefix(ctx, scale.size!);
    // The reference walk uses 50, not the maximum: whether 100 itself is served is pagination.per-page-max's question.
    // Certify walks a long list whole, at the largest sizes, within its read budget.
    const reference = await ctx.objects.walk(scale.large ? 100 : REFERENCE_PAGE_SIZE);
    if (reference.capped)
      return skip(
        `the list is too long to walk within the bound (${reference.stoppedBecause})`,
        'an organization whose VM list fits in a bounded walk'
      );
    if (!reference.complete)
      return fail(
        `walking at per_page=${reference.perPage} failed: ${reference.stoppedBecause}`,
        reference.pages.slice(-1)
      );
    const n = reference.items.length;
    if (n < 2) {
      const reason = `the list holds ${n} VMs, so no later page holds one`;
      ctx.view('PAGE-PARAMS', VIEW.unfilteredLater, {
        reason,
        howToVerify: '--profile certify (creates VMs for a second page within --max-creates)',
      });
      return skip(
        `the list holds ${n} VMs; at least 2 are needed to walk more than one page`,
        '--profile certify (creates VMs for a second page within --max-creates)'
      );
    }
    const walk = await ctx.objects.walk(scale.large ? 97 : Math.max(1, Math.min(23, Math.ceil(n / 4))));
    const perPage = walk.perPage;
    if (walk.capped)
      return skip(
        `the list is too long to walk within the bound (${walk.stoppedBecause})`,
        'an organization whose VM list fits in a bounded walk'
      );
    if (!walk.complete)
      return fail(`walking at per_page=${perPage} failed: ${walk.stoppedBecause}`, walk.pages.slice(-1));
    const moving =
      reference.moved || walk.moved
        ? ' (the list kept changing while it was walked, also after waiting for it to settle)'
        : '';
    const ids = walk.items.map((v) => JSON.stringify(v['id']));
    const seen = new Map<string, number>();
    ids.forEach((id, i) => seen.set(id, seen.has(id) ? seen.get(id)! : i));
    const duplicates = ids.filter((id, i) => seen.get(id) !== i);
    if (duplicates.length) {
      const at = ids.indexOf(duplicates[0]!, seen.get(duplicates[0]!)! + 1);
      const page = walk.firstPage + Math.floor(at / perPage);
      return fail(
        `${duplicates.length} VMs appear on more than one page at per_page=${perPage} (e.g. id ${duplicates[0]} again on page ${page})${moving}`,
        walk.pages.slice(Math.max(0, page - walk.firstPage - 1), page - walk.firstPage + 1),
        { perPage, duplicates: duplicates.slice(0, 10) }
      );
    }
    const got = new Set(ids);
    const missing = reference.items.map((v) => JSON.stringify(v['id'])).filter((id) => !got.has(id));
    if (missing.length)
      return fail(
        `${missing.length} VMs listed at per_page=${reference.perPage} are missing from the walk at per_page=${perPage} (e.g. ${missing[0]})${moving}`,
        walk.pages.slice(0, 2),
        { perPage, missing: missing.slice(0, 10) }
      );
    // The other way round: what the small pages show and the large ones never do was dropped by the large walk (a last
    // page answered empty, say). Walked once more first, so a VM created in between is not taken for one.
    const inReference = new Set(reference.items.map((v) => JSON.stringify(v['id'])));
    if (ids.some((id) => !inReference.has(id))) {
      const again = await ctx.objects.walk(reference.perPage);
      for (const v of again.items) inReference.add(JSON.stringify(v['id']));
      const extra = ids.filter((id) => !inReference.has(id));
      if (extra.length)
        return fail(
          `${extra.length} VMs listed at per_page=${perPage} never appear in two walks at per_page=${reference.perPage} (e.g. ${extra[0]}): a page was left out`,
          [...reference.pages.slice(-2), ...walk.pages.slice(-1)],
          { perPage, extra: extra.slice(0, 10) }
        );
    }
    ctx.observe('firstPage', walk.firstPage);
    noteViews(ctx, walk);
    return pass(
      `${walk.pages.length} pages at per_page=${perPage} hold each of the ${n} VMs exactly once (first page ${walk.firstPage})`
    );
  },
};

/** The views of the whole list a walk judged disjointness and coverage on: its first page, and a later one that held VMs. */
function noteViews(ctx: CheckContext, walk: ListWalk): void {
  const held = walk.pages.filter((p) => vmsOf(p).length > 0).length;
  ctx.view(
    'PAGE-PARAMS',
    VIEW.unfilteredFirst,
    held > 0 ? undefined : { reason: 'the list is empty', howToVerify: '--profile certify' }
  );
  ctx.view(
    'PAGE-PARAMS',
    VIEW.unfilteredLater,
    held > 1
      ? undefined
      : {
          reason: `a walk at per_page=${walk.perPage} held VMs on one page only`,
          howToVerify: '--profile certify (creates VMs for a second page within --max-creates)',
        }
  );
}

/**
 * A list too long to walk whole (quick and full; certify walks it): its first PREFIX VMs at per_page 50 and at 23 must
 * be the same VMs, each once; a head that changed between the walks (a list ordered newest first, while the run
 * creates) is read again once both have settled.
 */
async function walkPrefix(ctx: CheckContext, size: number): Promise<CheckOutcome> {
  const ids = (w: ListWalk) => w.items.slice(0, PREFIX).map((v) => JSON.stringify(v['id']));
  let attempt = 0;
  for (;;) {
    const reference = await ctx.objects.walkPrefix(REFERENCE_PAGE_SIZE, PREFIX);
    const small = await ctx.objects.walkPrefix(23, PREFIX);
    for (const w of [reference, small])
      if (!w.complete)
        return fail(
          `walking the first ${PREFIX} VMs at per_page=${w.perPage} failed: ${w.stoppedBecause}`,
          w.pages.slice(-1)
        );
    const a = ids(reference);
    const b = ids(small);
    for (const [w, list] of [
      [reference, a],
      [small, b],
    ] as const) {
      const dup = list.find((id, i) => list.indexOf(id) !== i);
      if (dup)
        return fail(
          `${dup} appears twice among the first ${PREFIX} VMs at per_page=${w.perPage}`,
          w.pages.slice(0, 3),
          { perPage: w.perPage }
        );
    }
    const missing = a.filter((id) => !b.includes(id));
    if (missing.length === 0) {
      ctx.observe('firstPage', small.firstPage);
      noteViews(ctx, small);
      return pass(
        `the first ${a.length} VMs of a list of ${size} are the same at per_page=${REFERENCE_PAGE_SIZE} (${reference.pages.length} pages) and at per_page=23 (${small.pages.length} pages), each exactly once (the whole list is walked by --profile certify)`
      );
    }
    if (attempt++ > 0)
      return fail(
        `${missing.length} of the first ${a.length} VMs at per_page=${REFERENCE_PAGE_SIZE} are not among the first ${b.length} at per_page=23 (e.g. ${missing[0]}), also when read again`,
        [...reference.pages.slice(0, 2), ...small.pages.slice(0, 2)],
        { missing: missing.slice(0, 10) }
      );
    await ctx.sleepTarget(5, 'the head of the list to settle before it is read again');
  }
}
