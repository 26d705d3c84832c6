import type { Check, Finding, Level } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import { inParallel } from '../../src/engine/transport/in-parallel.ts';
import { acceptedRequests, groupOf, withinBound, type LongRunningRequest } from '../accepted-requests.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { NOT_FINISHED } from './reaches-terminal.ts';

/** Tasks followed at once (most ended long before the run's end: one read each, or none where the log holds it). */
const IN_FLIGHT = 4;

type Verdict =
  | { kind: 'ended'; note: string }
  | { kind: 'finding'; level: Level; note: string; evidence: Exchange[] }
  | { kind: 'undecided'; note: string }
  | { kind: 'untasked' };

/** One accepted request's task: ended within the task timeout from its request, still running past it, or why not known. */
async function judgeOne(ctx: CheckContext, req: LongRunningRequest): Promise<Verdict> {
  const task = await ctx.objects.taskOfRequest(req, ctx.log);
  // A create without a task is vms.every-create-task's to judge; another operation's has no check of its own here.
  if (task.kind === 'undecided') return { kind: 'undecided', note: task.why };
  if (task.kind === 'finding')
    return req.operationId === 'createVm'
      ? { kind: 'untasked' }
      : { kind: 'finding', level: req.level, note: `${req.operationId}: ${task.why}`, evidence: task.evidence };
  const outcome = (await ctx.objects.completionOfRequest(req, ctx.log))!;
  const { state } = outcome;
  const last = outcome.polls.at(-1)!;
  if (state.terminal) return { kind: 'ended', note: `${state.field}=${state.value}` };
  const status = last.response?.status;
  if (!isSuccess(last)) {
    if (status === undefined || status === 401 || status === 403 || status === 429)
      return { kind: 'undecided', note: `task ${task.id}: a read answered ${describeExchange(last)}` };
    return {
      kind: 'finding',
      level: req.level,
      note: `${req.operationId}'s task ${task.id}, confirmed by ${describeExchange(task.confirmation)}, then read ${describeExchange(last)}`,
      evidence: [req.exchange, task.confirmation, last],
    };
  }
  if (state.field === undefined)
    return { kind: 'undecided', note: `task ${task.id}: its state could not be read (declare x-state-field)` };
  if (!state.declared && !NOT_FINISHED.test(state.value ?? ''))
    return {
      kind: 'undecided',
      note: `task ${task.id} settled on ${state.field}=${state.value}, which the suite cannot tell terminal or not`,
    };
  return {
    kind: 'finding',
    level: req.level,
    note: `${req.operationId}'s task ${task.id} was still ${state.field}=${state.value} ${ctx.config.taskTimeoutSeconds} s (--task-timeout) after its request, read ${outcome.polls.length === 1 ? 'once' : `${outcome.polls.length} times`} at the end (states seen: ${outcome.history.join(' → ') || state.value})`,
    evidence: [req.exchange, task.confirmation, ...outcome.polls.slice(-2)],
  };
}

/**
 * A long-running operation's task is polled until completion (seed §1, §4): every request of one the target accepted,
 * whichever check sent it and whatever its input classes (a large create, a create without an optional field, the
 * second organization's create, a restore), names a task that reaches a terminal state within the task timeout
 * counted from the request. tasks.reaches-terminal follows the run VM's task as it runs; this check reads every other
 * one at the run's end, where the checks' own polls (most tasks are long over) usually answer it without a request.
 */
export const everyTaskCompletes: Check = {
  id: 'tasks.every-task-completes',
  group: 'tasks',
  clauses: ['TASK-POLL', 'TASK-ASYNC'],
  level: 'must',
  why: {
    must: 'the seed says the task of a long-running operation (create VM, restore backup) is polled until completion: every one the target accepts, whatever check made it',
    declared:
      'operations the overlay declares long-running (a link to getTask on their answer) are held to the same, and to naming their task',
  },
  title: 'Every task an accepted long-running request named reaches a terminal state within the task timeout',
  reviewsLog: true,
  async run(ctx) {
    const requests = await acceptedRequests(ctx);
    if (requests.length === 0)
      return skip(
        'the target accepted no request of a long-running operation in this run',
        'a run that creates VMs (--image, --subnet-id)'
      );
    const { judged: chosen, left } = withinBound(ctx, requests);
    const verdicts = await inParallel(chosen, IN_FLIGHT, async (req) => ({ req, v: await judgeOne(ctx, req) }));
    const of = <K extends Verdict['kind']>(kind: K) =>
      verdicts.flatMap((x) => (x.v.kind === kind ? [{ req: x.req, v: x.v as Extract<Verdict, { kind: K }> }] : []));
    // One finding per class group (its first request's evidence), at the level of its operation.
    const failing = new Map<string, Array<Extract<Verdict, { kind: 'finding' }>>>();
    for (const { req, v } of of('finding')) failing.set(groupOf(req), [...(failing.get(groupOf(req)) ?? []), v]);
    const findings: Finding[] = [...failing].map(([g, vs]) =>
      finding(vs[0]!.level, `${g} (${vs.length} of the ${chosen.length} followed): ${vs[0]!.note}`, vs[0]!.evidence)
    );
    const ended = of('ended');
    const groups = [...new Set(ended.map((x) => groupOf(x.req)))];
    const undecided = of('undecided');
    const notes = [
      ...(of('untasked').length
        ? [`creates that named no task: ${of('untasked').length} (vms.every-create-task says why)`]
        : []),
      ...(undecided.length ? [`not verified: ${undecided.length} (${undecided[0]!.v.note})`] : []),
      ...(left ? [`${left} more accepted requests not followed (at most ${chosen.length} a run)`] : []),
    ];
    if (findings.length === 0 && ended.length === 0)
      return skip(
        `no task of an accepted request could be followed to its end: ${notes.join('; ')}`,
        'tasks whose state the suite can read (declare x-state-field and x-terminal-states in --overlay)'
      );
    return judge(
      findings,
      `${ended.length} tasks of accepted requests in ${groups.length} class groups (${groups.join('; ')}) reached a terminal state${notes.length ? `; ${notes.join('; ')}` : ''}`
    );
  },
};
