// Room for one more create, made by deleting one of the run's own VMs: shared by the checks that meet a quota (the
// quota probe, a create refused for want of room). A VM still being provisioned may refuse deletes (a state the seed
// does not show): that is temporary, so its create task is waited for and the delete sent again, and another VM of
// the run's is tried next, rather than the evidence being dropped.
import { taskTimeoutRealMs } from '../src/engine/config/config.ts';
import type { CheckContext } from '../src/engine/run/context.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import type { LedgerEntry } from '../src/engine/target/ledger.ts';
import { Unavailable } from '../src/engine/run/check.ts';
import { describeExchange, isSuccess, pathOf } from './support.ts';

type Body = Record<string, unknown>;

/** VMs of the run's tried as the one to delete, at most. */
const CANDIDATES = 3;
/** Statuses that say the delete operation is not there: the seed shows none, and the overlay declares none. */
const NO_OPERATION = new Set([405, 501]);
/** Statuses that say the caller may not delete: no wait makes room. */
const NOT_ALLOWED = new Set([401, 403]);

export interface RoomMade {
  /** The delete that was taken, and every delete sent before it (refused while a VM was busy). */
  deleted: Exchange;
  attempts: Exchange[];
  entry: LedgerEntry;
  /**
   * The body the deleted VM was created with, where it is at least as large as the one the caller asked room for: the
   * delete freed room for one create of it, and no more (see covers). Undefined when another VM had to be deleted.
   */
  freed?: Body;
  /** What the run waited for before the delete was taken, if anything. */
  waited?: string;
}

type Room = RoomMade | { why: string; attempts: Exchange[]; noOperation?: boolean };

/** A create body without what differs from one valid create to the next (its name, its tags). */
export function shapeOf(body: Body): string {
  return JSON.stringify(
    Object.entries(body)
      .filter(([k]) => k !== 'name' && !/tags|labels/i.test(k))
      .sort(([a], [b]) => a.localeCompare(b))
  );
}

export function bodyOf(ex: Exchange): Body | undefined {
  try {
    const v = ex.request.body ? (JSON.parse(ex.request.body) as unknown) : undefined;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : undefined;
  } catch {
    return undefined;
  }
}

/** The exchange that created a VM of the ledger: by its seq, else the accepted create that named it. */
function creatingExchange(log: readonly Exchange[], entry: LedgerEntry): Exchange | undefined {
  if (entry.createdIn !== undefined) {
    const bySeq = log.find((ex) => ex.seq === entry.createdIn);
    if (bySeq) return bySeq;
  }
  return log.find(
    (ex) =>
      ex.request.method === 'POST' &&
      pathOf(ex) === '/v1/vms' &&
      isSuccess(ex) &&
      entry.name !== undefined &&
      bodyOf(ex)?.['name'] === entry.name
  );
}

/**
 * Whether a VM created with `body` holds at least what `wanted` asks for: every number as large, everything else the
 * same (names and tags aside). Deleting it frees room for one create of its own body, and at most one: whatever the
 * target counts, what it lacked for `wanted` it lacks for a second body at least as large.
 */
function covers(body: Body, wanted: Body): boolean {
  const keys = new Set(
    [...Object.keys(body), ...Object.keys(wanted)].filter((k) => k !== 'name' && !/tags|labels/i.test(k))
  );
  return [...keys].every((k) =>
    typeof wanted[k] === 'number' && typeof body[k] === 'number'
      ? (body[k] as number) >= (wanted[k] as number)
      : JSON.stringify(body[k]) === JSON.stringify(wanted[k])
  );
}

interface Candidate {
  entry: LedgerEntry;
  created?: Exchange;
  body?: Body;
}

/**
 * The run's own VMs of the primary organization (the shared fixture VM never): with `wanted`, those at least as large,
 * the same shape first; then the caller's own; then newest first.
 */
function candidates(ctx: CheckContext, wanted: Body | undefined): Candidate[] {
  const fixtureName = ctx.objects.vmName('vm1');
  const ours: Candidate[] = ctx.ledger.entries
    .filter((e) => e.kind === 'vm' && e.cleanup === 'pending' && !e.owner && e.name !== fixtureName)
    .map((entry) => {
      const created = creatingExchange(ctx.log, entry);
      return { entry, created, body: created && bodyOf(created) };
    })
    .filter((c) => wanted === undefined || (c.body !== undefined && covers(c.body, wanted)));
  const same = (c: Candidate) =>
    Number(wanted !== undefined && c.body !== undefined && shapeOf(c.body) === shapeOf(wanted));
  const own = (c: Candidate) => Number(c.entry.createdBy === ctx.checkId);
  const seq = (c: Candidate) => c.created?.seq ?? -1;
  return ours.sort((a, b) => same(b) - same(a) || own(b) - own(a) || seq(b) - seq(a));
}

/** Ids of the entries that lack one, learnt by name from the list (its filter or ends find them on a long list too). */
async function learnIds(ctx: CheckContext, entries: LedgerEntry[]): Promise<void> {
  const few = entries.filter((e) => !e.id && e.name).slice(0, 20);
  if (few.length === 0) return;
  const { matches } = await ctx.objects.findInList(few.map((e) => e.name!));
  for (const m of matches) {
    const entry = few.find((e) => e.name === m['name']);
    if (entry && typeof m['id'] === 'string') entry.id = m['id'];
  }
}

/** Waits for a VM's create task to end (found from the answer that created it); false when none could be found. */
async function createTaskEnded(ctx: CheckContext, created: Exchange | undefined): Promise<boolean> {
  if (!created) return false;
  try {
    const task = await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm);
    await ctx.objects.pollTask(task.id);
    return true;
  } catch (err) {
    if (err instanceof Unavailable) return false;
    throw err;
  }
}

/** The delete's own task, where it names one: the room is there once it ends. */
async function deleteTaskEnded(ctx: CheckContext, deleted: Exchange): Promise<void> {
  try {
    await ctx.objects.pollTask((await ctx.objects.findTask(deleted, undefined)).id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
}

/**
 * Deletes one VM: at once, or once it is no longer busy. A refusal for its state (a 409, say) is waited out on its
 * create task, else on a few pauses within the task timeout, and the delete sent again each time.
 */
async function deleteWhenIdle(
  ctx: CheckContext,
  target: Candidate,
  attempts: Exchange[]
): Promise<{ deleted?: Exchange; waited?: string; stop?: string; noOperation?: boolean }> {
  const del = ctx.declarations.cleanup.vm ?? { method: 'DELETE', path: '/v1/vms/{id}' };
  const send = async () => {
    const ex = await ctx.call({
      method: del.method,
      path: del.path.replace('{id}', encodeURIComponent(target.entry.id!)),
    });
    attempts.push(ex);
    return ex;
  };
  let ex = await send();
  if (isSuccess(ex)) return { deleted: ex };
  const status = ex.response?.status;
  if (status === undefined || status >= 500)
    return { stop: `deleting ${target.entry.name} answered ${describeExchange(ex)}` };
  if (NO_OPERATION.has(status))
    return {
      stop: `deleting ${target.entry.name} answered ${describeExchange(ex)}: the seed shows no delete operation; declare one with x-cleanup-for`,
      noOperation: true,
    };
  if (NOT_ALLOWED.has(status) || status === 404 || status === 429) return {};
  // Refused for the VM's state: its create may still be under way.
  if (await createTaskEnded(ctx, target.created)) {
    ex = await send();
    if (isSuccess(ex)) return { deleted: ex, waited: `its create task to end (the first delete answered ${status})` };
    return {};
  }
  const deadline = Date.now() + taskTimeoutRealMs(ctx.config);
  for (let pause = 2; Date.now() < deadline; pause *= 2) {
    await ctx.sleepTarget(Math.min(pause, ctx.config.taskTimeoutSeconds), `${target.entry.name} to take a delete`);
    ex = await send();
    if (isSuccess(ex)) return { deleted: ex, waited: `a while (the first delete answered ${status})` };
    if (ex.response?.status !== status) return {};
  }
  return {};
}

/**
 * Deletes one of the run's VMs to make room for one more create, and waits for the delete's task. With `wanted` (a
 * create body), a VM at least as large is deleted where the run holds one: the room freed is then one create of its
 * body, whatever the target counts (VMs, vCPUs, memory, disk). Without such a VM, any of the run's is.
 */
export async function makeRoom(ctx: CheckContext, wanted?: Body): Promise<Room> {
  let list = candidates(ctx, wanted);
  const sized = list.length > 0 && wanted !== undefined;
  if (list.length === 0) list = candidates(ctx, undefined);
  const attempts: Exchange[] = [];
  if (list.length === 0) return { why: 'the run holds no VM of its own besides the shared one', attempts };
  await learnIds(
    ctx,
    list.map((c) => c.entry)
  );
  const withId = list.filter((c) => c.entry.id).slice(0, CANDIDATES);
  if (withId.length === 0) return { why: "none of the run's VMs could be found in the list to delete", attempts };
  for (const target of withId) {
    const { deleted, waited, stop, noOperation } = await deleteWhenIdle(ctx, target, attempts);
    if (stop) return { why: stop, attempts, ...(noOperation ? { noOperation } : {}) };
    if (!deleted) continue;
    target.entry.cleanup = 'deleted';
    target.entry.note = `deleted by ${ctx.checkId}, to make room for a create`;
    await deleteTaskEnded(ctx, deleted);
    const freed = sized && target.body ? { ...target.body } : undefined;
    if (freed) delete freed['name'];
    return { deleted, attempts, entry: target.entry, ...(freed ? { freed } : {}), ...(waited ? { waited } : {}) };
  }
  return {
    why: `no VM of the run's took a delete (${attempts.map(describeExchange).join('; ')})`,
    attempts,
  };
}
