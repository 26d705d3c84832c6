import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { AuditDeclaration, AuditField } from '../../src/spec/declarations.ts';
import type { KeyName } from '../../src/engine/config/config.ts';
import { Unavailable, skip, type CheckOutcome } from '../../src/engine/run/check.ts';
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

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Every array in an answer, with its JSON pointer: the answer itself, or arrays in its objects (two levels down). */
function arraysIn(v: unknown, pointer = '', depth = 0): Array<{ pointer: string; items: unknown[] }> {
  if (Array.isArray(v)) return [{ pointer, items: v }];
  if (!isRecord(v) || depth > 2) return [];
  return Object.entries(v).flatMap(([k, child]) =>
    arraysIn(child, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1)
  );
}

/** Whether an entry carries one of the run's own request paths (any string in it, a few levels down). */
function carriesTrace(entry: unknown, paths: ReadonlySet<string>, depth = 0): boolean {
  if (typeof entry === 'string') return paths.has(entry);
  if (depth > 3 || !entry || typeof entry !== 'object') return false;
  return Object.values(entry).some((v) => carriesTrace(v, paths, depth + 1));
}

/**
 * Where the entries sit in an answer whose overlay does not say (x-audit-entries-field): the array of objects whose
 * items carry a path the run itself requested (traced: that is the log); else the one array of objects, or the one
 * array (an empty page), untraced. Else why it cannot be told.
 */
export function findEntries(
  body: unknown,
  ownPaths: ReadonlySet<string>
): { pointer: string; traced: boolean } | { why: string } {
  const arrays = arraysIn(body);
  const ofObjects = arrays.filter((a) => a.items.length > 0 && a.items.every(isRecord));
  const traced = ofObjects.filter((a) => a.items.some((e) => carriesTrace(e, ownPaths)));
  if (traced.length === 1) return { pointer: traced[0]!.pointer, traced: true };
  const list = (of: typeof arrays) => of.map((a) => a.pointer || '(the answer)').join(', ');
  if (traced.length > 1)
    return { why: `${traced.length} arrays of objects carry the run's own requests (${list(traced)})` };
  if (ofObjects.length === 1) return { pointer: ofObjects[0]!.pointer, traced: false };
  if (ofObjects.length > 1)
    return {
      why: `it holds ${ofObjects.length} arrays of objects (${list(ofObjects)}), none with the run's own requests`,
    };
  const empty = arrays.filter((a) => a.items.length === 0);
  if (empty.length === 1 && arrays.every((a) => a.items.length === 0 || !a.items.some(isRecord)))
    return { pointer: empty[0]!.pointer, traced: false };
  return { why: `it holds no array of objects (${arrays.length} arrays in all)` };
}

/** Where the run found the entries of an audit whose overlay does not say, once they carried the run's own requests. */
const foundEntries = new WeakMap<AuditDeclaration, string>();

/**
 * Whether the run knows where the entries are: declared, or found carrying the run's own requests. Until then an entry
 * the run looks for and does not find may sit elsewhere in the answer: that is not verified, never a failure.
 */
function entriesKnown(ctx: CheckContext): boolean {
  const a = auditOf(ctx);
  return a.entriesPointer !== undefined || foundEntries.has(a);
}

/**
 * A failure judged on entries found by guess (entriesKnown false at the end of the check) is not the target's: the
 * entries may sit elsewhere in the answer. Said as not verified, with the declaration that would verify it.
 */
export function unlessGuessed(ctx: CheckContext, outcome: CheckOutcome): CheckOutcome {
  if (outcome.status !== 'failed' || entriesKnown(ctx)) return outcome;
  return skip(
    `not verified: ${outcome.message}; but the overlay does not say where the audit answer holds its entries, and no array in it carried the run's own requests, so they may sit elsewhere`,
    'declare x-audit-entries-field on the audit search in --overlay'
  );
}

/**
 * The entries of an answer (a search page, a JSON export), and whether the run knows they are the entries: the answer
 * itself when it is an array; where the overlay declares them; where the run found them carrying its own requests;
 * else found in the data (findEntries). Why not, when they cannot be told apart.
 */
export function locateEntries(ctx: CheckContext, body: unknown): { list: Entry[]; known: boolean } | { why: string } {
  if (Array.isArray(body)) return { list: body.filter(isRecord), known: true };
  const a = auditOf(ctx);
  const known = a.entriesPointer ?? foundEntries.get(a);
  const at = known !== undefined ? readPointer(body, known) : undefined;
  if (Array.isArray(at)) return { list: at.filter(isRecord), known: true };
  if (a.entriesPointer !== undefined) return { why: `it holds no array at the declared ${a.entriesPointer}` };
  const found = findEntries(body, new Set(ctx.log.map((ex) => new URL(ex.request.url).pathname)));
  if ('why' in found) return found;
  if (found.traced) foundEntries.set(a, found.pointer);
  const got = readPointer(body, found.pointer);
  return { list: Array.isArray(got) ? got.filter(isRecord) : [], known: found.traced };
}

/**
 * The entries of a search page (locateEntries): none where the declared field is absent (an empty page may leave it
 * out); when they cannot be told apart, what reads them is not verified, and says which declaration would verify it.
 */
function auditEntries(ctx: CheckContext, body: unknown): Entry[] {
  const found = locateEntries(ctx, body);
  if ('list' in found) return found.list;
  if (auditOf(ctx).entriesPointer !== undefined) return [];
  throw new Unavailable(
    `the overlay does not say where the audit answer holds its entries, and ${found.why}`,
    'declare x-audit-entries-field on the audit search in --overlay'
  );
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
  return { ex, list: auditEntries(ctx, ex.response?.json) };
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
