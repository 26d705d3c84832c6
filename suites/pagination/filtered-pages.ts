import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { ListWalk } from '../../src/engine/target/run-objects.ts';
import { finding, judge } from '../../src/engine/run/check.ts';
import { readTotal } from '../../src/engine/target/discover.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { isSuccess } from '../support.ts';
import { tagsOf } from '../vms/tag-filter.ts';
import { pagesWithPartialEnd } from './total.ts';
import { candidateTags, countUpTo, totalPointer, VIEW } from './_views.ts';

/** Page size of the reads of a tag nobody carries: its second page starts at the whole list's third VM. */
const ABSENT_PAGE = 2;
/** VMs counted under a tag at most (three pages of 100): past it, the filter's pages are not held to a set. */
const COUNT_UP_TO = 300;
/** Target-seconds before a filtered list that did not match itself is read again (a VM listed once ready, say). */
const SETTLE_SECONDS = 3;

const CLAUSES = ['PAGE-PARAMS', 'PAGE-TOTAL', 'TAG-FILTER'] as const;
const idOf = (vm: Record<string, unknown>) => JSON.stringify(vm['id']);

/**
 * A tag nobody carries is empty on every page, and its total is 0: needs no tag visible on any record. (A filter whose
 * later pages come from the whole list shows here: its second page holds VMs while its total says none.)
 */
async function judgeAbsent(ctx: CheckContext, pointer: string | undefined): Promise<Finding[]> {
  const first = await ctx.objects.firstPage();
  const tag = `cc-absent-${ctx.config.runId}:none`;
  const pages = await ctx.callEach(
    [first, first + 1].map((page) => ({ method: 'GET', path: '/v1/vms', query: { tag, page, per_page: ABSENT_PAGE } }))
  );
  const findings: Finding[] = [];
  for (const [i, ex] of pages.entries()) {
    // Past the end, a page may be refused for its content; the first page is vms.tag-filter's to refuse.
    if (!isSuccess(ex)) continue;
    const total = pointer ? readTotal(ex, pointer) : undefined;
    const n = vmsOf(ex).length;
    if (n > 0)
      findings.push(
        finding(
          'must',
          `tag=${tag}, which no VM carries, returned ${n} VMs on page ${first + i} at per_page=${ABSENT_PAGE}${pointer ? ` (its total ${pointer} says ${JSON.stringify(total)})` : ''}`,
          [ex, ...pages.filter((p) => p !== ex)]
        )
      );
    else if (total !== undefined && total !== 0)
      findings.push(
        finding('must', `tag=${tag}, which no VM carries, answered a total ${pointer} of ${JSON.stringify(total)}`, [
          ex,
        ])
      );
  }
  return findings;
}

/**
 * The tag to walk: the first candidate whose filter holds two VMs or more (a later page then holds one), one read
 * whole at per_page=100 before one that holds more.
 */
async function chooseTag(
  ctx: CheckContext
): Promise<{ tag: string; source: string; count: number; whole: boolean; pages: Exchange[] } | undefined> {
  const scale = await ctx.objects.listScale();
  // Counted side by side; taken in the candidates' order.
  const counted = await Promise.all(
    (await candidateTags(ctx, scale.firstPage)).map(async (c) => ({
      ...c,
      ...(await countUpTo(ctx, { tag: c.tag }, COUNT_UP_TO)),
    }))
  );
  return counted.find((c) => c.count >= 2 && c.whole) ?? counted.find((c) => c.count >= 2);
}

interface Walked {
  walk: ListWalk;
  /** The filter's VMs read at per_page=100, where it holds at most COUNT_UP_TO. */
  set?: Set<string>;
  /** The reads at per_page=100 that set came from. */
  head: Exchange[];
  count: number;
}

/** The filter walked at a page size that gives two pages or more, beside its VMs read at per_page=100 (read again once where they differ). */
async function walkTag(ctx: CheckContext, tag: string, count: number, whole: boolean): Promise<Walked> {
  const perPage = whole ? pagesWithPartialEnd(count) : 100;
  let walk = await ctx.objects.walk(perPage, { tag });
  if (!whole) return { walk, count, head: [] };
  let head = (await countUpTo(ctx, { tag }, COUNT_UP_TO)).pages;
  const setOf = () => new Set(head.flatMap((p) => vmsOf(p).map(idOf)));
  let set = setOf();
  const same = () => walk.items.length === set.size && walk.items.every((v) => set.has(idOf(v)));
  if (walk.complete && !same()) {
    await ctx.sleepTarget(SETTLE_SECONDS, 'the filtered list to settle before it is read again');
    walk = await ctx.objects.walk(perPage, { tag });
    head = (await countUpTo(ctx, { tag }, COUNT_UP_TO)).pages;
    set = setOf();
  }
  return { walk, set, head, count: set.size };
}

/** What tells the filter's VMs from others: the set read at per_page=100, the tag where records show tags, the run's names. */
interface Membership {
  set?: Set<string>;
  field?: string;
  pair: [string, string];
  /** The name prefix of the run's VMs, where the tag is the run's own. */
  ours?: string;
}

/** Why a VM a filtered page returned is not the filter's, or undefined where it is. */
function notTheFilters(vm: Record<string, unknown>, m: Membership): string | undefined {
  if (m.set && !m.set.has(idOf(vm))) return 'not among those the filter returns at per_page=100';
  const shown = m.field ? tagsOf(vm, m.field) : undefined;
  if (shown && !shown.some(([k, v]) => k === m.pair[0] && v === m.pair[1])) return `its ${m.field} lack the tag`;
  if (m.ours && !String(vm['name']).startsWith(m.ours)) return "not a VM the run created, though the tag is the run's";
  return undefined;
}

/** Each page of the walk against the filter's VMs and the total: VMs repeated, VMs not the filter's, totals that do not hold. */
function judgePages(w: Walked, m: Membership, pointer: string | undefined, at: (i: number) => string): Finding[] {
  const { walk } = w;
  const seen = new Map<string, number>();
  const repeated: string[] = [];
  const strangers: string[] = [];
  const totals: string[] = [];
  const pages: Exchange[] = [];
  for (const [i, page] of walk.pages.entries()) {
    const items = vmsOf(page);
    for (const vm of items) {
      const id = idOf(vm);
      if (seen.has(id)) repeated.push(`${at(i)} repeats ${id}, already on page ${walk.firstPage + seen.get(id)!}`);
      else seen.set(id, i);
      const why = notTheFilters(vm, m);
      if (why) strangers.push(`${at(i)} returned ${id} (${JSON.stringify(vm['name'])}): ${why}`);
    }
    const total = pointer ? readTotal(page, pointer) : undefined;
    if (items.length > 0 && typeof total === 'number' && total <= i * walk.perPage)
      totals.push(`${at(i)} holds ${items.length} VMs although its total ${pointer} = ${total} leaves none for it`);
    else if (items.length > 0 && total !== undefined && m.set && total !== m.set.size)
      totals.push(`${at(i)} says total ${pointer} = ${JSON.stringify(total)}, but the filter holds ${m.set.size} VMs`);
    if (items.length) pages.push(page);
  }
  const missing = m.set ? [...m.set].filter((id) => !seen.has(id)) : [];
  if (walk.complete && missing.length)
    repeated.push(`the pages left out ${missing.length} of the filter's ${m.set!.size} VMs (e.g. ${missing[0]})`);
  const evidence = [...pages.slice(0, 3), ...w.head.slice(0, 1)];
  return [repeated, strangers, totals]
    .filter((l) => l.length > 0)
    .map((l) =>
      finding('must', `${l[0]}${l.length > 1 ? ` (and ${l.length - 1} more)` : ''}`, evidence, { all: l.slice(0, 20) })
    );
}

/** What the walked pages show against the filter's VMs, its tag, the run's names and the total, and the views decided. */
async function judgeWalk(
  ctx: CheckContext,
  tag: string,
  w: Walked,
  pointer: string | undefined
): Promise<{ findings: Finding[]; decided: Record<(typeof CLAUSES)[number], boolean[]>; note: string }> {
  const { walk } = w;
  const field = (await ctx.objects.tagField())?.field;
  const run = await ctx.objects.runTag().catch(() => undefined);
  const m: Membership = {
    ...(w.set ? { set: w.set } : {}),
    ...(field ? { field } : {}),
    pair: [tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)],
    ...(run && `${run.key}:${run.value}` === tag ? { ours: `cc-${ctx.config.runId}-` } : {}),
  };
  const findings = judgePages(
    w,
    m,
    pointer,
    (i) => `page ${walk.firstPage + i} of tag=${tag} at per_page=${walk.perPage}`
  );
  const held = [0, 1].map((i) => walk.pages[i] !== undefined && vmsOf(walk.pages[i]!).length > 0);
  const matchable = !!(m.set || m.field || m.ours);
  return {
    findings,
    decided: {
      'PAGE-PARAMS': held,
      'PAGE-TOTAL': held.map((h) => h && pointer !== undefined),
      'TAG-FILTER': held.map((h) => h && matchable),
    },
    note: `tag=${tag}: ${walk.pages.length} pages at per_page=${walk.perPage}, ${walk.items.length} VMs, each once${m.set ? `, the same as at per_page=100` : ''}${pointer ? `, total ${pointer} ${m.set ? 'counting them' : 'leaving room for them'} on each` : ''}`,
  };
}

/**
 * Pages under a tag filter: a tag nobody carries is empty on every page with a total of 0; a tag two VMs or more
 * carry, walked over two pages or more, puts each of its VMs on one page only, only its VMs (those it returns at
 * per_page=100, those that show the tag, the run's own for the run's tag), and a total on each page that counts them
 * and leaves room for what the page holds.
 */
export const filteredPages: Check = {
  id: 'pagination.filtered-pages',
  group: 'pagination',
  clauses: [...CLAUSES],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: {
    must: 'the seed states page and per_page on every list, a total count in the answer, and the tag filter returning only VMs with the tag: on every page',
  },
  title:
    'Under a tag filter every page holds only its VMs, once each, with its total; a tag nobody carries is empty on every page',
  async run(ctx) {
    const pointer = await totalPointer(ctx);
    const [findings, chosen] = await Promise.all([judgeAbsent(ctx, pointer), chooseTag(ctx)]);
    if (!chosen) {
      const reason =
        'no tag the run can see or set is carried by two VMs or more, so no filtered list has a later page';
      const howToVerify = ctx.certify
        ? 'an organization whose VM records show their tags, or a declared x-tags-field'
        : '--profile certify (tags the VMs it creates), or a declared x-tags-field';
      for (const clause of CLAUSES)
        for (const view of [VIEW.tagFirst, VIEW.tagLater]) ctx.view(clause, view, { reason, howToVerify });
      return judge(findings, `a tag nobody carries is empty on two pages; ${reason}`);
    }
    const walked = await walkTag(ctx, chosen.tag, chosen.count, chosen.whole);
    if (!walked.walk.complete && !walked.walk.capped)
      findings.push(
        finding('must', `walking tag=${chosen.tag} failed: ${walked.walk.stoppedBecause}`, walked.walk.pages.slice(-1))
      );
    const judged = await judgeWalk(ctx, chosen.tag, walked, pointer);
    findings.push(...judged.findings);
    for (const clause of CLAUSES)
      [VIEW.tagFirst, VIEW.tagLater].forEach((view, i) =>
        ctx.view(
          clause,
          view,
          judged.decided[clause][i]
            ? undefined
            : {
                reason: `tag=${chosen.tag} (${chosen.source}) ${i ? 'held no VM on its second page' : 'held no VM'}${clause === 'PAGE-TOTAL' && !pointer ? ', and no total was found' : ''}`,
                howToVerify: '--profile certify (tags the VMs it creates)',
              }
        )
      );
    return judge(findings, `a tag nobody carries is empty on two pages; ${judged.note} (${chosen.source})`);
  },
};
