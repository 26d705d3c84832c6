import type { Check, Finding } from '../../src/engine/run/check.ts';
import { finding, judge, skip, undeclared } from '../../src/engine/run/check.ts';
import { vmsOf } from '../../src/engine/target/fixtures.ts';
import { describe, isSuccess } from '../support.ts';
import { tagsOf } from './tag-filter.ts';

type Vm = Record<string, unknown>;

/** The value with the case of every letter turned (Prod → pROD); the same string where it has no letter. */
export function swapCase(v: string): string {
  return [...v].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

const idOf = (vm: Vm) => JSON.stringify(vm['id']);

/**
 * The tag filter's semantics as the overlay declares them (issue 25, design 8), judged against the whole list's own
 * records: a value with its case turned matches what the declared case rule says, and the parameter given twice
 * returns what the declared rule for repeated filters says (all of them, any, the first, or a refusal).
 */
export const tagFilterSemantics: Check = {
  id: 'vms.tag-filter-semantics',
  group: 'vms',
  clauses: ['TAG-FILTER'],
  level: 'declared',
  why: { declared: "how a value's case and a repeated filter are matched is not shown; the overlay declares it (x-tag-filter)" },
  title: 'The tag filter matches case and repeated filters as the overlay declares',
  async run(ctx) {
    const rule = ctx.declarations.tagFilter;
    if (!rule) return undeclared('the overlay declares no tag filter semantics (x-tag-filter)', 'x-tag-filter on the VM list\'s tag parameter in --overlay');
    const scale = await ctx.fixtures.listScale();
    if (!scale.whole) return skip(`the list holds ${scale.size} VMs, too many to judge a filter against the whole list`, '--profile certify, or an organization with fewer VMs');
    const all = await ctx.fixtures.walk(100);
    if (!all.complete) return skip(`the list could not be walked whole (${all.stoppedBecause})`, 'a list that can be walked');
    const carried = all.items.flatMap((vm) => (tagsOf(vm) ?? []).map(([k, v]) => ({ vm, k, v })));
    if (carried.length === 0) return skip('no VM record shows a tag, so what a filter must return cannot be known', 'VM records that show their tags');
    const findings: Finding[] = [];
    const shown: string[] = [];
    const compare = (what: string, got: Vm[], want: Vm[], ex: Parameters<typeof finding>[2]) => {
      const wantIds = new Set(want.map(idOf));
      const gotIds = new Set(got.map(idOf));
      const extra = [...gotIds].filter((id) => !wantIds.has(id)).length;
      const missing = [...wantIds].filter((id) => !gotIds.has(id)).length;
      if (extra || missing) findings.push(finding('declared', `${what} returned ${gotIds.size} VMs where ${wantIds.size} are due (${extra} not due, ${missing} left out)`, ex));
      else shown.push(`${what}: the ${gotIds.size} due`);
    };
    const withLetters = carried.find((c) => swapCase(c.v) !== c.v);
    if (rule.case && withLetters) {
      const { k, v } = withLetters;
      const asked = swapCase(v);
      const filtered = await ctx.fixtures.walk(100, { tag: `${k}:${asked}` });
      const due = all.items.filter((vm) => (tagsOf(vm) ?? []).some(([kk, vv]) => kk === k && (rule.case === 'insensitive' ? vv.toLowerCase() === asked.toLowerCase() : vv === asked)));
      if (!filtered.complete) findings.push(finding('declared', `tag=${k}:${asked} could not be walked (${filtered.stoppedBecause})`, filtered.pages.slice(-1)));
      else compare(`tag=${k}:${asked} (case ${rule.case})`, filtered.items, due, filtered.pages.slice(0, 1));
    }
    // Two tags of different keys, both carried by one VM where one does: all, any and first then differ.
    const first = carried.find((c) => carried.some((o) => o.vm === c.vm && o.k !== c.k)) ?? carried[0]!;
    const second = carried.find((o) => o.vm === first.vm && o.k !== first.k) ?? carried.find((o) => o.k !== first.k);
    if (rule.repeated && second) {
      const a = `${first.k}:${first.v}`;
      const b = `${second.k}:${second.v}`;
      const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: [a, b], per_page: 100 } });
      const has = (vm: Vm, k: string, v: string) => (tagsOf(vm) ?? []).some(([kk, vv]) => kk === k && vv === v);
      if (rule.repeated === 'refused') {
        if (isSuccess(ex)) findings.push(finding('declared', `tag=${a}&tag=${b} was served, although the overlay declares a repeated filter refused: ${describe(ex)}`, [ex]));
        else shown.push(`tag given twice: refused (${ex.response?.status})`);
      } else if (!isSuccess(ex)) findings.push(finding('declared', `tag=${a}&tag=${b} was refused, although the overlay declares a repeated filter matches ${rule.repeated}: ${describe(ex)}`, [ex]));
      else {
        const predicted = (r: string) => all.items.filter((vm) => (r === 'all' ? has(vm, first.k, first.v) && has(vm, second.k, second.v) : r === 'any' ? has(vm, first.k, first.v) || has(vm, second.k, second.v) : has(vm, first.k, first.v)));
        const due = predicted(rule.repeated);
        const got = vmsOf(ex);
        const key = (vms: Vm[]) => vms.map(idOf).sort().join(',');
        // Records where every rule predicts the same VMs cannot tell the declared one from the others.
        if (['all', 'any', 'first'].filter((r) => r !== rule.repeated).every((r) => key(predicted(r)) === key(due))) shown.push(`tag given twice: not decided (the records make ${a} and ${b} match the same VMs under every rule)`);
        else if (due.length > 100) {
          // More than one page is due: every VM of the first page must be due.
          const wrong = got.filter((vm) => !due.some((d) => idOf(d) === idOf(vm)));
          if (wrong.length) findings.push(finding('declared', `tag=${a}&tag=${b} (repeated: ${rule.repeated}) returned ${wrong.length} VMs not due on its first page`, [ex]));
          else shown.push(`tag given twice (${rule.repeated}): the first page all due`);
        } else compare(`tag=${a}&tag=${b} (repeated: ${rule.repeated})`, got, due, [ex]);
      }
    }
    if (findings.length === 0 && shown.length === 0) return skip('no VM record carries a tag the declared rules can be tried on (a value with letters; two keys)', 'VM records with tags of two keys');
    return judge(findings, shown.join('; '));
  },
};
