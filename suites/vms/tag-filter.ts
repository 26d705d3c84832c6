import type { Check, CheckOutcome, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { judge, finding, fail, skip } from '../../src/engine/run/check.ts';
import { readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { vmsOf, type ListWalk } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess, declaredTotalPointerOf } from '../support.ts';
import { readTags, type TagShape } from '../../src/engine/target/discover.ts';
import type { KeyName } from '../../src/engine/config/config.ts';
import { VIEW } from '../../src/spec/clauses.ts';

/**
 * The tag pairs a VM record shows under `field` (where the key's view keeps tags: ctx.objects.tagField(); "tags" by
 * default), in any shape (a map, "key:value" strings, {key, value} or {Key, Value} objects); undefined where the record
 * shows nothing there that reads as tags.
 */
export function tagsOf(vm: Record<string, unknown>, field = 'tags'): Array<[string, string]> | undefined {
  const t = vm[field];
  if (Array.isArray(t) && t.length === 0) return [];
  return readTags(t)?.pairs;
}

/** The field tags are read from in this key's view (declared, confirmed by the filter, or "tags" by convention). */
export async function tagFieldName(ctx: CheckContext, as: KeyName = 'primary'): Promise<string> {
  return (await ctx.objects.tagField(as))?.field ?? 'tags';
}

const carries = (vm: Record<string, unknown>, key: string, value: string, field: string) =>
  tagsOf(vm, field)?.some(([k, v]) => k === key && v === value) ?? false;

const SHAPE_WORDS: Record<TagShape, string> = {
  map: 'a map',
  strings: '"key:value" strings',
  objects: '{key, value} objects',
  'pascal-objects': '{Key, Value} objects',
};

/** The tag to filter on and which VMs must come back: those the run tagged (known by name), or those records show. */
interface Probe {
  tag: [string, string];
  /** Names the filter must return exactly (VMs the run tagged), when the run set the tag itself. */
  expectedNames?: string[];
  source: string;
}

function chooseProbe(
  ctx: CheckContext,
  all: ListWalk,
  createdVm: { tags?: Record<string, string>; accepted: boolean; name: string } | undefined,
  field: string
): Probe | undefined {
  const prep = ctx.certify?.tags;
  // The population's "a" half when certify filled the list, else the one VM it tagged to find the shape.
  const value =
    (prep?.byValue['a']?.length ?? 0) > 0 ? 'a' : (prep?.byValue['probe']?.length ?? 0) > 0 ? 'probe' : undefined;
  if (prep && value)
    return {
      tag: [prep.key, value],
      expectedNames: prep.byValue[value],
      source: `set by certify (${prep.declared ? `declared ${prep.field}` : `${prep.field} as ${prep.shape}`})`,
    };
  if (ctx.declarations.tagsField && createdVm?.accepted && createdVm.tags) {
    const [k, v] = Object.entries(createdVm.tags)[0]!;
    return {
      tag: [k, v],
      expectedNames: all.complete ? undefined : [createdVm.name],
      source: `declared ${ctx.declarations.tagsField}`,
    };
  }
  const seen = all.items.map((v) => tagsOf(v, field)).find((t) => t && t.length > 0)?.[0];
  return seen ? { tag: seen, source: 'read from the records' } : undefined;
}

/**
 * The tag filter returns only and all VMs carrying the tag, and the list's total under a filter counts what the
 * filter matches: a tag nobody carries returns none; a tag the run set (certify, or declared) or read from the records
 * returns exactly the VMs that carry it, across pages, with a total equal to their number.
 */
export const tagFilter: Check = {
  id: 'vms.tag-filter',
  group: 'vms',
  clauses: ['TAG-FILTER', 'PAGE-TOTAL'],
  level: 'must',
  why: {
    must: 'the seed states that the tag filter key:value filters the list, and that a list response includes its total count',
  },
  title: 'The tag filter returns only and all VMs carrying the tag, with a total that counts them',
  async run(ctx) {
    const absent = `cc-absent-${ctx.config.runId}:none`;
    // The list's length is read beside the tag nobody carries: neither needs the other's answer.
    const [none, scale] = await Promise.all([
      ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: absent } }),
      ctx.objects.listScale(),
    ]);
    if (!isSuccess(none)) return fail(`a well-formed tag filter was refused: ${describeExchange(none)}`, [none]);
    if (vmsOf(none).length > 0)
      return fail(`tag=${absent}, which no VM carries, returned ${vmsOf(none).length} VMs`, [none], {
        tag: absent,
        returned: vmsOf(none).length,
      });
    if (!scale.whole) return runTagFilter(ctx, none, scale.size!);
    const all = await ctx.objects.walk(100);
    const vm = await ctx.objects.vm().catch(() => undefined);
    const place = await ctx.objects.tagField();
    const field = place?.field ?? 'tags';
    const probe = chooseProbe(ctx, all, vm, field);
    const tagged = all.items.find((v) => (tagsOf(v, field)?.length ?? 0) > 0);
    const shape = tagged && readTags(tagged[field])?.shape;
    if (shape) ctx.observe('tagShape', `${SHAPE_WORDS[shape]} under ${field}`);
    if (!probe) {
      ctx.observe('tagsVisible', false);
      return skip(
        `tag=${absent} returned no VM (of ${all.items.length}), but no VM carries a tag the run can see or set, so what the filter returns could not be checked`,
        '--profile certify (sets tags through the create body in the common shapes: a map, "key:value" strings, {key, value} objects) or declare x-tags-field in --overlay'
      );
    }
    const [key, value] = probe.tag;
    // A small page size, so the filter is also walked across pages.
    const filtered = await ctx.objects.walk(20, { tag: `${key}:${value}` });
    const evidence: Exchange[] = [none, ...filtered.pages.slice(0, 2)];
    if (filtered.capped)
      return skip(
        `tag=${key}:${value} matches more VMs than a bounded walk covers (${filtered.stoppedBecause})`,
        'an organization where a tag matches fewer VMs'
      );
    if (!filtered.complete)
      return fail(`walking tag=${key}:${value} failed: ${filtered.stoppedBecause}`, filtered.pages.slice(-1));
    const findings: Finding[] = [];
    const names = filtered.items.map((v) => String(v['name']));
    if (probe.expectedNames) {
      const expected = new Set(probe.expectedNames);
      const extra = filtered.items.filter((v) => !expected.has(String(v['name'])));
      const missing = probe.expectedNames.filter((n) => !names.includes(n));
      if (extra.length)
        findings.push(
          finding(
            'must',
            `tag=${key}:${value} returned ${extra.length} VMs the run did not tag (e.g. ${JSON.stringify(extra[0]!['name'])})`,
            evidence
          )
        );
      if (missing.length)
        findings.push(
          finding(
            'must',
            `tag=${key}:${value} left out ${missing.length} of the ${expected.size} VMs the run tagged (e.g. ${missing[0]})`,
            evidence
          )
        );
    } else {
      const wrong = filtered.items.filter((v) => tagsOf(v, field) !== undefined && !carries(v, key, value, field));
      if (wrong.length)
        findings.push(
          finding(
            'must',
            `tag=${key}:${value} returned ${wrong.length} VMs without that tag (e.g. ${JSON.stringify(wrong[0]!['id'])})`,
            evidence
          )
        );
      if (all.complete) {
        const expected = new Set(
          all.items.filter((v) => carries(v, key, value, field)).map((v) => JSON.stringify(v['id']))
        );
        const got = new Set(filtered.items.map((v) => JSON.stringify(v['id'])));
        let missing = [...expected].filter((id) => !got.has(id));
        // A VM may leave the list between the two walks (the run deletes VMs of its own meanwhile): left out is only
        // what a walk made after the filtered one still shows carrying the tag.
        if (missing.length) {
          const after = await ctx.objects.walk(100);
          const still = new Set(
            after.items.filter((v) => carries(v, key, value, field)).map((v) => JSON.stringify(v['id']))
          );
          if (after.complete) missing = missing.filter((id) => still.has(id));
        }
        if (missing.length)
          findings.push(
            finding(
              'must',
              `tag=${key}:${value} left out ${missing.length} VMs that carry it (e.g. ${missing[0]})`,
              evidence
            )
          );
      }
    }
    // The total under a filter counts what the filter matches (the declared total field, else the one the unfiltered walk shows).
    const pointer =
      declaredTotalPointerOf(ctx) ??
      (all.pages[0] && totalCandidatesOf(all.pages[0]).find((c) => c.value === all.items.length)?.pointer);
    let totalNote = '';
    if (pointer) {
      const distinct = new Set(filtered.items.map((v) => JSON.stringify(v['id']))).size;
      const totals = filtered.pages.filter((p) => vmsOf(p).length > 0).map((p) => readTotal(p, pointer));
      const off = totals.find((t) => t !== distinct);
      if (off !== undefined)
        findings.push(
          finding(
            'must',
            `under tag=${key}:${value} the total ${pointer} says ${String(off)} but the filter returns ${distinct} VMs`,
            filtered.pages.slice(0, 1),
            { totals, distinct }
          )
        );
      else totalNote = `, total ${pointer} = ${distinct} on every page`;
    }
    noteViews(ctx, filtered, !!pointer);
    return judge(
      findings,
      `tag=${absent} returned no VM; tag=${key}:${value} (${probe.source}) returned exactly the ${filtered.items.length} VMs carrying it over ${filtered.pages.length} pages${totalNote}`
    );
  },
};

/** The views of the list the filter was judged on: its first page, and a later one where the walk held VMs there. */
function noteViews(ctx: CheckContext, filtered: ListWalk, withTotal: boolean): void {
  const held = filtered.pages.filter((p) => vmsOf(p).length > 0).length;
  const howToVerify = '--profile certify (tags the VMs it creates past a page of 20)';
  for (const clause of withTotal ? ['TAG-FILTER', 'PAGE-TOTAL'] : ['TAG-FILTER']) {
    ctx.view(clause, VIEW.tagFirst, held > 0 ? undefined : { reason: 'the filter held no VM', howToVerify });
    ctx.view(
      clause,
      VIEW.tagLater,
      held > 1 ? undefined : { reason: `the filter held VMs on one page at per_page=${filtered.perPage}`, howToVerify }
    );
  }
}

/**
 * A list too long to walk whole (quick and full; certify walks it): the filter is judged on the run's own tag. Every
 * VM it returns must be one the run created (no other VM can carry the run's id), carrying the tag where records
 * show tags; the run's VM must be among them; and the total under the filter counts them.
 */
async function runTagFilter(ctx: CheckContext, none: Exchange, size: number): Promise<CheckOutcome> {
  const tag = await ctx.objects.runTag();
  if (!tag) {
    return skip(
      `tag=cc-absent-${ctx.config.runId}:none returned no VM, but the list holds ${size} VMs, too many to walk whole, and the run could not tag its own VMs (a map under "tags" was not set), so what the filter returns could not be checked`,
      '--profile certify (walks the whole list and finds how tags are set), or declare x-tags-field in --overlay'
    );
  }
  const vm = await ctx.objects.acceptedVm();
  const filter = `${tag.key}:${tag.value}`;
  const count = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: filter, per_page: 100 } });
  // At least two pages where the run tagged two VMs or more, so the filter is also walked across pages.
  const perPage = Math.max(1, Math.ceil(vmsOf(count).length / 2));
  const filtered = await ctx.objects.walk(perPage, { tag: filter });
  if (!filtered.complete)
    return fail(`walking tag=${filter} failed: ${filtered.stoppedBecause}`, filtered.pages.slice(-1));
  const evidence: Exchange[] = [none, ...filtered.pages.slice(0, 2)];
  const findings: Finding[] = [];
  const ours = `cc-${ctx.config.runId}-`;
  const strangers = filtered.items.filter((v) => !String(v['name']).startsWith(ours));
  if (strangers.length)
    findings.push(
      finding(
        'must',
        `tag=${filter}, the run's own tag, returned ${strangers.length} VMs the run did not create (e.g. ${JSON.stringify(strangers[0]!['name'])})`,
        evidence
      )
    );
  const field = await tagFieldName(ctx);
  const untagged = filtered.items.filter(
    (v) => tagsOf(v, field) !== undefined && !carries(v, tag.key, tag.value, field)
  );
  if (untagged.length)
    findings.push(
      finding(
        'must',
        `tag=${filter} returned ${untagged.length} VMs without that tag (e.g. ${JSON.stringify(untagged[0]!['name'])})`,
        evidence
      )
    );
  if (!filtered.items.some((v) => v['name'] === vm.name))
    findings.push(finding('must', `tag=${filter} left out ${vm.name}, which the run created with that tag`, evidence));
  const pointer =
    declaredTotalPointerOf(ctx) ??
    (filtered.pages[0] && totalCandidatesOf(filtered.pages[0]).find((c) => c.value === filtered.items.length)?.pointer);
  let totalNote = '';
  if (pointer) {
    const distinct = new Set(filtered.items.map((v) => JSON.stringify(v['id']))).size;
    const off = filtered.pages
      .filter((p) => vmsOf(p).length > 0)
      .map((p) => readTotal(p, pointer))
      .find((t) => t !== distinct);
    if (off !== undefined)
      findings.push(
        finding(
          'must',
          `under tag=${filter} the total ${pointer} says ${String(off)} but the filter returns ${distinct} VMs`,
          filtered.pages.slice(0, 1)
        )
      );
    else totalNote = `, total ${pointer} = ${distinct} on every page`;
  }
  noteViews(ctx, filtered, !!pointer);
  return judge(
    findings,
    `tag=cc-absent-${ctx.config.runId}:none returned no VM; tag=${filter} (the run's own tag, ${tag.how}) returned exactly VMs the run created, ${vm.name} among them, ${filtered.items.length} over ${filtered.pages.length} pages${totalNote} (a list of ${size} is not walked whole; --profile certify walks it)`
  );
}
