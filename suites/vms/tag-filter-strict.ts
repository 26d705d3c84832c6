import { taskTimeoutRealMs } from '../../src/engine/config/config.ts';
import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { judge, finding, skip, Unavailable } from '../../src/engine/run/check.ts';
import { tagsInShape, vmsOf, type ListWalk } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { tagFieldName, tagsOf } from './tag-filter.ts';

/** A VM told apart from others by its id and name together (ids alone may repeat across organizations). */
const identity = (vm: Record<string, unknown>) => JSON.stringify([vm['id'], vm['name']]);

const firstTag = (
  walk: ListWalk,
  field: string,
  pred: (t: [string, string]) => boolean = () => true
): [string, string] | undefined => walk.items.flatMap((v) => tagsOf(v, field) ?? []).find(pred);

/**
 * What a cut value's answer can show: nothing when it could not be walked, nor when a tag nobody carries returns VMs
 * too (the filter is not applied at all: vms.tag-filter's finding); otherwise every VM returned without the cut value
 * exactly is a partial match. (Judging "not applied" by the answer's size misread a list of one tagged VM.)
 */
export function partialMatchReading(seen: {
  walked: boolean;
  wrong: number;
  absentReturned: number | undefined;
}): 'not-walked' | 'not-applied' | 'judged' {
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
    // A list too long to walk whole is judged on the tags its first page shows. The second organization's list is read
    // beside it, before the run makes a VM there below.
    const scale = await ctx.objects.listScale();
    const [all, theirs] = await Promise.all([
      scale.whole
        ? ctx.objects.walk(100)
        : Promise.resolve<ListWalk>({
            perPage: 100,
            firstPage: 1,
            pages: [scale.firstPage],
            items: vmsOf(scale.firstPage),
            complete: false,
            stoppedBecause: `the list holds ${scale.size} VMs: its first page was read`,
            capped: false,
            moved: false,
            scope: 'the first page of the list',
          }),
      ctx.tokens.has('second') ? ctx.objects.walkAs('second', 100) : Promise.resolve(undefined),
    ]);
    // A tag nobody carries, asked once: both the partial-value and the each-half judgements read it.
    let absent: Promise<Exchange> | undefined;
    const absentOnce = () => (absent ??= absentTagAnswer(ctx));
    // The four judgements ask questions none of whose answers another needs: side by side, reported in this order.
    // A create budget spent, or no --image: the last is not judged; the rest of the check stands.
    // Where each organization's records keep tags (any field, any shape, confirmed by its own filter).
    const [field, theirField] = await Promise.all([
      tagFieldName(ctx),
      theirs ? tagFieldName(ctx, 'second') : Promise.resolve('tags'),
    ]);
    const parts = await Promise.all([
      judgePartialValue(ctx, all, field, absentOnce),
      judgeEachHalf(ctx, firstTag(all, field), field, absentOnce),
      judgeForeignTag(ctx, all, theirs, theirField),
      judgeRunTagInBothOrganizations(ctx).catch((err: unknown): BothOrganizations => {
        if (err instanceof Unavailable)
          return { notJudged: `the run's tag on a VM of each organization (${err.message})` };
        throw err;
      }),
    ]);
    const findings = parts.flatMap((p) => ('finding' in p && p.finding ? [p.finding] : []));
    const judged = parts.flatMap((p) => ('judged' in p ? [p.judged] : []));
    const notJudged = parts.flatMap((p) => ('notJudged' in p ? [p.notJudged] : []));
    if (judged.length === 0)
      return skip(
        `nothing could be judged: ${notJudged.join('; ')}`,
        '--api-key-b KEY with --subnet-id-b ID (a second organization the run may create a VM in) and a declared x-tags-field, or VMs whose tags the records show'
      );
    return judge(findings, `${judged.join('; ')}${notJudged.length ? ` (not judged: ${notJudged.join('; ')})` : ''}`);
  },
};

/** Partial match: the value without its last character, which the records' VMs carry only if they carry it exactly. */
async function judgePartialValue(
  ctx: CheckContext,
  all: ListWalk,
  field: string,
  absentAnswer: () => Promise<Exchange>
): Promise<Judgement> {
  const whole = firstTag(all, field, ([, v]) => v.length >= 2);
  if (!whole) return { notJudged: 'partial values (no tag of two or more characters visible on the records)' };
  const [key, value] = [whole[0], whole[1].slice(0, -1)];
  const [cut, absent] = await Promise.all([ctx.objects.walk(100, { tag: `${key}:${value}` }), absentAnswer()]);
  const wrong = cut.items.filter(
    (v) => tagsOf(v, field) !== undefined && !tagsOf(v, field)!.some(([k, x]) => k === key && x === value)
  );
  const reading = partialMatchReading({
    walked: cut.complete,
    wrong: wrong.length,
    absentReturned: isSuccess(absent) ? vmsOf(absent).length : undefined,
  });
  if (reading === 'not-walked')
    return { notJudged: `partial values (tag=${key}:${value} could not be walked: ${cut.stoppedBecause})` };
  // A filter that matches nothing for a tag nobody carries is applied: what the cut value returns is its own doing.
  if (reading === 'not-applied')
    return {
      notJudged: `partial values (tag=cc-absent-${ctx.config.runId}:none returned VMs as well: the filter is not applied, see vms.tag-filter)`,
    };
  const judged = `tag=${key}:${value} (cut from ${whole[1]}) returned ${cut.items.length} VMs, all carrying it exactly`;
  if (!wrong.length) return { judged };
  return {
    judged,
    finding: finding(
      'must',
      `tag=${key}:${value}, a value cut short from ${whole[1]}, returned ${wrong.length} VMs that do not carry it (e.g. ${JSON.stringify(wrong[0]!['name'])} with ${JSON.stringify(wrong[0]![field])})`,
      cut.pages.slice(0, 1)
    ),
  };
}

/** Another organization's VMs: a tag they carry, asked for by the first organization, must not bring them in. */
async function judgeForeignTag(
  ctx: CheckContext,
  all: ListWalk,
  theirs: ListWalk | undefined,
  field: string
): Promise<Judgement> {
  if (!theirs) return { notJudged: "other organizations' VMs (needs --api-key-b)" };
  const tag = firstTag(theirs, field);
  if (!tag) return { notJudged: "other organizations' VMs (no tag visible on the second organization's records)" };
  const [key, value] = tag;
  const filtered = await ctx.objects.walk(100, { tag: `${key}:${value}` });
  const ours = new Set(all.items.map(identity));
  const foreign = new Set(theirs.items.map(identity).filter((id) => !ours.has(id)));
  const leaked = filtered.items.filter((v) => foreign.has(identity(v)));
  const judged = `tag=${key}:${value}, carried by the second organization's VMs, returned none of them`;
  if (!leaked.length) return { judged };
  const evidence: Exchange[] = [...filtered.pages.slice(0, 1), ...theirs.pages.slice(0, 1)];
  return {
    judged,
    finding: finding(
      'must',
      `tag=${key}:${value} returned ${leaked.length} VMs of the second organization (e.g. ${JSON.stringify(leaked[0]!['name'])}), which the first organization's unfiltered list does not show`,
      evidence
    ),
  };
}

/** The list filtered by a tag nobody carries (its key and its value both the run's own): applied filters return nothing. */
const absentTagAnswer = (ctx: CheckContext): Promise<Exchange> =>
  ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: `cc-absent-${ctx.config.runId}:none` } });

type Judgement = { judged: string; finding?: Finding } | { notJudged: string };

/**
 * Both halves of the tag count: a visible tag's value under a key nobody carries, and its key with a value nobody
 * carries, return no VM (a filter that matches the value under any key, or any value of the key, returns some).
 */
async function judgeEachHalf(
  ctx: CheckContext,
  tag: [string, string] | undefined,
  field: string,
  absentAnswer: () => Promise<Exchange>
): Promise<Judgement> {
  if (!tag) return { notJudged: 'each half of a tag (no tag visible on the records)' };
  const [key, value] = tag;
  const nobody = `cc-absent-${ctx.config.runId}`;
  const asked = [`${nobody}:${value}`, `${key}:${nobody}`];
  const [absent, ...answers] = await Promise.all([
    absentAnswer(),
    ...asked.map((t) => ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: t, per_page: 100 } })),
  ]);
  if (!isSuccess(absent) || vmsOf(absent).length > 0)
    return {
      notJudged: `each half of a tag (tag=${nobody}:none ${isSuccess(absent) ? 'returned VMs as well: the filter is not applied, see vms.tag-filter' : `answered ${describeExchange(absent)}`})`,
    };
  const unanswered = answers.findIndex((a) => !isSuccess(a));
  if (unanswered >= 0)
    return {
      notJudged: `each half of a tag (tag=${asked[unanswered]} answered ${describeExchange(answers[unanswered]!)})`,
    };
  const judged = `tag=${asked[0]} and tag=${asked[1]} (the value of ${key}:${value} under a key nobody carries, its key with a value nobody carries) returned no VM`;
  const wrong = answers.map((a, i) => ({ tag: asked[i]!, vms: vmsOf(a), ex: a })).filter((a) => a.vms.length > 0);
  if (wrong.length === 0) return { judged };
  const what = wrong
    .map(
      (w) =>
        `tag=${w.tag} returned ${w.vms.length} VMs (e.g. ${JSON.stringify(w.vms[0]!['name'])} with ${JSON.stringify(w.vms[0]![field])})`
    )
    .join('; ');
  return {
    judged,
    finding: finding('must', `the filter matched one half of the tag only: ${what}`, [
      absent,
      ...wrong.map((w) => w.ex),
    ]),
  };
}

/** Target-seconds between reads of the second organization's filtered list while its tagged VM is being made. */
const LIST_POLL_SECONDS = 2;

type BothOrganizations = Judgement;

/**
 * The run's tag set on a VM it creates in the second organization too: once that organization's
 * filtered list shows it, the first organization's filter by the same tag must not, and the second's must not show the
 * first's VM. Unlike the seeded tags above, this needs nothing of either organization's records.
 */
async function judgeRunTagInBothOrganizations(ctx: CheckContext): Promise<BothOrganizations> {
  const what = "the run's tag on a VM of each organization";
  if (ctx.config.readOnly) return { notJudged: `${what} (--read-only)` };
  if (!ctx.tokens.has('second') || !ctx.config.subnetIdB)
    return { notJudged: `${what} (needs --api-key-b and --subnet-id-b)` };
  const tag = await ctx.objects.runTag().catch(() => undefined);
  const ours = await ctx.objects.vm().catch(() => undefined);
  if (!tag || !ours?.accepted) return { notJudged: `${what} (the run's VM carries no tag the filter finds)` };
  const filter = `${tag.key}:${tag.value}`;
  const { body } = ctx.objects.vmCreateBody('org-b-tagged');
  body['subnet_id'] = ctx.config.subnetIdB;
  const pair: Array<[string, string]> = [[tag.key, tag.value]];
  body[tag.field] = tagsInShape(tag.shape, pair);
  const name = String(body['name']);
  const created = await ctx.call({ as: 'second', method: 'POST', path: '/v1/vms', json: body });
  if (!isSuccess(created))
    return { notJudged: `${what} (the second organization's create was refused: ${describeExchange(created)})` };
  const entry = ctx.ledger.record(
    { kind: 'vm', name, createdBy: ctx.checkId, owner: 'second', note: "the run's tag in the second organization" },
    created
  );
  // Listed at once on most targets, on some only once the create's task has ended: read until the task timeout.
  const deadline = Date.now() + taskTimeoutRealMs(ctx.config);
  let theirs = await ctx.objects.walkAs('second', 100, { tag: filter });
  while (!theirs.items.some((v) => v['name'] === name) && theirs.complete && Date.now() < deadline) {
    await ctx.sleepTarget(LIST_POLL_SECONDS);
    theirs = await ctx.objects.walkAs('second', 100, { tag: filter });
  }
  const listed = theirs.items.find((v) => v['name'] === name);
  if (!listed)
    return {
      notJudged: `${what} (tag=${filter} in the second organization did not show its VM ${name}${theirs.complete ? ` within ${ctx.config.taskTimeoutSeconds} s` : `: ${theirs.stoppedBecause}`})`,
    };
  entry.id = String(listed['id']);
  const mine = await ctx.objects.walk(100, { tag: filter });
  const problems: string[] = [];
  if (mine.items.some((v) => v['name'] === name))
    problems.push(`the first organization's tag=${filter} returned ${name}, the second organization's VM`);
  if (theirs.items.some((v) => v['name'] === ours.name))
    problems.push(`the second organization's tag=${filter} returned ${ours.name}, the first organization's VM`);
  // Deleted with its owner's key now, where a delete is declared (cleanup would do the same later).
  const remove = ctx.declarations.deleteVm;
  if (
    remove &&
    isSuccess(
      await ctx.call({
        as: 'second',
        method: remove.method,
        path: remove.path.replace(/\{[^}]+\}/, encodeURIComponent(entry.id)),
      })
    )
  )
    entry.cleanup = 'deleted';
  const judged = `tag=${filter}, set on ${ours.name} and on ${name} of the second organization, returned each organization its own`;
  return problems.length
    ? {
        judged,
        finding: finding('must', `${problems.join('; ')}: a tag filter answers with another organization's VMs`, [
          ...mine.pages.slice(0, 1),
          ...theirs.pages.slice(0, 1),
          created,
        ]),
      }
    : { judged };
}
