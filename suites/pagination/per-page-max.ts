import type { Check, Finding } from '../../src/engine/run/check.ts';
import { judge, finding, fail, skip } from '../../src/engine/run/check.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { tagsOf } from '../vms/tag-filter.ts';

/** The tag most VMs of a page carry (a filter likely to match many), as key:value; keys with a colon are ambiguous. */
export function commonestTag(page: Exchange): string | undefined {
  const counts = new Map<string, number>();
  for (const vm of vmsOf(page))
    for (const [k, v] of tagsOf(vm) ?? [])
      if (k && !k.includes(':')) counts.set(`${k}:${v}`, (counts.get(`${k}:${v}`) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * The cap under a filter (PAGE-MAX-100 holds for every list the seed shows, filtered too): per_page=101 with the tag
 * most VMs of the first page carry. A served page of more than 100 is a finding; where fewer match, the note says so.
 */
async function capUnderFilter(ctx: CheckContext, at100: Exchange): Promise<{ finding?: Finding; note: string }> {
  const tag = commonestTag(at100);
  if (!tag) return { note: 'no VM of the first page shows a tag, so the cap was not tried under a filter' };
  const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag, per_page: 101 } });
  if (!isSuccess(ex)) return { note: `under tag=${tag}: ${describeExchange(ex)}` };
  const n = vmsOf(ex).length;
  if (n > 100)
    return {
      finding: finding('must', `per_page=101 under tag=${tag} returned ${n} items (the cap holds without the filter)`, [
        ex,
      ]),
      note: '',
    };
  return {
    note: `under tag=${tag}: ${n} items${n === 100 ? '' : ` (the filter matches fewer than 101, so a missing cap cannot be seen there)`}`,
  };
}

/** No page holds more than 100 items, whatever per_page asks; per_page=100 itself is served. */
export const perPageMax: Check = {
  id: 'pagination.per-page-max',
  group: 'pagination',
  clauses: ['PAGE-MAX-100'],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: { must: "the seed states per_page's maximum of 100" },
  title: 'per_page above 100 never yields more than 100 items',
  async run(ctx) {
    // Certify filled the list past 100 for this check: a valid create that failed on the way is never lost.
    const prep = ctx.certify;
    const findings: Finding[] = (prep?.problems ?? []).map((p) =>
      finding('must', `${p.message} (VM-CREATE: a valid create never gets a server error)`, p.exchanges)
    );
    // The maximum and the sizes past it, side by side: none depends on another's answer.
    const over = [101, 1000];
    const asked = await ctx.callEach(
      [100, ...over].map((n) => ({ method: 'GET', path: '/v1/vms', query: { per_page: n } }))
    );
    const at100 = asked[0]!;
    const answers = asked.slice(1);
    if (!isSuccess(at100))
      return fail(`per_page=100, the documented maximum, was refused: ${describeExchange(at100)}`, [at100]);
    const results = over.map((n, i) => ({ n, ex: answers[i]! }));
    const tooMany = results.filter((r) => isSuccess(r.ex) && vmsOf(r.ex).length > 100);
    if (tooMany.length)
      findings.unshift(
        finding(
          'must',
          `per_page=${tooMany[0]!.n} returned ${vmsOf(tooMany[0]!.ex).length} items`,
          tooMany.map((r) => r.ex)
        )
      );
    const behaviour = results.map((r) =>
      isSuccess(r.ex) ? 'clamp' : r.ex.response && r.ex.response.status < 500 ? 'reject' : 'error'
    );
    const serverErrors = results.filter((_, i) => behaviour[i] === 'error');
    if (serverErrors.length)
      findings.push(
        finding(
          'must',
          `per_page=${serverErrors[0]!.n} answered ${describeExchange(serverErrors[0]!.ex)}`,
          serverErrors.map((r) => r.ex)
        )
      );
    const filtered = await capUnderFilter(ctx, at100);
    if (filtered.finding) findings.push(filtered.finding);
    if (findings.length) return judge(findings, '');
    ctx.observe('perPageOverMax', behaviour[0]);
    // A per_page above 100 that was served proves a cap only on a list longer than 100.
    const seen = vmsOf(at100).length;
    const scale = seen < 100 ? undefined : await ctx.objects.listScale();
    const listSize = seen < 100 ? seen : scale!.whole ? (await ctx.objects.walk(100)).items.length : scale!.size!;
    if (behaviour.some((b) => b === 'clamp') && listSize <= 100) {
      if (prep) {
        const created = ctx.ledger.entries.filter((e) => e.kind === 'vm').length;
        return skip(
          `per_page above 100 is served, but the list holds only ${listSize} VMs although certify filled it (${prep.populated.length} created, ${prep.shortBy} short), so a missing cap cannot be seen`,
          `--max-creates ${created + prep.shortBy} (or an organization with quota for ${prep.shortBy} more small VMs)`
        );
      }
      return skip(
        `per_page above 100 is served, but the list holds only ${listSize} VMs, so a missing cap cannot be seen`,
        '--profile certify (fills the list past 100 VMs within --max-creates)'
      );
    }
    return judge(
      [],
      `per_page above 100 is ${behaviour[0] === 'reject' ? 'rejected' : 'clamped to at most 100 items'} (${results.map((r) => describeExchange(r.ex)).join('; ')}; ${filtered.note})`
    );
  },
};
