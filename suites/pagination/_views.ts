// The views of the VM list a list property ranges over (LIST_VIEWS: no filter and the tag filter, × the first page and
// a later one), and the tags to range over them with: the one the most VMs carry, so a cap of 100 can show under it.
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { declaredTotalPointerOf, isSuccess } from '../support.ts';
import { tagsOf } from '../vms/tag-filter.ts';
import { VIEW } from '../../src/spec/clauses.ts';

export { VIEW };

/** The view a read falls in: with or without a tag, on the first page or a later one. */
export const viewOf = (tagged: boolean, later: boolean): string =>
  tagged ? (later ? VIEW.tagLater : VIEW.tagFirst) : later ? VIEW.unfilteredLater : VIEW.unfilteredFirst;

/**
 * Items a view must hold for a page past the cap to show: per_page=101 on a later page of an uncapped list starts at
 * item 102 and holds 101 items only where there are 202.
 */
export const CAP_SHOWS_ON_LATER_PAGE = 202;

/**
 * How many items a query's list holds, read at per_page=100 until `upTo` are seen (at most three pages), what was
 * read, and whether that was the whole list (a short page ended it).
 */
export async function countUpTo(
  ctx: CheckContext,
  query: Record<string, string>,
  upTo: number,
  firstRead?: Exchange
): Promise<{ count: number; pages: Exchange[]; whole: boolean }> {
  const first = await ctx.objects.firstPage();
  const pages: Exchange[] = [];
  const ids = new Set<string>();
  for (let page = first; page < first + 3 && ids.size < upTo; page++) {
    const ex =
      page === first && firstRead
        ? firstRead
        : await ctx.call({ method: 'GET', path: '/v1/vms', query: { ...query, page, per_page: 100 } });
    pages.push(ex);
    if (!isSuccess(ex)) return { count: ids.size, pages, whole: false };
    for (const v of vmsOf(ex)) ids.add(JSON.stringify(v['id']));
    if (vmsOf(ex).length < 100) return { count: ids.size, pages, whole: true };
  }
  return { count: ids.size, pages, whole: false };
}

/** A tag to filter by, and where the run knows it from. */
interface ListTag {
  tag: string;
  source: string;
}

/**
 * Tags worth filtering by, most carriers likely first: the run's own (certify tags its whole population with it), then
 * those the most records of the first page show under the field the records keep tags in (any name and shape,
 * confirmed by the filter); keys with a colon are left out, as where the key ends is not shown.
 */
export async function candidateTags(ctx: CheckContext, firstPage: Exchange, most = 3): Promise<ListTag[]> {
  const out: ListTag[] = [];
  const run = await ctx.objects.runTag().catch(() => undefined);
  if (run) out.push({ tag: `${run.key}:${run.value}`, source: `the run's own tag (${run.how} ${run.field})` });
  const place = await ctx.objects.tagField();
  if (place) {
    const counts = new Map<string, number>();
    for (const vm of vmsOf(firstPage))
      for (const [k, v] of tagsOf(vm, place.field) ?? [])
        if (k && !k.includes(':')) counts.set(`${k}:${v}`, (counts.get(`${k}:${v}`) ?? 0) + 1);
    for (const [tag] of [...counts].sort((a, b) => b[1] - a[1]))
      if (!out.some((t) => t.tag === tag))
        out.push({ tag, source: `read from the records (${place.how} ${place.field})` });
  }
  return out.slice(0, most);
}

/** Of the candidate tags (counted side by side), the one whose filter holds the most items, counted up to `upTo`, with its first page. */
export async function biggestTag(
  ctx: CheckContext,
  firstPage: Exchange,
  upTo: number
): Promise<(ListTag & { count: number; head: Exchange }) | undefined> {
  const counted = await Promise.all(
    (await candidateTags(ctx, firstPage)).map(async (t) => {
      const c = await countUpTo(ctx, { tag: t.tag }, upTo);
      return { ...t, count: c.count, head: c.pages[0]! };
    })
  );
  return counted.filter((t) => t.count > 0).sort((a, b) => b.count - a.count)[0];
}

/**
 * Where the VM list's total sits: declared (x-total-count), else the total-like count of the list's first full page
 * (the largest), else the one that equals what a short first page holds (a field named for a total first).
 */
export async function totalPointer(ctx: CheckContext): Promise<string | undefined> {
  const declared = declaredTotalPointerOf(ctx);
  if (declared) return declared;
  const scale = await ctx.objects.listScale();
  if (scale.pointer) return scale.pointer;
  const n = vmsOf(scale.firstPage).length;
  return totalCandidatesOf(scale.firstPage).find((c) => c.value === n)?.pointer;
}
