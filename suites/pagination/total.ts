import type { Check, CheckOutcome } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { isHeaderTotal, readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { VIEW } from './_views.ts';

/**
 * The list carries a total count: some integer field (named by the overlay, or discovered among fields named
 * total/count) that is the same on every page and equals the number of distinct VMs a full walk finds.
 */
export const totalCount: Check = {
  id: 'pagination.total',
  group: 'pagination',
  clauses: ['PAGE-TOTAL'],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: { must: 'the seed says list responses include a total count' },
  title: 'List responses include a total count, consistent across pages',
  async run(ctx) {
    const first = await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: 10 } });
    if (!isSuccess(first)) return fail(`listing failed: ${describeExchange(first)}`, [first]);
    const declared = ctx.declarations.totalField;
    const pointers = declared ? ['/' + declared.replace(/\./g, '/')] : totalCandidatesOf(first).map((c) => c.pointer);
    if (pointers.length === 0) {
      return fail(
        `no total count in the list response (no integer field named total or count, no X-Total-Count header${declared ? `; declared ${declared}` : ''})`,
        [first]
      );
    }
    const scale = await ctx.objects.listScale();
    if (!scale.whole) return totalAtTheEnd(ctx, pointers, declared, scale.size!);
    const firstValue = readTotal(first, pointers[0]!);
    const hint = typeof firstValue === 'number' ? firstValue : 100;
    const perPage = pagesWithPartialEnd(hint);
    const walk = await ctx.objects.walk(perPage);
    if (walk.capped)
      return skip(
        `the list is too long to walk within the bound (${walk.stoppedBecause})`,
        'an organization whose VM list fits in a bounded walk'
      );
    if (!walk.complete) return fail(`walking the list failed: ${walk.stoppedBecause}`, walk.pages.slice(-1));
    const distinct = new Set(walk.items.map((v) => JSON.stringify(v['id']))).size;
    const rejected: string[] = [];
    for (const pointer of pointers) {
      // The pages that hold VMs; an empty list has one page, whose total must then be 0.
      const holding = walk.pages.filter((p) => vmsOf(p).length > 0);
      const values = (holding.length ? holding : walk.pages.slice(0, 1)).map((p) => readTotal(p, pointer));
      const problem = values.some((v) => typeof v !== 'number' || !Number.isInteger(v))
        ? `${pointer} is not an integer on every page (${JSON.stringify(values)})`
        : new Set(values).size > 1
          ? `${pointer} changes across pages (${JSON.stringify(values)})`
          : values[0] !== distinct
            ? `${pointer} is ${values[0]} but the walk found ${distinct} distinct VMs`
            : undefined;
      if (!problem) {
        noteViews(ctx, values.length);
        // A header is not a field the overlay vocabulary can declare: observed apart, so --emit-overlay leaves it out.
        ctx.observe(
          isHeaderTotal(pointer) ? 'totalHeader' : 'totalField',
          isHeaderTotal(pointer) ? pointer.slice('header:'.length) : pointer
        );
        return pass(
          `total at ${pointer}${declared ? ' (declared)' : ' (discovered)'} = ${distinct}, the same on all ${walk.pages.length} pages at per_page=${perPage}`
        );
      }
      rejected.push(problem);
    }
    const moving = walk.moved
      ? ' (the list kept changing while it was walked, also after waiting for it to settle)'
      : '';
    return fail(`no consistent total count: ${rejected.join('; ')}${moving}`, walk.pages.slice(0, 3), {
      perPage: walk.perPage,
      distinct,
      candidates: pointers,
    });
  },
};

/** The views of the whole list the total was judged on: its first page, and a later one where a second page held VMs. */
function noteViews(ctx: CheckContext, pagesWithItems: number): void {
  const howToVerify = '--profile certify (creates VMs for a second page within --max-creates)';
  ctx.view(
    'PAGE-TOTAL',
    VIEW.unfilteredFirst,
    pagesWithItems > 0 ? undefined : { reason: 'the list is empty', howToVerify }
  );
  ctx.view(
    'PAGE-TOTAL',
    VIEW.unfilteredLater,
    pagesWithItems > 1 ? undefined : { reason: 'only one page of the list held VMs', howToVerify }
  );
}

/**
 * Several pages, so consistency across pages is tested, and a partial last page where the count allows one, so the
 * end of the list is tested too (a target that loses a partial last page still reports its total).
 */
export function pagesWithPartialEnd(hint: number): number {
  const base = Math.min(100, Math.max(1, Math.ceil(hint / 3)));
  for (let p = base; p <= Math.min(100, hint - 1); p++) if (hint % p !== 0) return p;
  return base;
}

/**
 * A list too long to walk whole (quick and full; certify walks it): the total is the same on the first and the last
 * pages, and the pages it implies hold exactly that many VMs (the last one the rest; the one after it none). A list
 * that changed between the reads is read again once it has settled.
 */
async function totalAtTheEnd(
  ctx: CheckContext,
  pointers: string[],
  declared: string | undefined,
  size: number
): Promise<CheckOutcome> {
  const first = ctx.declarations.firstPage ?? (await ctx.objects.firstPage());
  const read = (page: number) => ctx.call({ method: 'GET', path: '/v1/vms', query: { page, per_page: 100 } });
  const rejected: string[] = [];
  let evidence: Exchange[] = [];
  for (const pointer of pointers) {
    for (let attempt = 0; ; attempt++) {
      const head = await read(first);
      const total = readTotal(head, pointer);
      if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) {
        rejected.push(`${pointer} is ${JSON.stringify(total)}, not a count`);
        break;
      }
      const lastPage = first + Math.max(0, Math.ceil(total / 100) - 1);
      const last = await read(lastPage);
      const after = await read(lastPage + 1);
      evidence = [head, last, after];
      const onLast = vmsOf(last).length;
      const expected = total - (lastPage - first) * 100;
      const totals = [head, last].map((p) => readTotal(p, pointer));
      // Past the end: an empty page, or a refusal of its content (400, 404, 416, 422).
      const pastEnd = isSuccess(after)
        ? vmsOf(after).length === 0
        : [400, 404, 416, 422].includes(after.response?.status ?? 0);
      const problem =
        totals[1] !== total
          ? `${pointer} is ${total} on page ${first} but ${String(totals[1])} on page ${lastPage}`
          : !isSuccess(last)
            ? `page ${lastPage}, the last one by ${pointer} = ${total}, answered ${describeExchange(last)}`
            : onLast !== expected
              ? `${pointer} = ${total} puts ${expected} VMs on page ${lastPage} at per_page=100, which holds ${onLast}`
              : !pastEnd
                ? `${pointer} = ${total} makes page ${lastPage} the last, but page ${lastPage + 1} answered ${describeExchange(after)} with ${vmsOf(after).length} VMs`
                : undefined;
      if (!problem) {
        noteViews(ctx, lastPage > first ? 2 : 1);
        ctx.observe(
          isHeaderTotal(pointer) ? 'totalHeader' : 'totalField',
          isHeaderTotal(pointer) ? pointer.slice('header:'.length) : pointer
        );
        return pass(
          `total at ${pointer}${declared ? ' (declared)' : ' (discovered)'} = ${total}: the same on pages ${first} and ${lastPage}, whose ${onLast} VMs complete the count at per_page=100, and page ${lastPage + 1} is past the end (a list of ${size} is not walked whole; --profile certify walks it)`,
          evidence
        );
      }
      // VMs created or removed between the reads move the end: read again once, after a pause.
      if (attempt === 0 && readTotal(await read(first), pointer) !== total) {
        await ctx.sleepTarget(5, 'the list to settle before its end is read again');
        continue;
      }
      rejected.push(problem);
      break;
    }
  }
  return fail(`no consistent total count: ${rejected.join('; ')}`, evidence, { candidates: pointers });
}
