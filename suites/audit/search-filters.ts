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

/** Where the entries' times break the declared order: the first pair out of order, or undefined. */
export function orderBroken(a: AuditDeclaration, entries: Entry[]): string | undefined {
  const newestFirst = readsNewestFirst(a);
  const times = entries.map((e) => Date.parse(String(field(a, e, 'time') ?? '')));
  if (times.some((t) => Number.isNaN(t))) return undefined;
  for (let i = 1; i < times.length; i++) {
    if (newestFirst ? times[i]! > times[i - 1]! : times[i]! < times[i - 1]!) {
      return `entry ${i + 1} (${String(field(a, entries[i], 'time'))}) comes after entry ${i} (${String(field(a, entries[i - 1], 'time'))})`;
    }
  }
  return undefined;
}

/**
 * The filters beyond actor and result, each tried where declared, around the entry of the run's
 * failing probe: its path's prefix, its method, and a time window that ends (to) or starts (from) at its time. Each
 * must return something and nothing it does not match. Returns the problem, or what each showed.
 */
export async function judgeFurtherFilters(
  ctx: CheckContext,
  entry: Entry
): Promise<{ problem?: string; pages: Exchange[]; shown: string[] }> {
  const a = auditOf(ctx);
  const shown: string[] = [];
  const path = String(field(a, entry, 'path') ?? '');
  const method = field(a, entry, 'method');
  const time = field(a, entry, 'time');
  const at = Date.parse(String(time ?? ''));
  const tries: Array<{ what: string; query: Record<string, string>; matches: (e: Entry) => boolean }> = [];
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
      };
    if (r.entries.length === 0)
      return {
        problem: `${t.what} returned nothing, although the run's entry matches it`,
        pages: r.pages.slice(0, 1),
        shown,
      };
    shown.push(`${t.what}: ${r.entries.length} entries, all matching`);
  }
  return { pages: [], shown };
}

/** The audit is searchable (seed §1): a filter returns only entries it matches, in the declared order. */
async function judgeSearch(ctx: CheckContext): Promise<CheckOutcome> {
  const a = auditOf(ctx);
  if (!a.filters.result && !a.filters.actor)
    return skip('the overlay declares no audit filter (x-audit-filters)', 'declare x-audit-filters in --overlay');
  const probes = await auditProbes(ctx);
  const { entry } = await findEntry(ctx, new URL(probes.failing.request.url).pathname);
  const findings: string[] = [];
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
    ordered = { entries: r.entries, page: r.pages[0] };
  }
  const actor = entry === undefined ? undefined : field(a, entry, 'actor');
  if (a.filters.actor && (typeof actor === 'string' || typeof actor === 'number')) {
    const r = await searchAudit(ctx, { [a.filters.actor]: String(actor) }, 5);
    const wrong = r.entries.filter((e) => field(a, e, 'actor') !== actor);
    if (wrong.length)
      return fail(`${a.filters.actor}=${actor} returned ${wrong.length} entries of other actors`, r.pages.slice(0, 1));
    findings.push(`${a.filters.actor}=<this run's actor>: ${r.entries.length} entries, all its own`);
    ordered ??= { entries: r.entries, page: r.pages[0] };
  }
  if (entry) {
    const further = await judgeFurtherFilters(ctx, entry);
    if (further.problem) return fail(further.problem, further.pages);
    findings.push(...further.shown);
  }
  if ((a.order || a.sort) && ordered) {
    const broken = orderBroken(a, ordered.entries);
    const order = readsNewestFirst(a) ? 'newest first' : 'oldest first';
    if (broken)
      return failAt(
        'declared',
        `the audit search is declared ${order}${a.sort ? ` (with ${a.sort.param}=${a.sort.newestFirst})` : ''}, but ${broken}`,
        ordered.page ? [ordered.page] : []
      );
    findings.push(`entries ${order}, as declared`);
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
