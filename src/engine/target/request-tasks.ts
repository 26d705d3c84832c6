// The task of any request the target accepted for a long-running operation, whichever check sent it: found where the
// operation's answers name it, confirmed by a poll, and polled to its end within the task timeout. Polls already in the
// run's log (the checks' own, certify's) are used first, so a task another poller confirmed costs nothing more.
import type { TaskDeclaration, ValueLocation } from '../../spec/declarations.ts';
import type { KeyName } from '../config/config.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import { Unavailable } from '../outcome/outcome.ts';
import {
  describeLocation,
  readLocation,
  readTaskState,
  taskIdCandidates,
  taskIdIn,
  type Candidate,
  type TaskState,
} from './discover.ts';

export interface FoundTask {
  id: string;
  location: ValueLocation;
  declared: boolean;
  /** GET /v1/tasks/{id} that confirmed the id. */
  confirmation: Exchange;
  tried: Array<Candidate & { confirmation?: Exchange }>;
}

export interface TaskOutcome {
  state: TaskState;
  polls: Exchange[];
  timedOut: boolean;
  /** Every state value seen, in order, without repeats. */
  history: string[];
}

/** Whose token reads a task, and on which lane: a task is its organization's, so another organization's create is read with its key. */
export interface TaskReader {
  lane?: string;
  as?: KeyName;
}

/** A request of a long-running operation that the target accepted (a 2xx), as the run's log holds it. */
export interface AcceptedRequest {
  exchange: Exchange;
  operationId: string;
  /** Where the operation's answers name their task: declared, or where the run VM's create had it; else discovered. */
  location?: ValueLocation;
  /** The location is the overlay's: only it is read (as for the run's own VM). */
  declared: boolean;
  /** The run's key whose token it carried: its task is read with the same organization's key. */
  as: KeyName;
}

/** What the answer named: a task a poll confirmed, or why not (a finding), or why the run cannot tell (not verified). */
export type RequestTask =
  | {
      kind: 'confirmed';
      id: string;
      location: ValueLocation;
      /** The 2xx poll that confirmed it (the run's own earlier poll where the log had one). */
      confirmation: Exchange;
      /** Found elsewhere than where the operation's other answers name it. */
      elsewhere: boolean;
      /** Requests this judgement sent (0 when the log already held a confirming poll). */
      sent: number;
    }
  | { kind: 'finding'; why: string; evidence: Exchange[]; sent: number }
  | { kind: 'undecided'; why: string; evidence: Exchange[]; sent: number };

export interface RequestTaskDeps {
  /** Reads a task (one GET /v1/tasks/{id}) with the given organization's key. */
  poll(id: string, by: TaskReader): Promise<Exchange>;
  /** Discovery: every candidate of the answer, each confirmed by a poll (RunObjects.findTask). */
  findTask(ex: Exchange, declared: ValueLocation | undefined, by: TaskReader): Promise<FoundTask>;
  pollTask(id: string, by: TaskReader & { deadline?: number }): Promise<TaskOutcome>;
  task: TaskDeclaration;
  /** Real milliseconds a task has, from its request, to end (--task-timeout at the run's time scale). */
  timeoutMs: number;
}

/** The organization a run key belongs to: the second key's is B, every other key's is A. */
const organizationOf = (subject: string | undefined) => (subject === 'second' ? 'B' : 'A');

/** The decoded id of a GET /v1/tasks/{id}, or undefined for any other request. */
function polledId(ex: Exchange): string | undefined {
  if (ex.request.method !== 'GET') return undefined;
  const m = /^\/v\d+\/tasks\/([^/]+)$/.exec(new URL(ex.request.url).pathname);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

/** The run's later 2xx reads of task `id` by the request's organization, oldest first. */
function logPollsOf(log: readonly Exchange[], req: AcceptedRequest, id: string): Exchange[] {
  const org = organizationOf(req.exchange.subject);
  return log.filter(
    (ex) =>
      ex.seq > req.exchange.seq &&
      isSuccess(ex) &&
      ex.subject !== undefined &&
      organizationOf(ex.subject) === org &&
      polledId(ex) === id
  );
}

/** String values of an answer (its body up to three levels, its Location header's last segment): where a VM id shows. */
function stringsOf(ex: Exchange): Set<string> {
  const out = new Set<string>();
  const visit = (v: unknown, depth: number) => {
    if (typeof v === 'string') out.add(v);
    else if (v && typeof v === 'object' && depth < 3) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(ex.response?.json, 0);
  const location = ex.response?.headers['location'];
  if (location) out.add(location.split('/').pop() ?? location);
  return out;
}

/** Whether the run deleted (2xx) a VM its create answer named, before `before`: its task may have gone with it. */
function deletedByTheRun(log: readonly Exchange[], req: AcceptedRequest, before: number): boolean {
  const named = stringsOf(req.exchange);
  return log.some((ex) => {
    if (ex.seq <= req.exchange.seq || ex.seq >= before || ex.request.method !== 'DELETE' || !isSuccess(ex))
      return false;
    const m = /^\/v\d+\/vms\/([^/]+)$/.exec(new URL(ex.request.url).pathname);
    return !!m && named.has(decodeURIComponent(m[1]!));
  });
}

/** A poll that did not confirm the id: a finding, unless it says nothing of the task (credentials, rate, no answer, a deleted VM). */
function unconfirmed(log: readonly Exchange[], req: AcceptedRequest, what: string, poll: Exchange): RequestTask {
  const status = poll.response?.status;
  const evidence = [req.exchange, poll];
  if (status === undefined || status === 401 || status === 403 || status === 429)
    return { kind: 'undecided', why: `${what}: its read answered ${statusText(poll)}`, evidence, sent: 1 };
  if (status < 500 && deletedByTheRun(log, req, poll.seq))
    return {
      kind: 'undecided',
      why: `${what}: its read answered ${statusText(poll)}, after the run had deleted the VM (the seed does not say whether a task outlives its VM)`,
      evidence,
      sent: 1,
    };
  return { kind: 'finding', why: `${what}, which GET /v1/tasks/{id} answers ${statusText(poll)}`, evidence, sent: 1 };
}

/** The id at the operation's location (the run's earlier poll first, else one poll now); undefined: nothing usable there. */
async function atLocation(
  deps: RequestTaskDeps,
  log: readonly Exchange[],
  req: AcceptedRequest,
  location: ValueLocation
): Promise<RequestTask | undefined> {
  const value = readLocation(req.exchange, location);
  const ids = [...new Set([taskIdIn(value), value])].filter((v): v is string => typeof v === 'string' && v !== '');
  if (ids.length === 0) return undefined;
  const by = { as: req.as };
  for (const id of ids) {
    const earlier = logPollsOf(log, req, id)[0];
    if (earlier) return { kind: 'confirmed', id, location, confirmation: earlier, elsewhere: false, sent: 0 };
  }
  let first: Exchange | undefined;
  for (const [i, id] of ids.entries()) {
    const poll = await deps.poll(id, by);
    first ??= poll;
    if (isSuccess(poll)) return { kind: 'confirmed', id, location, confirmation: poll, elsewhere: false, sent: i + 1 };
  }
  const judged = unconfirmed(
    log,
    req,
    `the answer names task ${JSON.stringify(ids[0])} at ${describeLocation(location)}`,
    first!
  );
  return { ...judged, sent: ids.length };
}

/** Every candidate of the answer (the run's earlier polls first), each confirmed by a poll. */
async function discovered(
  deps: RequestTaskDeps,
  log: readonly Exchange[],
  req: AcceptedRequest,
  there: string
): Promise<RequestTask> {
  for (const c of taskIdCandidates(req.exchange)) {
    const earlier = typeof c.value === 'string' ? logPollsOf(log, req, c.value)[0] : undefined;
    if (earlier)
      return {
        kind: 'confirmed',
        id: c.value as string,
        location: c.location,
        confirmation: earlier,
        elsewhere: !!req.location,
        sent: 0,
      };
  }
  try {
    const found = await deps.findTask(req.exchange, undefined, { as: req.as });
    const sent = found.tried.filter((t) => t.confirmation).length;
    return {
      kind: 'confirmed',
      id: found.id,
      location: found.location,
      confirmation: found.confirmation,
      elsewhere: !!req.location,
      sent,
    };
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    const tried = ((err as Unavailable & { tried?: FoundTask['tried'] }).tried ?? []).flatMap((t) =>
      t.confirmation ? [t.confirmation] : []
    );
    const last = tried.at(-1);
    const why = `the answer names no task${there} (${err.message})`;
    const judged = last && !isSuccess(last) ? unconfirmed(log, req, why, last) : undefined;
    if (judged?.kind === 'undecided') return { ...judged, evidence: [req.exchange, ...tried], sent: tried.length };
    return { kind: 'finding', why, evidence: [req.exchange, ...tried], sent: tried.length };
  }
}

/**
 * The task an accepted request named. At a declared location only there; else where the operation's answers name it,
 * and anywhere in the answer when nothing usable is there. A value that is no string id is no task id (ID-OPAQUE-STRING).
 */
export async function taskOfRequest(
  deps: RequestTaskDeps,
  log: readonly Exchange[],
  req: AcceptedRequest
): Promise<RequestTask> {
  return numberAsId(req, await namedTask(deps, log, req));
}

/** A task-named id field (task_id, taskId, task.id) of the answer that holds a number. */
const numericIds = (ex: Exchange) =>
  taskIdCandidates(ex).filter(
    (c) => typeof c.value === 'number' && c.location.in === 'body' && /id$/i.test(c.location.pointer)
  );

/**
 * Identifiers are opaque strings (ID-OPAQUE-STRING): an answer whose task id field holds the confirmed task's id as a
 * JSON number sends the task id as a number, wherever else it names the task as a string.
 */
function numberAsId(req: AcceptedRequest, task: RequestTask): RequestTask {
  if (task.kind !== 'confirmed') return task;
  const twin = numericIds(req.exchange).find((c) => String(c.value) === task.id);
  if (!twin) return task;
  return {
    kind: 'finding',
    why: `the answer sends task ${task.id} as a number at ${describeLocation(twin.location)} (${String(twin.value)}): identifiers are opaque strings (the string is at ${describeLocation(task.location)})`,
    evidence: [req.exchange, task.confirmation],
    sent: task.sent,
  };
}

/** The task where the operation's answers name it, or anywhere in the answer where nothing usable is there. */
async function namedTask(deps: RequestTaskDeps, log: readonly Exchange[], req: AcceptedRequest): Promise<RequestTask> {
  const at = req.location && (await atLocation(deps, log, req, req.location));
  if (at) return at;
  const value = req.location ? readLocation(req.exchange, req.location) : undefined;
  const there = req.location
    ? ` (${describeLocation(req.location)} holds ${value === undefined ? 'nothing' : JSON.stringify(value)})`
    : '';
  if (req.declared)
    return { kind: 'finding', why: `the answer names no task id${there}`, evidence: [req.exchange], sent: 0 };
  return discovered(deps, log, req, there);
}

/** How a confirmed task ended: read terminal in the log already, else polled until it ends or its time is up. */
export async function completionOf(
  deps: RequestTaskDeps,
  log: readonly Exchange[],
  req: AcceptedRequest,
  task: Extract<RequestTask, { kind: 'confirmed' }>
): Promise<TaskOutcome & { sent: number }> {
  const polls = logPollsOf(log, req, task.id);
  const history = [...new Set(polls.map((p) => readTaskState(p.response?.json, deps.task).value))].filter(
    (v): v is string => v !== undefined
  );
  const ended = polls.find((p) => readTaskState(p.response?.json, deps.task).terminal);
  if (ended)
    return { state: readTaskState(ended.response?.json, deps.task), polls: [ended], timedOut: false, history, sent: 0 };
  const deadline = Date.parse(req.exchange.startedAt) + deps.timeoutMs;
  const outcome = await deps.pollTask(task.id, { as: req.as, deadline });
  return { ...outcome, history: [...new Set([...history, ...outcome.history])], sent: outcome.polls.length };
}
