import type { Check, CheckOutcome, Finding } from '../../src/engine/run/check.ts';
import { judge, finding, fail, skip } from '../../src/engine/run/check.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { biggestTag, CAP_SHOWS_ON_LATER_PAGE, countUpTo, VIEW, viewOf } from './_views.ts';

/** per_page past the maximum on a first page: the next integer, past 200 and far past (a cap kept only near 100 shows). */
const OVER_FIRST = [101, 500, 1000];
/** On a later page the smallest, whose page starts nearest (page 2 at per_page=101 starts at item 102). */
const OVER_LATER = 101;

/** One read past the cap in one view, and what the view's list holds (counted up to 202). */
interface Read {
  view: string;
  perPage: number;
  page: number;
  later: boolean;
  ex: Exchange;
  /** The same page at per_page=100: served, it shows that a refusal was about per_page, not the page. */
  control: Exchange;
  holds: number;
  filter?: string;
}

/** A read past the cap: a finding, decided (a refusal of per_page, or a served page an uncapped list would overfill), or why not. */
function judgeRead(r: Read, first: number): { finding?: Finding; undecided?: string } {
  const what = `per_page=${r.perPage}${r.later ? ` on page ${r.page}` : ''}${r.filter ? ` under tag=${r.filter}` : ''}`;
  if (r.ex.response && r.ex.response.status >= 500)
    return { finding: finding('must', `${what} answered ${describeExchange(r.ex)}`, [r.ex]) };
  const n = vmsOf(r.ex).length;
  if (isSuccess(r.ex) && n > 100) {
    const elsewhere = r.filter || r.later ? ' (the cap holds on the first page of the whole list)' : '';
    return { finding: finding('must', `${what} returned ${n} items${elsewhere}`, [r.ex, r.control]) };
  }
  if (!isSuccess(r.ex))
    return isSuccess(r.control)
      ? {}
      : { undecided: `${what} was refused, but so was per_page=100 there (${describeExchange(r.control)})` };
  const needed = (r.page - first) * r.perPage + 101;
  return r.holds >= needed
    ? {}
    : {
        undecided: `${what} was served with ${n} items, and the list there holds ${r.holds}, fewer than the ${needed} that would show a missing cap`,
      };
}

/** What would decide a view whose list is too short: more VMs, in the profile that makes them. */
function howToDecide(ctx: CheckContext, tagged: boolean): string {
  if (!ctx.certify)
    return `--profile certify (fills the list${tagged ? ' and tags its VMs' : ''} within --max-creates)`;
  const created = ctx.ledger.entries.filter((e) => e.kind === 'vm').length;
  return `--max-creates ${created + Math.max(ctx.certify.shortBy, 1)} (or an organization with quota for ${CAP_SHOWS_ON_LATER_PAGE} more small VMs${tagged ? ' whose tags the run can set' : ''})`;
}

/** The reads of one filter (none, or a tag): every size past the cap on the first page, the smallest on the next. */
async function readsOf(
  ctx: CheckContext,
  filter: string | undefined,
  controlFirst: Exchange
): Promise<Array<Omit<Read, 'holds'>>> {
  const first = await ctx.objects.firstPage();
  const q = filter ? { tag: filter } : {};
  const asks = [
    ...OVER_FIRST.map((perPage) => ({ perPage, page: first })),
    { perPage: OVER_LATER, page: first + 1 },
    { perPage: 100, page: first + 1 },
  ];
  const got = await ctx.callEach(
    asks.map((a) => ({ method: 'GET', path: '/v1/vms', query: { ...q, page: a.page, per_page: a.perPage } }))
  );
  const controlLater = got[got.length - 1]!;
  return asks.slice(0, -1).map((a, i) => ({
    ...a,
    later: a.page > first,
    view: viewOf(!!filter, a.page > first),
    ex: got[i]!,
    control: a.page > first ? controlLater : controlFirst,
    ...(filter ? { filter } : {}),
  }));
}

/**
 * Each view of the list (no filter and the tag filter the most VMs carry, × the first page and the next) decided or
 * not, the findings, and a note per view. The lengths are counted beside the reads past the cap.
 */
async function judgeViews(
  ctx: CheckContext,
  at100: Exchange
): Promise<{ findings: Finding[]; notes: string[]; undecided: Map<string, string>; unfiltered: Read[] }> {
  const first = await ctx.objects.firstPage();
  const [whole, tag, past] = await Promise.all([
    countUpTo(ctx, {}, CAP_SHOWS_ON_LATER_PAGE, at100),
    biggestTag(ctx, at100, CAP_SHOWS_ON_LATER_PAGE),
    readsOf(ctx, undefined, at100),
  ]);
  const unfiltered = past.map((r) => ({ ...r, holds: whole.count }));
  const reads = [...unfiltered];
  const undecided = new Map<string, string>();
  const notes: string[] = [];
  if (tag) {
    reads.push(...(await readsOf(ctx, tag.tag, tag.head)).map((r) => ({ ...r, holds: tag.count })));
    notes.push(
      `under tag=${tag.tag} (${tag.source}, ${tag.count >= CAP_SHOWS_ON_LATER_PAGE ? `${CAP_SHOWS_ON_LATER_PAGE} or more` : tag.count} VMs): ${reads
        .slice(unfiltered.length)
        .map(
          (r) =>
            `per_page=${r.perPage}${r.later ? ` page ${r.page}` : ''} → ${isSuccess(r.ex) ? `${vmsOf(r.ex).length} items` : describeExchange(r.ex).split(' → ')[1]}`
        )
        .join(', ')}`
    );
  } else {
    const why = 'no VM carries a tag the run can see or set, so no filter was read past the cap';
    undecided.set(VIEW.tagFirst, why).set(VIEW.tagLater, why);
  }
  const findings: Finding[] = [];
  for (const r of reads) {
    const j = judgeRead(r, first);
    if (j.finding) findings.push(j.finding);
    if (j.undecided && !undecided.has(r.view)) undecided.set(r.view, j.undecided);
  }
  return { findings, notes, undecided, unfiltered };
}

/**
 * No page holds more than 100 items, whatever per_page asks above it (101, 500, 1000), on the first page and the
 * next, of the whole list and under the tag filter the most VMs carry; per_page=100 itself is served. A served page
 * decides a view only where the list there is long enough to overfill it without the cap (certify makes it so).
 */
export const perPageMax: Check = {
  id: 'pagination.per-page-max',
  group: 'pagination',
  clauses: ['PAGE-MAX-100'],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: { must: "the seed states per_page's maximum of 100" },
  title: 'per_page above 100 never yields more than 100 items, on any page, filtered or not',
  async run(ctx) {
    // Certify filled the list past 100 for this check: a valid create that failed on the way is never lost.
    const prep = ctx.certify;
    const findings: Finding[] = (prep?.problems ?? []).map((p) =>
      finding('must', `${p.message} (VM-CREATE: a valid create never gets a server error)`, p.exchanges)
    );
    const first = await ctx.objects.firstPage();
    const at100 = await ctx.call({ method: 'GET', path: '/v1/vms', query: { page: first, per_page: 100 } });
    if (!isSuccess(at100))
      return fail(`per_page=100, the documented maximum, was refused: ${describeExchange(at100)}`, [at100]);
    const views = await judgeViews(ctx, at100);
    findings.push(...views.findings);
    for (const view of Object.values(VIEW)) {
      const why = views.undecided.get(view);
      ctx.view(
        'PAGE-MAX-100',
        view,
        why ? { reason: why, howToVerify: howToDecide(ctx, view.startsWith('tag')) } : undefined
      );
    }
    if (findings.length) return judge(findings, '');
    const over = views.unfiltered.find((r) => !r.later)!;
    ctx.observe('perPageOverMax', isSuccess(over.ex) ? 'clamp' : 'reject');
    return verdict(ctx, views);
  },
};

/** No finding: passed with what each view showed, or not verified where even the whole list's first page could not show a cap. */
function verdict(ctx: CheckContext, views: Awaited<ReturnType<typeof judgeViews>>): CheckOutcome {
  const first = views.undecided.get(VIEW.unfilteredFirst);
  const prep = ctx.certify;
  if (first) {
    if (prep)
      return skip(
        `${first}, although certify filled the list (${prep.populated.length} created, ${prep.shortBy} short), so a missing cap cannot be seen`,
        howToDecide(ctx, false)
      );
    return skip(`${first}, so a missing cap cannot be seen`, howToDecide(ctx, false));
  }
  const answers = views.unfiltered.map((r) => describeExchange(r.ex)).join('; ');
  const open = [...views.undecided].map(([view, why]) => `${view}: ${why}`);
  return judge(
    [],
    `per_page above 100 never served more than 100 items (${answers}; ${views.notes.join('; ') || 'no tag'})${open.length ? `; not decided: ${open.join('; ')}` : ''}`
  );
}
