import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip, Unavailable } from '../../src/engine/run/check.ts';
import { readPointer, readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { documentOperations, type DocumentOperation } from '../operations.ts';
import { pagesWithPartialEnd } from './total.ts';

/** Pages a walk of a declared list reads at most, and the page size from which a list that moves is judged. */
const MAX_WALK_PAGES = 12;
const MOVING_PAGE = 10;

/** A declared list as the suite reads it: its items and its total where the answer holds them. */
interface Page {
  ex: Exchange;
  items: unknown[];
  total: unknown;
}

/**
 * Two pages share most of their items: the page parameter was not honoured. A list that grows while it is read (an
 * audit log records each read) shifts by an item or two between reads, never by half a page.
 */
export function pageIgnored(first: readonly unknown[], second: readonly unknown[]): boolean {
  const seen = new Set(first.map((i) => JSON.stringify(i)));
  const shared = second.filter((i) => seen.has(JSON.stringify(i))).length;
  return second.length > 0 && shared * 2 >= Math.max(first.length, 1);
}

/**
 * Pages one and two of a list, read side by side. A second page that repeats the first is confirmed by reading the
 * first again: a list that moved meanwhile (entries written at its head by the run's other requests, an audit trail)
 * is read again, three times at most; moving every time, it is not judged.
 */
async function twoPages(
  read: (query: Record<string, number>) => Promise<Page>,
  firstPage: number,
  perPage: number
): Promise<{ one: Page; two: Page; moved: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const [one, two] = await Promise.all([
      read({ page: firstPage, per_page: perPage }),
      read({ page: firstPage + 1, per_page: perPage }),
    ]);
    if (!isSuccess(two.ex) || !pageIgnored(one.items, two.items)) return { one, two, moved: false };
    const again = await read({ page: firstPage, per_page: perPage });
    if (JSON.stringify(again.items) === JSON.stringify(one.items)) return { one, two, moved: false };
    if (attempt === 3) return { one, two, moved: true };
  }
}

/** The run fills the lists it can (the event session registers webhooks), so a page parameter has pages to choose from. */
async function fill(ctx: CheckContext, op: DocumentOperation): Promise<void> {
  if (ctx.declarations.webhooks && /webhooks/.test(op.path))
    await ctx.events.events().catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
}

/** PAGE-PARAMS, PAGE-MAX-100 and PAGE-TOTAL on one declared list. */
async function judgeList(
  ctx: CheckContext,
  op: DocumentOperation,
  firstPage: number
): Promise<{ findings: Finding[]; note: string }> {
  const field = op.itemsField!;
  const read = async (query: Record<string, number>): Promise<Page> => {
    const ex = await ctx.call({ method: 'GET', path: op.path, query });
    const items = readPointer(ex.response?.json, `/${field}`);
    return { ex, items: Array.isArray(items) ? items : [], total: undefined };
  };
  const findings: Finding[] = [];
  await fill(ctx, op);
  const head = await read({ page: firstPage, per_page: MOVING_PAGE });
  if (!isSuccess(head.ex))
    return {
      findings: [
        finding(
          'declared',
          `${op.operationId}: page=${firstPage}&per_page=${MOVING_PAGE} answered ${describeExchange(head.ex)}`,
          [head.ex]
        ),
      ],
      note: '',
    };
  // PAGE-TOTAL: an integer total on the answer (a declared or discovered field, or a header).
  const candidate = totalCandidatesOf(head.ex).find((c) => Number.isInteger(c.value));
  if (!candidate)
    findings.push(
      finding(
        'declared',
        `${op.operationId}: no total count in the answer (no integer field named total or count, no X-Total-Count header)`,
        [head.ex]
      )
    );
  const totalOf = (p: Page) => (candidate ? readTotal(p.ex, candidate.pointer) : undefined);
  const total = candidate ? Number(candidate.value) : head.items.length;
  // A list that changes between two identical reads moves with every read: judged on what a moving list can show.
  const again = await read({ page: firstPage, per_page: MOVING_PAGE });
  const moving = totalOf(again) !== totalOf(head) || JSON.stringify(again.items) !== JSON.stringify(head.items);
  // PAGE-PARAMS: per_page bounds a page; page chooses another one.
  const perPage = moving ? MOVING_PAGE : Math.max(1, Math.min(MOVING_PAGE, Math.floor(total / 2)));
  const { one, two, moved } = await twoPages(read, firstPage, perPage);
  for (const p of [one, two]) {
    if (isSuccess(p.ex) && p.items.length > perPage)
      findings.push(
        finding('declared', `${op.operationId}: per_page=${perPage} answered ${p.items.length} items`, [p.ex])
      );
  }
  let pageNote = `a list of ${total}: too short to tell pages apart`;
  if (total >= perPage * 2 && (!moving || perPage >= MOVING_PAGE)) {
    if (!isSuccess(two.ex))
      findings.push(
        finding('declared', `${op.operationId}: page=${firstPage + 1} answered ${describeExchange(two.ex)}`, [two.ex])
      );
    else if (pageIgnored(one.items, two.items) && !moved)
      findings.push(
        finding(
          'declared',
          `${op.operationId}: page=${firstPage + 1} served the items of page=${firstPage} (per_page=${perPage}, total ${total})`,
          [one.ex, two.ex]
        )
      );
    pageNote = moved
      ? `pages not told apart: the list moved while each of three pairs was read (per_page=${perPage})`
      : `page ${firstPage + 1} other than page ${firstPage} at per_page=${perPage}`;
  }
  // PAGE-MAX-100: per_page above 100 never serves more than 100 (a refusal is a choice); never a server error.
  const over = await read({ page: firstPage, per_page: 101 });
  if (over.ex.response && over.ex.response.status >= 500)
    findings.push(
      finding('declared', `${op.operationId}: per_page=101 answered ${describeExchange(over.ex)}`, [over.ex])
    );
  else if (isSuccess(over.ex) && over.items.length > 100)
    findings.push(
      finding('declared', `${op.operationId}: per_page=101 answered ${over.items.length} items`, [over.ex])
    );
  const capNote = !isSuccess(over.ex)
    ? 'per_page=101 refused'
    : total > 100
      ? `per_page=101 served ${over.items.length}`
      : `per_page=101 served (the cap cannot show on ${total} items)`;
  // PAGE-TOTAL over a walk: a list that stands still holds as many items as its total says.
  let totalNote = candidate ? `total at ${candidate.pointer}` : 'no total';
  if (candidate && !moving && total > 0 && total <= MAX_WALK_PAGES * 100) {
    const size = Math.max(1, Math.min(100, pagesWithPartialEnd(total), Math.ceil(total / (MAX_WALK_PAGES - 1))));
    const pages: Page[] = [];
    for (let page = firstPage; pages.length < MAX_WALK_PAGES; page++) {
      const p = await read({ page, per_page: size });
      pages.push(p);
      if (!isSuccess(p.ex) || p.items.length < size) break;
    }
    const items = pages.flatMap((p) => p.items);
    const totals = new Set(pages.filter((p) => p.items.length > 0).map((p) => JSON.stringify(totalOf(p))));
    const distinct = new Set(items.map((i) => JSON.stringify(i))).size;
    // Two reads before the walk may meet a still moment of a list that moves (tasks the run's checks start meanwhile):
    // what the walk saw is judged only when the first page reads as it did before the walk.
    const last = totals.size > 1 || distinct !== total ? await read({ page: firstPage, per_page: MOVING_PAGE }) : head;
    const stood = totalOf(last) === totalOf(head) && JSON.stringify(last.items) === JSON.stringify(head.items);
    if (!stood)
      totalNote = `total at ${candidate.pointer} (the list moved while it was walked at per_page=${size}: not judged)`;
    else if (totals.size > 1)
      findings.push(
        finding(
          'declared',
          `${op.operationId}: the total changes across pages (${[...totals].join(', ')}) of a list that stood still`,
          pages.slice(0, 2).map((p) => p.ex)
        )
      );
    else if (distinct !== total)
      findings.push(
        finding(
          'declared',
          `${op.operationId}: the total says ${total}, a walk at per_page=${size} found ${distinct} distinct items`,
          pages.slice(-2).map((p) => p.ex)
        )
      );
    if (stood) totalNote = `total at ${candidate.pointer} = ${total}, walked at per_page=${size}`;
  } else if (candidate && moving)
    totalNote = `total at ${candidate.pointer} (a list that grows as it is read: not walked)`;
  return { findings, note: `${op.operationId}: ${pageNote}; ${capNote}; ${totalNote}` };
}

/**
 * Pagination on every list of the document beyond the VM list (seed §4: all list endpoints take page and per_page,
 * per_page is at most 100, the answer includes a total count). Which operations are lists is the overlay's word.
 */
export const declaredLists: Check = {
  id: 'pagination.declared-lists',
  group: 'pagination',
  clauses: ['PAGE-PARAMS', 'PAGE-MAX-100', 'PAGE-TOTAL'],
  level: 'declared',
  why: {
    declared:
      "the seed says every list endpoint pages, caps per_page at 100 and counts its items; which operations beyond the VM list are lists is the overlay's declaration",
  },
  title: 'Every declared list takes page and per_page, caps per_page at 100 and includes a total count',
  async run(ctx) {
    const lists = documentOperations(ctx).filter(
      (o) => o.list && !o.public && o.path !== '/v1/vms' && !o.path.includes('{')
    );
    if (lists.length === 0)
      return skip(
        'the document declares no list beyond the VM list',
        "declare the target's other list operations in --overlay"
      );
    const firstPage = ctx.declarations.firstPage ?? (await ctx.objects.firstPage());
    const findings: Finding[] = [];
    const notes: string[] = [];
    for (const op of lists) {
      const r = await judgeList(ctx, op, firstPage);
      findings.push(...r.findings);
      if (r.note) notes.push(r.note);
    }
    return judge(findings, notes.join('; '));
  },
};
