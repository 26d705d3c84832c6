import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, type Finding } from '../../src/engine/run/check.ts';
import { auditOf, auditProbes, field, findEntry } from './search.ts';

/** Every API call, failed ones included, is logged with actor, source IP and result (seed §1). */
export const logged: Check = {
  id: 'audit.logged',
  group: 'audit',
  clauses: ['AUDIT-LOGGED'],
  level: 'must',
  why: {
    must: "the seed says every API call is logged with actor, source IP and result (the search operation must be declared)",
    declared: "which words say success and failure is the overlay's declaration (x-audit-result-values), not the seed's",
  },
  title: 'Calls of the run, rejected ones included, appear in the audit with actor, source IP and result',
  async run(ctx) {
    const a = auditOf(ctx);
    const probes = await auditProbes(ctx);
    const problems: string[] = [];
    const evidence: Exchange[] = [];
    const wording: Finding[] = [];
    for (const [label, ex, expected] of [
      ['a failed call', probes.failing, a.resultValues.failure],
      ['a successful call', probes.succeeding, a.resultValues.success],
    ] as const) {
      if (!ex) continue;
      const path = new URL(ex.request.url).pathname;
      const { entry, pages } = await findEntry(ctx, path);
      if (!entry) {
        problems.push(`${label} (${ex.request.method} ${path} → ${ex.response?.status}) is not in the audit`);
        evidence.push(ex, ...pages.slice(0, 1));
        continue;
      }
      for (const [name, label2] of [['actor', 'actor'], ['sourceIp', 'source IP'], ['result', 'result']] as const) {
        const v = field(a, entry, name);
        if ((typeof v !== 'string' && typeof v !== 'number') || v === '') problems.push(`the entry for ${label} has no ${label2} (${a.fields[name]}: ${JSON.stringify(v ?? null)})`);
      }
      const result = field(a, entry, 'result');
      if (result !== expected && (typeof result === 'string' || typeof result === 'number') && result !== '') {
        wording.push(finding('declared', `the entry for ${label} says ${a.fields.result}=${JSON.stringify(result)}, declared ${expected}`, pages.slice(0, 1)));
      }
      if (problems.length) evidence.push(...pages.slice(0, 1));
    }
    const findings = [...(problems.length ? [finding('must', problems.join('; '), evidence)] : []), ...wording];
    return judge(findings, `the run's failed${probes.succeeding ? ' and successful' : ''} calls are logged with actor, source IP and result`);
  },
};
