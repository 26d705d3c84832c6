import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { ValueLocation } from '../../src/spec/declarations.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation } from '../../src/engine/target/discover.ts';
import { backupOnVm, describeExchange, isSuccess, ownDescription } from '../support.ts';
import { documentOperations } from '../operations.ts';

/** Operations the seed names as long-running have checks of their own (vms.create-returns-task, backups.restore-task). */
const JUDGED_ELSEWHERE = new Set(['createVm', 'restoreBackup']);

interface Tried {
  operationId: string;
  /** What happened: the task found and polled to a terminal state, or why not. */
  outcome: { ok: true; note: string } | { ok: false; note: string; evidence: Exchange[] } | { untried: string };
}

/** The answer of a long-running operation must name a task that polls to a terminal state. */
async function judgeTask(
  ctx: CheckContext,
  operationId: string,
  answer: Exchange,
  declared: ValueLocation | undefined
): Promise<Tried['outcome']> {
  if (!isSuccess(answer))
    return { ok: false, note: `${operationId} was refused (${describeExchange(answer)})`, evidence: [answer] };
  let task;
  try {
    task = await ctx.objects.findTask(answer, declared);
  } catch (err) {
    if (err instanceof Unavailable)
      return {
        ok: false,
        note: `${operationId} answered with no task id GET /v1/tasks/{id} knows (${err.message})`,
        evidence: [answer],
      };
    throw err;
  }
  const outcome = await ctx.objects.pollTask(task.id);
  if (!outcome.state.terminal)
    return {
      ok: false,
      note: `${operationId}'s task ${task.id} did not complete (last ${outcome.state.field}=${outcome.state.value ?? '?'})`,
      evidence: [answer, ...outcome.polls.slice(-1)],
    };
  return {
    ok: true,
    note: `${operationId}: task ${task.id} at ${describeLocation(task.location)} reached ${outcome.state.field}=${outcome.state.value}`,
  };
}

/** A backup of the run's VM (the seed's backup start, declared long-running). */
async function startBackup(ctx: CheckContext): Promise<Tried['outcome']> {
  const vmId = await ctx.objects.createdVmId();
  const started = await backupOnVm(ctx, vmId, { json: { description: ownDescription(ctx, 'task') } });
  if (isSuccess(started))
    ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}, for its task` }, started);
  return judgeTask(ctx, 'startBackup', started, ctx.declarations.taskIdOnStartBackup);
}

/** A VM made for the purpose, then deleted with the declared delete. */
async function deleteVm(ctx: CheckContext): Promise<Tried['outcome']> {
  const remove = ctx.declarations.deleteVm!;
  const { body } = ctx.objects.vmCreateBody('task-delete');
  const created = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
  if (!isSuccess(created)) return { untried: `the VM to delete was refused (${describeExchange(created)})` };
  const entry = ctx.ledger.record(
    { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'made to be deleted, for the delete task' },
    created
  );
  try {
    await ctx.objects.pollTask((await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm)).id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  const { matches } = await ctx.objects.findInList([String(body['name'])]);
  const id = matches[0]?.['id'];
  if (typeof id !== 'string')
    return { untried: `the VM made to be deleted is not in the list (${matches.length} matches)` };
  const answer = await ctx.call({
    method: remove.method,
    path: remove.path.replace(/\{[^}]+\}/, encodeURIComponent(id)),
  });
  const outcome = await judgeTask(ctx, 'deleteVm', answer, undefined);
  if (isSuccess(answer)) entry.cleanup = 'deleted';
  return outcome;
}

const RUNNERS: Record<string, (ctx: CheckContext) => Promise<Tried['outcome']>> = { startBackup, deleteVm };

/**
 * Long-running operations return a task id the caller polls (seed §1): every operation the document links to the task
 * poll, beyond the two the seed names, on objects of the run's own: each answer names a task that completes.
 */
export const longRunningOperations: Check = {
  id: 'tasks.long-running-operations',
  group: 'tasks',
  clauses: ['TASK-ASYNC', 'TASK-RETURNED'],
  level: 'declared',
  why: {
    declared:
      "the seed says long-running operations return a task id to poll; which operations beyond create VM and restore backup are long-running is the overlay's declaration (a link to getTask)",
  },
  title: 'Every operation declared long-running answers with a task that completes',
  async run(ctx) {
    if (ctx.config.readOnly)
      return skip('--read-only: every long-running operation is a write', 'a run without --read-only');
    const ops = documentOperations(ctx).filter((o) => o.longRunning && !JUDGED_ELSEWHERE.has(o.operationId));
    if (ops.length === 0)
      return skip(
        'the document declares no long-running operation beyond create VM and restore backup (a link to getTask on its answer)',
        'declare which operations answer with a task (a link to getTask) in --overlay'
      );
    // The operations touch objects of their own, so their tasks are awaited side by side.
    const tried: Tried[] = await Promise.all(
      ops.map(async (op): Promise<Tried> => {
        const runner =
          op.operationId === 'deleteVm' && !ctx.declarations.deleteVm ? undefined : RUNNERS[op.operationId];
        if (!runner)
          return { operationId: op.operationId, outcome: { untried: 'the suite has no valid request for it' } };
        try {
          return { operationId: op.operationId, outcome: await runner(ctx) };
        } catch (err) {
          if (!(err instanceof Unavailable)) throw err;
          return { operationId: op.operationId, outcome: { untried: err.message } };
        }
      })
    );
    const failed = tried.flatMap((t) => ('ok' in t.outcome && !t.outcome.ok ? [t.outcome] : []));
    if (failed.length)
      return fail(
        failed.map((f) => f.note).join('; '),
        failed.flatMap((f) => f.evidence)
      );
    const passed = tried.flatMap((t) => ('ok' in t.outcome ? [t.outcome.note] : []));
    const untried = tried.flatMap((t) => ('untried' in t.outcome ? [`${t.operationId} (${t.outcome.untried})`] : []));
    if (passed.length === 0)
      return skip(
        `no long-running operation could be tried: ${untried.join('; ')}`,
        'objects the run may create (--image, --subnet-id) and the operations declared with valid requests'
      );
    return pass(`${passed.join('; ')}${untried.length ? `; not tried: ${untried.join('; ')}` : ''}`);
  },
};
