import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { auditOf, auditProbes, findEntry, searchAudit } from './search.ts';

/** The audit is searchable (seed §1): a filter returns only entries it matches. */
export const searchFilters: Check = {
  id: 'audit.search',
  group: 'audit',
  clauses: ['AUDIT-SEARCH-EXPORT'],
  level: 'must',
  why: { must: "the seed says the log is searchable (the search operation and filters must be declared)" },
  title: 'Audit search filters return only what they match',
  async run(ctx) {
    const a = auditOf(ctx);
    if (!a.filters.result && !a.filters.actor) return skip('the overlay declares no audit filter (x-audit-filters)', 'declare x-audit-filters in --overlay');
    const probes = await auditProbes(ctx);
    const { entry } = await findEntry(ctx, new URL(probes.failing.request.url).pathname);
    const findings: string[] = [];
    if (a.filters.result) {
      const r = await searchAudit(ctx, { [a.filters.result]: a.resultValues.failure }, 5);
      const wrong = r.entries.filter((e) => e[a.fields.result] !== a.resultValues.failure);
      if (wrong.length) return fail(`${a.filters.result}=${a.resultValues.failure} returned ${wrong.length} of ${r.entries.length} entries with another result`, r.pages.slice(0, 1));
      if (r.entries.length === 0) return fail(`${a.filters.result}=${a.resultValues.failure} returned nothing, although the run's failed calls are logged`, r.pages.slice(0, 1));
      findings.push(`${a.filters.result}=${a.resultValues.failure}: ${r.entries.length} entries, all failures`);
    }
    const actor = entry?.[a.fields.actor];
    if (a.filters.actor && typeof actor === 'string') {
      const r = await searchAudit(ctx, { [a.filters.actor]: actor }, 5);
      const wrong = r.entries.filter((e) => e[a.fields.actor] !== actor);
      if (wrong.length) return fail(`${a.filters.actor}=${actor} returned ${wrong.length} entries of other actors`, r.pages.slice(0, 1));
      findings.push(`${a.filters.actor}=<this run's actor>: ${r.entries.length} entries, all its own`);
    }
    return pass(findings.join('; '));
  },
};
