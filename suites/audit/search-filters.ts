import type { Check } from '../../src/engine/run/check.ts';
import type { AuditDeclaration } from '../../src/spec/declarations.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { pass, fail, failAt, skip, type CheckOutcome } from '../../src/engine/run/check.ts';
import {
  auditOf,
  auditProbes,
  field,
  findEntry,
  readsNewestFirst,
  searchAudit,
  unlessGuessed,
  type Entry,
} from './_search.ts';

/** A path only this run can have asked: it names the run (cc-<run id>-…) or an object the run created. */
function ownedBy(ctx: CheckContext): (path: string) => boolean {
  const mark = `cc-${ctx.config.runId}`;
  const ids = ctx.ledger.entries.flatMap((e) => (e.id ? [e.id, encodeURIComponent(e.id)] : []));
  return (path) => path.includes(mark) || ids.some((id) => path.split('/').includes(id));
}

/** When the run sent one of its requests, and when its answer had come (real ms). */
const sentAt = (ex: Exchange) => Date.parse(ex.startedAt);
const answeredAt = (ex: Exchange) => Date.parse(ex.startedAt) + ex.durationMs;

/** An entry of the run's own: the span its request lay in (whichever request of the run it is), and what it was. */
interface OwnEntry {
  index: number;
  from: number;
  to: number;
  what: string;
}

/** The run's own log, the primary key's actor, and which paths only this run can have asked (its names, its objects). */
interface OwnRequests {
  log: readonly Exchange[];
  actor: unknown;
  owns: (path: string) => boolean;
}

/**
 * The entries a request of the run's primary key made (its actor, its path, its method and status where the entry
 * shows them), each with the span from the first such request's sending to the last one's answer. Only a path only
 * this run can have asked counts: the same key's earlier runs asked POST /v1/vms too, and their entries are no
 * evidence of this run's order.
 */
function ownEntries(a: AuditDeclaration, entries: Entry[], own: OwnRequests): OwnEntry[] {
  const { log, actor } = own;
  const byPath = new Map<string, Exchange[]>();
  for (const ex of log)
    if (ex.response && ex.subject === 'primary') {
      const path = new URL(ex.request.url).pathname;
      if (own.owns(path)) byPath.set(path, [...(byPath.get(path) ?? []), ex]);
    }
  return entries.flatMap((e, index) => {
    const path = field(a, e, 'path');
    const method = field(a, e, 'method');
    const status = field(a, e, 'status');
    if (actor === undefined || field(a, e, 'actor') !== actor || typeof path !== 'string') return [];
    const requests = (byPath.get(path) ?? []).filter(
      (ex) =>
        (typeof method !== 'string' || method.toUpperCase() === ex.request.method) &&
        (status === undefined || Number(status) === ex.response!.status)
    );
    if (requests.length === 0) return [];
    const what = `${requests[0]!.request.method} ${path} → ${requests[0]!.response!.status}`;
    return [{ index, from: Math.min(...requests.map(sentAt)), to: Math.max(...requests.map(answeredAt)), what }];
  });
}

/**
 * Real milliseconds between one request's answer and the next one's sending below which their entries' order is not
 * judged: a target may write its entry a moment after it answers (a hook after the response is flushed), so a request
 * sent 1 ms after another was answered may be logged first (ruby-webrick's audit).
 */
const ORDER_MARGIN_MS = 250;

/**
 * Where the served order breaks the declared one, judged only where it is observable: between two entries of the run's
 * own requests that did not overlap (one answered ORDER_MARGIN_MS before the other was sent). A target may time an
 * entry at the start or the end of its call, so requests in flight together may be logged either way round. `judged`:
 * pairs compared.
 */
export function orderBroken(
  a: AuditDeclaration,
  entries: Entry[],
  own: OwnRequests
): { broken?: string; judged: number } {
  const newestFirst = readsNewestFirst(a);
  const mine = ownEntries(a, entries, own);
  let judged = 0;
  for (let i = 0; i < mine.length; i++)
    for (let j = i + 1; j < mine.length; j++) {
      const [first, later] = [mine[i]!, mine[j]!];
      // Served first: the newer of the two (newest first), or the older.
      const [older, newer] = newestFirst ? [later, first] : [first, later];
      if (newer.to + ORDER_MARGIN_MS < older.from)
        return {
          broken: `entry ${first.index + 1} (${first.what}) comes before entry ${later.index + 1} (${later.what}), although the run's request for entry ${older.index + 1} was sent ${older.from - newer.to} ms after the one for entry ${newer.index + 1} had been answered`,
          judged: judged + 1,
        };
      if (older.to + ORDER_MARGIN_MS < newer.from) judged++;
    }
  return { judged };
}

/** One filter as the search is asked it: its query, and whether an entry matches it. */
interface FilterTry {
  what: string;
  query: Record<string, string>;
  matches: (e: Entry) => boolean;
  /** Its search alone returned the run's entry: only then is a pair's empty answer the pair's doing. */
  sawEntry?: boolean;
}

/** Whether a search returned this entry (the same id where entries carry one, else the same record). */
function returned(a: AuditDeclaration, entries: Entry[], entry: Entry | undefined): boolean {
  if (!entry) return false;
  const id = field(a, entry, 'id');
  const key = (e: Entry) => (id === undefined ? JSON.stringify(e) : field(a, e, 'id'));
  const want = key(entry);
  return entries.some((e) => key(e) === want);
}

/**
 * The filters beyond actor and result, each tried where declared, around the entry of the run's
 * failing probe: its path's prefix, its method, and a time window that ends (to) or starts (from) at its time. Each
 * must return something and nothing it does not match. Returns the problem, or what each showed.
 */
async function judgeFurtherFilters(
  ctx: CheckContext,
  entry: Entry
): Promise<{ problem?: string; pages: Exchange[]; shown: string[]; tries: FilterTry[] }> {
  const a = auditOf(ctx);
  const shown: string[] = [];
  const path = String(field(a, entry, 'path') ?? '');
  const method = field(a, entry, 'method');
  const time = field(a, entry, 'time');
  const at = Date.parse(String(time ?? ''));
  const tries: FilterTry[] = [];
  const prefix = path.replace(/[^/]*$/, '');
  if (a.filters.pathPrefix && prefix.length > 1)
    tries.push({
      what: `${a.filters.pathPrefix}=${prefix}`,
      query: { [a.filters.pathPrefix]: prefix },
      matches: (e) => String(field(a, e, 'path') ?? '').startsWith(prefix),
    });
  if (a.filters.method && typeof method === 'string' && method !== '')
    tries.push({
      what: `${a.filters.method}=${method}`,
      query: { [a.filters.method]: method },
      matches: (e) => String(field(a, e, 'method') ?? '').toUpperCase() === method.toUpperCase(),
    });
  if ((a.filters.from || a.filters.to) && !Number.isNaN(at)) {
    // Entries written after the probe's, a target second later at least, so a window ignored shows them.
    await ctx.sleepTarget(2, 'entries later than the time window the audit search is asked for');
    await ctx.call({ method: 'GET', path: `/v1/tasks/cc-${ctx.config.runId}-audit-window` });
    const timeOf = (e: Entry) => Date.parse(String(field(a, e, 'time') ?? ''));
    if (a.filters.to)
      tries.push({
        what: `${a.filters.to}=${String(time)}`,
        query: { [a.filters.to]: String(time) },
        matches: (e) => timeOf(e) <= at,
      });
    if (a.filters.from)
      tries.push({
        what: `${a.filters.from}=${String(time)}`,
        query: { [a.filters.from]: String(time) },
        matches: (e) => timeOf(e) >= at,
      });
  }
  for (const t of tries) {
    const r = await searchAudit(ctx, t.query, 3);
    const wrong = r.entries.filter((e) => !t.matches(e));
    if (wrong.length)
      return {
        problem: `${t.what} returned ${wrong.length} of ${r.entries.length} entries it does not match (e.g. ${JSON.stringify(wrong[0]).slice(0, 200)})`,
        pages: r.pages.slice(0, 1),
        shown,
        tries,
      };
    if (r.entries.length === 0)
      return {
        problem: `${t.what} returned nothing, although the run's entry matches it`,
        pages: r.pages.slice(0, 1),
        shown,
        tries,
      };
    shown.push(`${t.what}: ${r.entries.length} entries, all matching`);
    t.sawEntry = returned(a, r.entries, entry);
  }
  return { pages: [], shown, tries };
}

/**
 * Filters in pairs (one class at a time, then in pairs): a search given two filters returns only entries both match,
 * and the run's own entry where it matches both (a target may drop one filter when another comes with it). Certify
 * tries every pair; the other profiles the first pair only (result and actor, the filters every audit declares first).
 */
async function judgePairs(
  ctx: CheckContext,
  tries: FilterTry[]
): Promise<{ problem?: string; pages: Exchange[]; shown?: string }> {
  const pairs: Array<[FilterTry, FilterTry]> = [];
  for (let i = 0; i < tries.length; i++) for (let j = i + 1; j < tries.length; j++) pairs.push([tries[i]!, tries[j]!]);
  const chosen = ctx.certify ? pairs : pairs.slice(0, 1);
  for (const [x, y] of chosen) {
    const what = `${x.what}&${y.what}`;
    const r = await searchAudit(ctx, { ...x.query, ...y.query }, 3);
    const wrong = r.entries.filter((e) => !x.matches(e) || !y.matches(e));
    if (wrong.length) {
      const dropped = wrong.every((e) => x.matches(e)) ? y.what : wrong.every((e) => y.matches(e)) ? x.what : undefined;
      return {
        problem: `${what} returned ${wrong.length} of ${r.entries.length} entries that do not match both${dropped ? ` (each matches the other filter: ${dropped} was dropped)` : ''}, although each filter alone returned only what it matches (e.g. ${JSON.stringify(wrong[0]).slice(0, 200)})`,
        pages: r.pages.slice(0, 1),
      };
    }
    // Empty although each alone returned the run's entry: a bound's inclusiveness is the target's, its own answers tell.
    if (r.entries.length === 0 && x.sawEntry && y.sawEntry)
      return {
        problem: `${what} returned nothing, although each filter alone returned the run's entry`,
        pages: r.pages.slice(0, 1),
      };
  }
  if (chosen.length === 0) return { pages: [] };
  return {
    pages: [],
    shown: `${chosen.length} pair${chosen.length === 1 ? '' : 's'} of filters together (${chosen.map(([x, y]) => `${x.what.split('=')[0]}+${y.what.split('=')[0]}`).join(', ')}), each returning only what both match${chosen.length < pairs.length ? `; ${pairs.length - chosen.length} more pairs in --profile certify` : ''}`,
  };
}

/** The audit is searchable (seed §1): a filter returns only entries it matches, in the declared order. */
async function judgeSearch(ctx: CheckContext): Promise<CheckOutcome> {
  const a = auditOf(ctx);
  if (!a.filters.result && !a.filters.actor)
    return skip('the overlay declares no audit filter (x-audit-filters)', 'declare x-audit-filters in --overlay');
  const probes = await auditProbes(ctx);
  const { entry } = await findEntry(ctx, new URL(probes.failing.request.url).pathname);
  const findings: string[] = [];
  const tries: FilterTry[] = [];
  let ordered: { entries: Entry[]; page?: Exchange } | undefined;
  if (a.filters.result) {
    const r = await searchAudit(ctx, { [a.filters.result]: a.resultValues.failure }, 5);
    const wrong = r.entries.filter((e) => field(a, e, 'result') !== a.resultValues.failure);
    if (wrong.length)
      return fail(
        `${a.filters.result}=${a.resultValues.failure} returned ${wrong.length} of ${r.entries.length} entries with another result`,
        r.pages.slice(0, 1)
      );
    if (r.entries.length === 0)
      return fail(
        `${a.filters.result}=${a.resultValues.failure} returned nothing, although the run's failed calls are logged`,
        r.pages.slice(0, 1)
      );
    findings.push(`${a.filters.result}=${a.resultValues.failure}: ${r.entries.length} entries, all failures`);
    tries.push({
      what: `${a.filters.result}=${a.resultValues.failure}`,
      query: { [a.filters.result]: a.resultValues.failure },
      matches: (e) => field(a, e, 'result') === a.resultValues.failure,
      sawEntry: returned(a, r.entries, entry),
    });
    ordered = { entries: r.entries, page: r.pages[0] };
  }
  const actor = entry === undefined ? undefined : field(a, entry, 'actor');
  if (a.filters.actor && (typeof actor === 'string' || typeof actor === 'number')) {
    const r = await searchAudit(ctx, { [a.filters.actor]: String(actor) }, 5);
    const wrong = r.entries.filter((e) => field(a, e, 'actor') !== actor);
    if (wrong.length)
      return fail(`${a.filters.actor}=${actor} returned ${wrong.length} entries of other actors`, r.pages.slice(0, 1));
    findings.push(`${a.filters.actor}=<this run's actor>: ${r.entries.length} entries, all its own`);
    tries.push({
      what: `${a.filters.actor}=${actor}`,
      query: { [a.filters.actor]: String(actor) },
      matches: (e) => field(a, e, 'actor') === actor,
      sawEntry: returned(a, r.entries, entry),
    });
    ordered ??= { entries: r.entries, page: r.pages[0] };
  }
  if (entry) {
    const further = await judgeFurtherFilters(ctx, entry);
    if (further.problem) return fail(further.problem, further.pages);
    findings.push(...further.shown);
    tries.push(...further.tries);
  }
  const paired = await judgePairs(ctx, tries);
  if (paired.problem) return fail(paired.problem, paired.pages);
  if (paired.shown) findings.push(paired.shown);
  if ((a.order || a.sort) && ordered) {
    const { broken, judged } = orderBroken(a, ordered.entries, { log: ctx.log, actor, owns: ownedBy(ctx) });
    const order = readsNewestFirst(a) ? 'newest first' : 'oldest first';
    if (broken)
      return failAt(
        'declared',
        `the audit search is declared ${order}${a.sort ? ` (with ${a.sort.param}=${a.sort.newestFirst})` : ''}, but ${broken}`,
        ordered.page ? [ordered.page] : []
      );
    findings.push(
      judged
        ? `entries ${order}, as declared (${judged} pairs of the run's own requests that did not overlap)`
        : `the declared order (${order}) not verified: no two entries of the run's own requests that did not overlap`
    );
  }
  return pass(findings.join('; '));
}

export const searchFilters: Check = {
  id: 'audit.search',
  group: 'audit',
  clauses: ['AUDIT-SEARCH-EXPORT'],
  level: 'must',
  why: {
    must: 'the seed says the log is searchable (the search operation and filters must be declared)',
    declared: "the order of entries is the overlay's declaration (x-audit-order, x-audit-sort)",
  },
  title: 'Audit search filters return only what they match, in the declared order',
  async run(ctx) {
    return unlessGuessed(ctx, await judgeSearch(ctx));
  },
};
