import type { Check } from '../../src/engine/run/check.ts';
import type { AuditDeclaration } from '../../src/spec/declarations.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, failAt, skip } from '../../src/engine/run/check.ts';
import { auditOf, auditProbes, field, findEntry, readsNewestFirst, searchAudit, type Entry } from './search.ts';

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

/** The audit is searchable (seed §1): a filter returns only entries it matches, in the declared order. */
export const searchFilters: Check = {
  id: 'audit.search',
  group: 'audit',
  clauses: ['AUDIT-SEARCH-EXPORT'],
  level: 'must',
  why: {
    must: "the seed says the log is searchable (the search operation and filters must be declared)",
    declared: "the order of entries is the overlay's declaration (x-audit-order, x-audit-sort)",
  },
  title: 'Audit search filters return only what they match, in the declared order',
  async run(ctx) {
    const a = auditOf(ctx);
    if (!a.filters.result && !a.filters.actor) return skip('the overlay declares no audit filter (x-audit-filters)', 'declare x-audit-filters in --overlay');
    const probes = await auditProbes(ctx);
    const { entry } = await findEntry(ctx, new URL(probes.failing.request.url).pathname);
    const findings: string[] = [];
    let ordered: { entries: Entry[]; page?: Exchange } | undefined;
    if (a.filters.result) {
      const r = await searchAudit(ctx, { [a.filters.result]: a.resultValues.failure }, 5);
      const wrong = r.entries.filter((e) => field(a, e, 'result') !== a.resultValues.failure);
      if (wrong.length) return fail(`${a.filters.result}=${a.resultValues.failure} returned ${wrong.length} of ${r.entries.length} entries with another result`, r.pages.slice(0, 1));
      if (r.entries.length === 0) return fail(`${a.filters.result}=${a.resultValues.failure} returned nothing, although the run's failed calls are logged`, r.pages.slice(0, 1));
      findings.push(`${a.filters.result}=${a.resultValues.failure}: ${r.entries.length} entries, all failures`);
      ordered = { entries: r.entries, page: r.pages[0] };
    }
    const actor = entry === undefined ? undefined : field(a, entry, 'actor');
    if (a.filters.actor && (typeof actor === 'string' || typeof actor === 'number')) {
      const r = await searchAudit(ctx, { [a.filters.actor]: String(actor) }, 5);
      const wrong = r.entries.filter((e) => field(a, e, 'actor') !== actor);
      if (wrong.length) return fail(`${a.filters.actor}=${actor} returned ${wrong.length} entries of other actors`, r.pages.slice(0, 1));
      findings.push(`${a.filters.actor}=<this run's actor>: ${r.entries.length} entries, all its own`);
      ordered ??= { entries: r.entries, page: r.pages[0] };
    }
    if ((a.order || a.sort) && ordered) {
      const broken = orderBroken(a, ordered.entries);
      const order = readsNewestFirst(a) ? 'newest first' : 'oldest first';
      if (broken) return failAt('declared', `the audit search is declared ${order}${a.sort ? ` (with ${a.sort.param}=${a.sort.newestFirst})` : ''}, but ${broken}`, ordered.page ? [ordered.page] : []);
      findings.push(`entries ${order}, as declared`);
    }
    return pass(findings.join('; '));
  },
};
