import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { vmsOf } from '../../src/engine/fixtures.ts';
import { describe, isSuccess } from '../support.ts';

/** Tags as a VM record shows them, in the shapes targets commonly use: {k: v}, ["k:v"], [{key, value}]. */
export function tagsOf(vm: Record<string, unknown>): Array<[string, string]> | undefined {
  const t = vm['tags'];
  if (Array.isArray(t)) {
    return t.flatMap((x): Array<[string, string]> => {
      if (typeof x === 'string' && x.includes(':')) return [[x.slice(0, x.indexOf(':')), x.slice(x.indexOf(':') + 1)]];
      if (x && typeof x === 'object' && typeof (x as { key?: unknown }).key === 'string') return [[(x as { key: string }).key, String((x as { value?: unknown }).value ?? '')]];
      return [];
    });
  }
  if (t && typeof t === 'object') return Object.entries(t as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
  return undefined;
}

const carries = (vm: Record<string, unknown>, key: string, value: string) => tagsOf(vm)?.some(([k, v]) => k === key && v === value) ?? false;

/**
 * The tag filter returns only matching VMs: a tag nobody carries returns none; a tag the run set (declared)
 * or read from the records (discovered) returns only and all VMs that carry it.
 */
export const tagFilter: Check = {
  id: 'vms.tag-filter',
  group: 'vms',
  clauses: ['TAG-FILTER'],
  level: 'must',
  why: { must: "the seed states that the tag filter key:value filters the list" },
  title: 'The tag filter returns only and all VMs carrying the tag',
  async run(ctx) {
    const evidence: Exchange[] = [];
    const absent = `cc-absent-${ctx.config.runId}:none`;
    const none = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: absent } });
    evidence.push(none);
    if (!isSuccess(none)) return fail(`a well-formed tag filter was refused: ${describe(none)}`, [none]);
    // Only meaningful when the unfiltered list is not empty.
    const all = await ctx.fixtures.walk(100);
    if (vmsOf(none).length > 0) {
      return fail(`tag=${absent}, which no VM carries, returned ${vmsOf(none).length} VMs`, [none], { tag: absent, returned: vmsOf(none).length });
    }
    const findings: string[] = [`tag=${absent} returned no VM (of ${all.items.length})`];
    // A tag to filter on: the one the run set where the overlay says how, else the first tag seen on a record.
    const vm = await ctx.fixtures.vm().catch(() => undefined);
    let probe: [string, string] | undefined;
    if (ctx.declarations.tagsField && vm?.accepted && vm.tags) probe = Object.entries(vm.tags)[0];
    probe ??= all.items.map(tagsOf).find((t) => t && t.length > 0)?.[0];
    const shapeOf = (t: unknown) => (Array.isArray(t) ? (t.some((x) => typeof x === 'string') ? '"key:value" strings' : '{key, value} objects') : 'a map');
    const tagged = all.items.find((v) => (tagsOf(v)?.length ?? 0) > 0);
    if (tagged) ctx.observe('tagShape', shapeOf(tagged['tags']));
    if (!probe) {
      ctx.observe('tagsVisible', false);
      return pass(`${findings[0]}; no tags visible on records, so matching VMs could not be checked`, evidence);
    }
    const [key, value] = probe;
    const filtered = await ctx.fixtures.walk(100, { tag: `${key}:${value}` });
    evidence.push(...filtered.pages.slice(0, 2));
    if (filtered.capped) return skip(`tag=${key}:${value} matches more VMs than a bounded walk covers (${filtered.stoppedBecause})`, 'an organization where a tag matches fewer VMs');
    if (!filtered.complete) return fail(`walking tag=${key}:${value} failed: ${filtered.stoppedBecause}`, filtered.pages.slice(-1));
    const wrong = filtered.items.filter((v) => tagsOf(v) !== undefined && !carries(v, key, value));
    if (wrong.length) {
      return fail(`tag=${key}:${value} returned ${wrong.length} VMs without that tag (e.g. ${JSON.stringify(wrong[0]!['id'])})`, evidence);
    }
    if (all.complete) {
      const expected = new Set(all.items.filter((v) => carries(v, key, value)).map((v) => JSON.stringify(v['id'])));
      const got = new Set(filtered.items.map((v) => JSON.stringify(v['id'])));
      const missing = [...expected].filter((id) => !got.has(id));
      if (missing.length) return fail(`tag=${key}:${value} left out ${missing.length} VMs that carry it (e.g. ${missing[0]})`, evidence);
    }
    findings.push(`tag=${key}:${value} returned exactly the ${filtered.items.length} VMs carrying it`);
    return pass(findings.join('; '));
  },
};
