import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { AuditDeclaration, AuditField } from '../../src/spec/declarations.ts';
import type { KeyName } from '../../src/engine/config/config.ts';
import { Unavailable } from '../../src/engine/run/check.ts';
import { readPointer } from '../../src/engine/target/discover.ts';
import { isSuccess, statusText } from '../support.ts';

export type Entry = Record<string, unknown>;

export function auditOf(ctx: CheckContext): AuditDeclaration {
  const a = ctx.declarations.audit;
  if (!a)
    throw new Unavailable(
      'the overlay declares no audit search operation (x-audit: search); see spec/README.md',
      'declare the audit search operation (x-audit: search) in --overlay'
    );
  return a;
}

/** A field of an entry, where x-audit-fields points (into nested objects as well). */
export function field(a: AuditDeclaration, entry: unknown, name: AuditField): unknown {
  return readPointer(entry, a.fields[name]);
}

const MAX_PAGES = 20;
const PER_PAGE = 100;

/** Whether the log is read newest first: declared so, or asked for with the declared sorting parameter. */
export function readsNewestFirst(a: AuditDeclaration): boolean {
  return a.sort !== undefined || a.order !== 'oldest-first';
}

async function searchPage(
  ctx: CheckContext,
  query: Record<string, string>,
  page: number,
  as: KeyName = 'primary'
): Promise<{ ex: Exchange; list: Entry[] }> {
  const a = auditOf(ctx);
  const sort = a.sort ? { [a.sort.param]: a.sort.newestFirst } : {};
  const ex = await ctx.call({
    as,
    method: a.search.method,
    path: a.search.path,
    query: { ...query, ...sort, page, per_page: PER_PAGE },
  });
  if (!isSuccess(ex))
    throw new Unavailable(`the audit search answered ${statusText(ex)}`, 'an audit search the target answers');
  const got = readPointer(ex.response?.json, a.entriesPointer);
  return { ex, list: Array.isArray(got) ? (got as Entry[]) : [] };
}

/** Pages through the declared search operation (page/per_page as on every list) up to a bound. */
export async function searchAudit(
  ctx: CheckContext,
  query: Record<string, string>,
  maxPages = MAX_PAGES,
  as: KeyName = 'primary'
): Promise<{ entries: Entry[]; pages: Exchange[]; complete: boolean }> {
  const entries: Entry[] = [];
  const pages: Exchange[] = [];
  const first = ctx.declarations.firstPage ?? 1;
  for (let page = first; page < first + maxPages; page++) {
    const { ex, list } = await searchPage(ctx, query, page, as);
    pages.push(ex);
    entries.push(...list);
    if (list.length < PER_PAGE) return { entries, pages, complete: true };
  }
  return { entries, pages, complete: false };
}

/**
 * The most recent entries (up to `pages` pages of 100), newest first whatever the log's order: the first pages of a
 * newest-first log; the last pages of an oldest-first one, found through its total (x-total-count) or by walking.
 */
export async function recentEntries(
  ctx: CheckContext,
  query: Record<string, string>,
  pages: number,
  as: KeyName = 'primary'
): Promise<{ entries: Entry[]; pages: Exchange[] }> {
  const a = auditOf(ctx);
  if (readsNewestFirst(a)) return searchAudit(ctx, query, pages, as);
  const first = ctx.declarations.firstPage ?? 1;
  const head = await searchPage(ctx, query, first, as);
  const total = readPointer(head.ex.response?.json, a.totalPointer ?? '/total');
  if (typeof total === 'number' && Number.isInteger(total) && total >= 0) {
    const last = first + Math.max(0, Math.ceil(total / PER_PAGE) - 1);
    const read: Array<{ ex: Exchange; list: Entry[] }> = [];
    for (let page = last; page >= Math.max(first, last - pages + 1); page--)
      read.push(page === first ? head : await searchPage(ctx, query, page, as));
    return { entries: read.flatMap((r) => [...r.list].reverse()), pages: read.map((r) => r.ex) };
  }
  const walk = await searchAudit(ctx, query, MAX_PAGES, as);
  return { entries: [...walk.entries].reverse(), pages: walk.pages.slice(-1) };
}

/**
 * The most recent entries, and for a log declared oldest first its first pages as well: whether a call is logged is
 * judged apart from the order the log is served in (audit.search judges that), so a log served against its declared
 * order still shows the calls it holds.
 */
export async function entriesAtBothEnds(
  ctx: CheckContext,
  query: Record<string, string>,
  pages: number,
  as: KeyName = 'primary'
): Promise<{ entries: Entry[]; pages: Exchange[] }> {
  const recent = await recentEntries(ctx, query, pages, as);
  if (readsNewestFirst(auditOf(ctx))) return recent;
  const head = await searchAudit(ctx, query, Math.min(pages, 2), as);
  return { entries: [...recent.entries, ...head.entries], pages: [...recent.pages, ...head.pages] };
}

/** Requests of this run the audit must show: one that fails (an unknown task) and one that succeeds. */
export async function auditProbes(ctx: CheckContext): Promise<{ failing: Exchange; succeeding?: Exchange }> {
  const failing = await ctx.call({ method: 'GET', path: `/v1/tasks/cc-${ctx.config.runId}-audit-probe` });
  let succeeding: Exchange | undefined;
  try {
    const task = await ctx.objects.vmTask();
    succeeding = await ctx.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(task.id)}` });
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return { failing, succeeding };
}

/**
 * Finds the newest entry for a request path, retrying briefly (an audit log may be written a moment later): with a
 * declared path filter among the entries it selects, else among the most recent entries.
 */
export async function findEntry(ctx: CheckContext, path: string): Promise<{ entry?: Entry; pages: Exchange[] }> {
  const a = auditOf(ctx);
  let pages: Exchange[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await entriesAtBothEnds(ctx, a.filters.pathPrefix ? { [a.filters.pathPrefix]: path } : {}, 3);
    pages = r.pages;
    const entry = r.entries.find((e) => field(a, e, 'path') === path);
    if (entry) return { entry, pages };
    await ctx.sleepTarget(1);
  }
  return { pages };
}
