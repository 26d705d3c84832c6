import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check, Finding, Level } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip, Unavailable } from '../../src/engine/run/check.ts';
import { fieldsOf } from '../../src/engine/generate/create-body.ts';
import {
  RUN_TAG_KEY,
  SIZE_LADDER,
  tagsInShape,
  vmsOf,
  type CreatedVm,
  type ListWalk,
} from '../../src/engine/target/run-objects.ts';
import { describeExchange, documentedRefusal, isSuccess } from '../support.ts';
import { judgeField, objectWith, recordView, type FieldVerdict, type Reading, type View } from '../read-back.ts';
import { tagsOf } from './tag-filter.ts';
import { COMPARISON_VMS } from '../shares.ts';
import { tagSetting, type TagSetting } from './_tags.ts';

/** A VM the run created, with what it sent and the answers that may show it. */
interface Made {
  name: string;
  body: Record<string, unknown>;
  tags?: Record<string, string>;
  created: Exchange;
  /** The last read of its task, where the task was found. */
  task?: Exchange;
}

/** The last read of a create's task, polled to its end; undefined where no task id was found (vms.create-returns-task says why). */
async function finishedTask(ctx: CheckContext, created: Exchange): Promise<Exchange | undefined> {
  try {
    const task = await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm);
    return (await ctx.objects.pollTask(task.id)).polls.at(-1);
  } catch (err) {
    if (err instanceof Unavailable) return undefined;
    throw err;
  }
}

/**
 * One create of the comparison, its VM in the ledger when accepted. A spent create budget (--max-creates) is a reason:
 * it leaves the comparison with fewer values per field, not the check without one.
 */
async function sendComparisonCreate(
  ctx: CheckContext,
  body: Record<string, unknown>,
  note: string
): Promise<{ created: Exchange } | { why: string }> {
  try {
    const created = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
    if (isSuccess(created))
      ctx.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note }, created);
    return { created };
  } catch (err) {
    if (err instanceof Unavailable) return { why: err.message };
    throw err;
  }
}

/** A valid create answered with a server error, or not at all: a finding whichever size it asked for. */
const answeredBroken = (created: Exchange) => created.response === undefined || created.response.status >= 500;

/**
 * A second VM whose sizes differ from the run's VM in every field (the neighbouring rung of the size ladder), so a size
 * the target ignores cannot hide behind a default that happens to equal the first; its tags add a second key.
 */
async function createSecond(
  ctx: CheckContext,
  first: CreatedVm,
  tags: TagSetting | undefined
): Promise<{ made?: Made; why?: string; broken?: Exchange }> {
  const at = SIZE_LADDER.findIndex(
    (s) =>
      s.vcpus === first.body['vcpus'] &&
      s.memory_gb === first.body['memory_gb'] &&
      s.system_disk_gb === first.body['system_disk_gb']
  );
  const rungs = [at + 1, at - 1].filter((i) => at >= 0 && i >= 0 && i < SIZE_LADDER.length);
  let why = 'no other size to try';
  // The name stays plain: its classes are vms.name-classes's, one at a time, so a name rule never hides a size.
  for (const rung of rungs) {
    const { body } = ctx.objects.vmCreateBody('values');
    Object.assign(body, SIZE_LADDER[rung]);
    let sentTags: Record<string, string> | undefined;
    if (tags) {
      sentTags = { [RUN_TAG_KEY]: ctx.config.runId, 'cc-values': `${ctx.config.runId}-2` };
      body[tags.field] = tags.shape === 'map' ? sentTags : tagsInShape(tags.shape, Object.entries(sentTags));
    }
    const sent = await sendComparisonCreate(ctx, body, 'second values for the read-back comparison');
    if ('why' in sent) return sent;
    const { created } = sent;
    if (isSuccess(created)) return { made: { name: String(body['name']), body, tags: sentTags, created } };
    if (answeredBroken(created))
      return { why: `a well-typed create answered ${describeExchange(created)}`, broken: created };
    why = documentedRefusal(created)
      ? `refused for a documented reason (${describeExchange(created)})`
      : `refused (${describeExchange(created)}): which sizes are valid is not shown`;
    if (documentedRefusal(created)) break;
  }
  return { why };
}

/**
 * The large size class: well past the ladder's rungs, where a silent cap (vcpus clamped to what a host holds) or a
 * narrower integer type shows. Refused, it is the target's choice of sizes and is not sent again.
 */
const LARGE_SIZE = { vcpus: 32, memory_gb: 256, system_disk_gb: 1000 } as const;

/** A third VM of the large size class, beside the second: accepted, it is read back like the others. */
async function createLarge(ctx: CheckContext): Promise<{ made?: Made; why?: string; broken?: Exchange }> {
  const { body } = ctx.objects.vmCreateBody('values-large');
  Object.assign(body, LARGE_SIZE);
  const sent = await sendComparisonCreate(ctx, body, 'the large size class for the read-back comparison');
  if ('why' in sent) return sent;
  const { created } = sent;
  if (isSuccess(created)) return { made: { name: String(body['name']), body, created } };
  if (answeredBroken(created))
    return {
      why: `a well-typed create of the large size class answered ${describeExchange(created)}`,
      broken: created,
    };
  return {
    why: `the large size class (${LARGE_SIZE.vcpus} vCPU/${LARGE_SIZE.memory_gb} GB/${LARGE_SIZE.system_disk_gb} GB disk) was refused (${describeExchange(created)}): the target's sizes stop below it`,
  };
}

/** The answers that show a VM: its list element, the create answer, its task, its record; each found by name or id. */
async function viewsOf(ctx: CheckContext, m: Made, walk: ListWalk): Promise<{ views: View[]; listed: number }> {
  const elements = walk.items.filter((v) => v['name'] === m.name);
  const views: View[] = [];
  const element = elements.length === 1 ? elements[0]! : undefined;
  if (element)
    views.push({
      source: 'its element in GET /v1/vms',
      record: element,
      ex: walk.pages.find((p) => vmsOf(p).includes(element)) ?? walk.pages[0]!,
    });
  const answer = objectWith(m.created.response?.json, 'name', m.name);
  if (answer) views.push({ source: 'the create answer', record: answer, ex: m.created });
  const id = element?.['id'];
  // A task shows the VM only as an object nested in it (its own id is the task's): by the VM's id, else by its name.
  const task =
    m.task &&
    ((id !== undefined ? objectWith(m.task.response?.json, 'id', id) : undefined) ??
      objectWith(m.task.response?.json, 'name', m.name));
  if (task && m.task) views.push({ source: 'its task', record: task, ex: m.task });
  if (typeof id === 'string') {
    const record = await recordView(ctx, 'vms', id);
    if (record) views.push(record);
  }
  return { views, listed: elements.length };
}

/** Sent tag pairs that a view showing tags (in a shape tag-filter reads) does not carry. */
function tagProblems(
  made: Made[],
  viewsFor: Map<string, View[]>,
  field: string
): Array<{ note: string; ex: Exchange }> {
  const out: Array<{ note: string; ex: Exchange }> = [];
  for (const m of made) {
    for (const view of viewsFor.get(m.name) ?? []) {
      if (!m.tags || view.record[field] === undefined) continue;
      const shown = tagsOf({ tags: view.record[field] });
      if (!shown) continue;
      const missing = Object.entries(m.tags).filter(([k, v]) => !shown.some(([sk, sv]) => sk === k && sv === v));
      if (missing.length)
        out.push({
          note: `${m.name} was created with ${field} ${missing.map(([k, v]) => `${k}:${v}`).join(', ')}, which ${view.source} does not show (it shows ${JSON.stringify(view.record[field])})`,
          ex: view.ex,
        });
    }
  }
  return out;
}

const summary = (vs: FieldVerdict[], status: FieldVerdict['status']) =>
  vs.filter((v) => v.status === status).map((v) => v.field);

/**
 * Values read back: each create field the run sent is compared with what the target later shows under the
 * same name, in any answer (the list element, the create answer, the task, the record at GET /v1/vms/{id}). The seed
 * shows only id and name of a list element, so a field no answer shows is no evidence (not verified, never failed);
 * one that an answer shows is the target's own word about the VM it made. Two VMs with different sizes are compared, so
 * an ignored size cannot hide behind a default; a size shown larger than sent is the target's own size (rounded up),
 * allowed while larger requests show larger sizes.
 */
export const valuesReadBack: Check = {
  id: 'vms.values-read-back',
  shares: [COMPARISON_VMS],
  group: 'vms',
  clauses: ['VM-CREATE', 'VM-CREATE-FIELDS'],
  level: 'must',
  why: {
    must: 'the seed says POST /v1/vms creates the VM the request describes: a field the target shows under the create name must say what was sent (a size at least it, larger requests no smaller)',
    declared: 'tags are compared under the field the overlay declares (x-tags-field)',
    should:
      'how tags are set is not shown: a tag field the run found working keeping every pair it was given is convention',
  },
  title: 'What a create sent (each field, its tags) is what the target later shows under the same names',
  async run(ctx) {
    const first = await ctx.objects.acceptedVm();
    const tags = await tagSetting(ctx);
    const firstTask = (await ctx.objects.vmTaskOutcome().catch(() => undefined))?.polls.at(-1);
    const made: Made[] = [
      {
        name: first.name,
        body: first.body,
        tags: tags ? first.tags : undefined,
        created: first.exchange,
        task: firstTask,
      },
    ];
    // The second VM (the neighbouring rung, names of other classes, tags) and the large size class, side by side.
    const [second, large] = await Promise.all([createSecond(ctx, first, tags), createLarge(ctx)]);
    const extra = [second.made, large.made].filter((m): m is Made => m !== undefined);
    await Promise.all(extra.map(async (m) => (m.task = await finishedTask(ctx, m.created))));
    made.push(...extra);
    const { walk } = await ctx.objects.findInList(made.map((m) => m.name));
    const viewsFor = new Map<string, View[]>();
    for (const m of made) {
      const { views, listed } = await viewsOf(ctx, m, walk);
      if (m === made[0] && listed !== 1)
        return skip(
          `${m.name} is not listed once among the ${walk.items.length} VMs read (${listed} times${walk.scope ? `; ${walk.scope}` : ''}), so its values cannot be read back (see vms.created-listed)`,
          'a created VM the list shows once (see vms.created-listed)'
        );
      viewsFor.set(m.name, views);
    }
    const fields = fieldsOf(ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject, {});
    const verdicts = fields.map((f) => {
      const readings: Reading[] = made.flatMap((m) =>
        (viewsFor.get(m.name) ?? []).map((view) => ({
          of: m.name,
          sent: m.body[f.name] as string | number,
          view,
          shown: view.record[f.name],
        }))
      );
      return judgeField(f.name, f.type, readings);
    });
    const findings: Finding[] = verdicts
      .filter((v) => v.status === 'failed')
      .map((v) => finding('must', `${v.field}: ${v.note}`, v.evidence, { field: v.field, note: v.note }));
    if (second.broken)
      findings.push(finding('must', `the second VM of the comparison: ${second.why}`, [second.broken]));
    if (large.broken) findings.push(finding('must', `the large VM of the comparison: ${large.why}`, [large.broken]));
    const tagLevel: Level = tags?.declared ? 'declared' : 'should';
    const tagged = tags ? tagProblems(made, viewsFor, tags.field) : [];
    if (tagged.length)
      findings.push(
        finding(
          tagLevel,
          `tags: ${tagged[0]!.note}${tagged.length > 1 ? ` (and ${tagged.length - 1} more)` : ''}`,
          tagged.map((t) => t.ex)
        )
      );
    const rounded = verdicts.filter((v) => v.status === 'rounded');
    const sources = [...new Set([...viewsFor.values()].flat().map((v) => v.source))];
    const compared = verdicts.filter((v) => v.field !== 'name' && v.status !== 'not-shown');
    if (findings.length === 0 && compared.length === 0) {
      return skip(
        `no answer shows a create field beyond the name (${sources.join(', ')}): the seed shows only id and name of a VM, so what was sent cannot be read back`,
        'a target whose list element or record (GET /v1/vms/{id}) shows the create fields under their names'
      );
    }
    const part = (label: string, names: string[]) => (names.length ? [`${label}: ${names.join(', ')}`] : []);
    const tagNote =
      tags && made.some((m) => m.tags)
        ? [
            `tags under ${tags.field} (${made
              .flatMap((m) => Object.keys(m.tags ?? {}))
              .filter((k, i, a) => a.indexOf(k) === i)
              .join(', ')})${tagged.length ? '' : ' as sent'}`,
          ]
        : [];
    return judge(
      findings,
      [
        `read back from ${sources.join(', ')}`,
        ...part(
          `as sent, ${made.length > 2 ? `up to ${made.length}` : 'two'} values each`,
          summary(verdicts, 'verified')
        ),
        ...rounded.map((v) => `${v.field} ${v.note}`),
        ...part(
          `as sent, one value (${second.made ? 'the only one known valid' : `no second VM: ${second.why}`})`,
          summary(verdicts, 'one-value')
        ),
        ...verdicts.filter((v) => v.status === 'ambiguous').map((v) => `${v.field} not verified: ${v.note}`),
        ...part('not shown (no evidence)', summary(verdicts, 'not-shown')),
        ...(large.made
          ? [
              `the large size class (${LARGE_SIZE.vcpus} vCPU/${LARGE_SIZE.memory_gb} GB/${LARGE_SIZE.system_disk_gb} GB disk) accepted and read back`,
            ]
          : large.why
            ? [large.why]
            : []),
        ...tagNote,
      ].join('; '),
      [],
      { verdicts: verdicts.map(({ field, status, note }) => ({ field, status, note })) }
    );
  },
};
