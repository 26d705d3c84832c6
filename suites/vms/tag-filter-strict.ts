import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { judge, finding, skip } from '../../src/engine/run/check.ts';
import { vmsOf, type ListWalk } from '../../src/engine/target/fixtures.ts';
import { isSuccess } from '../support.ts';
import { tagsOf } from './tag-filter.ts';

/** A VM told apart from others by its id and name together (ids alone may repeat across organizations). */
const identity = (vm: Record<string, unknown>) => JSON.stringify([vm['id'], vm['name']]);

const firstTag = (walk: ListWalk, pred: (t: [string, string]) => boolean = () => true): [string, string] | undefined =>
  walk.items.flatMap((v) => tagsOf(v) ?? []).find(pred);

/**
 * What a cut value's answer can show: nothing when it could not be walked, nor when a tag nobody carries returns VMs
 * too (the filter is not applied at all: vms.tag-filter's finding); otherwise every VM returned without the cut value
 * exactly is a partial match. (Judging "not applied" by the answer's size misread a list of one tagged VM.)
 */
export function partialMatchReading(seen: { walked: boolean; wrong: number; absentReturned: number | undefined }): 'not-walked' | 'not-applied' | 'judged' {
  if (!seen.walked) return 'not-walked';
  if (seen.wrong > 0 && (seen.absentReturned === undefined || seen.absentReturned > 0)) return 'not-applied';
  return 'judged';
}

/**
 * The tag filter matches the whole value, and only among the caller's VMs: a value cut short by a character returns
 * only VMs carrying exactly that (RESTler-style partial match), and a tag the second organization's VMs carry never
 * brings them into the first organization's list (object-level authorization, OWASP API1).
 */
export const tagFilterStrict: Check = {
  id: 'vms.tag-filter-strict',
  group: 'vms',
  clauses: ['TAG-FILTER'],
  level: 'must',
  why: { must: "the seed says the filter key:value filters the caller's VM list by that tag" },
  title: "The tag filter matches whole values, among the caller's own VMs only",
  async run(ctx) {
    // A list too long to walk whole is judged on the tags its first page shows.
    const scale = await ctx.fixtures.listScale();
    const all: ListWalk = scale.whole ? await ctx.fixtures.walk(100) : { perPage: 100, firstPage: 1, pages: [scale.firstPage], items: vmsOf(scale.firstPage), complete: false, stoppedBecause: `the list holds ${scale.size} VMs: its first page was read`, capped: false, moved: false, scope: 'the first page of the list' };
    const findings: Finding[] = [];
    const judged: string[] = [];
    const notJudged: string[] = [];
    // Partial match: the value without its last character, which the records' VMs carry only if they carry it exactly.
    const whole = firstTag(all, ([, v]) => v.length >= 2);
    if (!whole) notJudged.push('partial values (no tag of two or more characters visible on the records)');
    else {
      const [key, value] = [whole[0], whole[1].slice(0, -1)];
      const [cut, absent] = await Promise.all([ctx.fixtures.walk(100, { tag: `${key}:${value}` }), ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: `cc-absent-${ctx.config.runId}:none` } })]);
      const wrong = cut.items.filter((v) => tagsOf(v) !== undefined && !tagsOf(v)!.some(([k, x]) => k === key && x === value));
      const reading = partialMatchReading({ walked: cut.complete, wrong: wrong.length, absentReturned: isSuccess(absent) ? vmsOf(absent).length : undefined });
      if (reading === 'not-walked') notJudged.push(`partial values (tag=${key}:${value} could not be walked: ${cut.stoppedBecause})`);
      // A filter that matches nothing for a tag nobody carries is applied: what the cut value returns is its own doing.
      else if (reading === 'not-applied') notJudged.push(`partial values (tag=cc-absent-${ctx.config.runId}:none returned VMs as well: the filter is not applied, see vms.tag-filter)`);
      else {
        judged.push(`tag=${key}:${value} (cut from ${whole[1]}) returned ${cut.items.length} VMs, all carrying it exactly`);
        if (wrong.length) {
          findings.push(finding('must', `tag=${key}:${value}, a value cut short from ${whole[1]}, returned ${wrong.length} VMs that do not carry it (e.g. ${JSON.stringify(wrong[0]!['name'])} with ${JSON.stringify(wrong[0]!['tags'])})`, cut.pages.slice(0, 1)));
        }
      }
    }
    // Another organization's VMs: a tag they carry, asked for by the first organization, must not bring them in.
    if (!ctx.tokens.has('second')) notJudged.push("other organizations' VMs (needs --api-key-b)");
    else {
      const theirs = await ctx.fixtures.walkAs('second', 100);
      const tag = firstTag(theirs);
      if (!tag) notJudged.push("other organizations' VMs (no tag visible on the second organization's records)");
      else {
        const [key, value] = tag;
        const filtered = await ctx.fixtures.walk(100, { tag: `${key}:${value}` });
        const ours = new Set(all.items.map(identity));
        const foreign = new Set(theirs.items.map(identity).filter((id) => !ours.has(id)));
        const leaked = filtered.items.filter((v) => foreign.has(identity(v)));
        judged.push(`tag=${key}:${value}, carried by the second organization's VMs, returned none of them`);
        if (leaked.length) {
          const evidence: Exchange[] = [...filtered.pages.slice(0, 1), ...theirs.pages.slice(0, 1)];
          findings.push(finding('must', `tag=${key}:${value} returned ${leaked.length} VMs of the second organization (e.g. ${JSON.stringify(leaked[0]!['name'])}), which the first organization's unfiltered list does not show`, evidence));
        }
      }
    }
    if (judged.length === 0) return skip(`nothing could be judged: ${notJudged.join('; ')}`, '--api-key-b KEY (a key of a second organization whose VMs carry tags), or VMs whose tags the records show');
    return judge(findings, `${judged.join('; ')}${notJudged.length ? ` (not judged: ${notJudged.join('; ')})` : ''}`);
  },
};
