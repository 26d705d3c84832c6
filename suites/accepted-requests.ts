// Every request of a long-running operation the target accepted, whichever check sent it (the fuzz, the type sweep,
// the value classes, the read-back, the stateful sequences, certify's population, the quota probe): the requests the
// checks that hold each accepted request to its operation's whole contract range over, grouped by input classes.
import type { CheckContext } from '../src/engine/run/context.ts';
import type { Level } from '../src/engine/run/check.ts';
import type { KeyName } from '../src/engine/config/config.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import type { ValueLocation } from '../src/spec/declarations.ts';
import type { AcceptedRequest } from '../src/engine/target/request-tasks.ts';
import { Unavailable } from '../src/engine/run/check.ts';
import { CREATE_VM_FIELDS, classesOf } from '../src/spec/value-classes.ts';
import { isSuccess, pathOf } from './support.ts';
import { documentOperations } from './operations.ts';

/** Accepted requests judged per check at most, one of each class group first (each costs a poll where the log has none). */
const MAX_JUDGED = { quick: 60, full: 60, certify: 300 } as const;

/** The keys whose requests are judged: each task is read with its maker's key (not the revocable one, which the run revokes). */
const RUN_KEYS: readonly string[] = ['primary', 'second', 'readonly'];

export interface LongRunningRequest extends AcceptedRequest {
  /** must for the two the seed names (create VM, restore backup); declared for those the overlay links to getTask. */
  level: Level;
  /** The input classes of the request (src/spec/value-classes.ts): a create's, a backup's description's. */
  classes: string[];
}

interface LongRunningOperation {
  operationId: string;
  level: Level;
  location?: ValueLocation;
  declared: boolean;
}

/** Where the run VM's create named its task (found once for the run); undefined when it named none. */
async function runVmLocation(ctx: CheckContext): Promise<ValueLocation | undefined> {
  try {
    return (await ctx.objects.vmTask()).location;
  } catch (err) {
    if (err instanceof Unavailable) return undefined;
    throw err;
  }
}

/** The long-running operations of the run's document: create VM, the declared restore, and every one linked to getTask. */
async function longRunningOperations(ctx: CheckContext): Promise<LongRunningOperation[]> {
  const { declarations: d } = ctx;
  const restore = d.restoreBackup;
  const out: LongRunningOperation[] = [];
  for (const op of documentOperations(ctx)) {
    const isRestore = !!restore && op.method === restore.method && op.path === restore.path;
    if (!op.longRunning && !isRestore) continue;
    if (op.operationId === 'createVm') {
      const location = d.taskIdOnCreateVm ?? (await runVmLocation(ctx));
      out.push({ operationId: op.operationId, level: 'must', location, declared: !!d.taskIdOnCreateVm });
    } else if (isRestore)
      out.push({ operationId: op.operationId, level: 'must', location: restore.taskId, declared: !!restore.taskId });
    else {
      const location = op.operationId === 'startBackup' ? d.taskIdOnStartBackup : undefined;
      out.push({ operationId: op.operationId, level: 'declared', location, declared: !!location });
    }
  }
  return out;
}

function bodyOf(ex: Exchange): unknown {
  try {
    return ex.request.body ? (JSON.parse(ex.request.body) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** A request's input classes; a create of none of them (several fields left out at once) by the fields it leaves out. */
function inputClassesOf(operation: string, body: unknown): string[] {
  const classes = classesOf(operation, body);
  if (operation !== 'createVm' || classes.length || !body || typeof body !== 'object' || Array.isArray(body))
    return classes;
  const left = CREATE_VM_FIELDS.filter((f) => !(f in body));
  return left.length ? [`without ${left.join(', ')}`] : [];
}

/** Every accepted request of the given long-running operations (all of them by default) sent with one of the run's keys. */
export async function acceptedRequests(ctx: CheckContext, only?: readonly string[]): Promise<LongRunningRequest[]> {
  const ops = (await longRunningOperations(ctx)).filter((o) => !only || only.includes(o.operationId));
  const out: LongRunningRequest[] = [];
  for (const ex of ctx.log) {
    if (!isSuccess(ex) || !ex.subject || !RUN_KEYS.includes(ex.subject)) continue;
    const operationId = ctx.schema.operationFor('merged', ex.request.method, pathOf(ex))?.op.operationId;
    const op = ops.find((o) => o.operationId === operationId);
    if (!op) continue;
    out.push({
      exchange: ex,
      operationId: op.operationId,
      location: op.location,
      declared: op.declared,
      as: ex.subject as KeyName,
      level: op.level,
      classes: inputClassesOf(op.operationId, bodyOf(ex)),
    });
  }
  return out;
}

/** The class group of a request: its operation (unless told to leave it out) and input classes, as one label. */
export const groupOf = (r: LongRunningRequest, operation = true): string =>
  [...(operation ? [r.operationId] : []), ...r.classes].join(' ') + (r.as === 'primary' ? '' : ` (${r.as} key)`);

/**
 * The requests a check judges within its bound: one of each class group first (in the order sent), then the rest; and
 * how many were left: no group is left unseen while another group's repeats are judged.
 */
export function withinBound(
  ctx: CheckContext,
  requests: readonly LongRunningRequest[]
): { judged: LongRunningRequest[]; left: number } {
  const seen = new Set<string>();
  const first: LongRunningRequest[] = [];
  const rest: LongRunningRequest[] = [];
  for (const r of requests) {
    const g = groupOf(r);
    (seen.has(g) ? rest : first).push(r);
    seen.add(g);
  }
  const max = MAX_JUDGED[ctx.config.profile];
  const judged = [...first, ...rest].slice(0, max);
  return { judged, left: requests.length - judged.length };
}
