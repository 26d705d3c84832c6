import type { Declarations, ResourceKind } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import { retryAfterSeconds, retryWaitMs } from '../transport/retry-after.ts';
import type { Waits } from '../transport/waits.ts';
import { inParallel } from '../transport/in-parallel.ts';
import { CONVENTIONAL_VM_DELETE } from './served-operations.ts';
import type { Ledger, LedgerEntry, LedgerReport, LeftBehind } from './ledger.ts';
import { backupIdsNamedIn, declaredTotalPointer, readLocation, vmIdsNamedIn } from './discover.ts';
import { CERTIFY_MAX_WALK_PAGES, MAX_WALK_PAGES, type RunObjects } from './run-objects.ts';
import { sweepList, type Sweep } from './list-sweep.ts';
import { deleteSeenThrough, followDeleteTask, type DeleteDeps, type DeleteOp } from './deletes.ts';

/** Deletes in flight per token: a distant target costs a round trip per few deletes (the pacer holds each budget). */
const IN_FLIGHT_PER_LANE = 2;
/** Times every cleanup token may be refused (429) before what is left stays, said so: each waits the Retry-After. */
const LANE_RESTORES = 2;
/** Longest Retry-After cleanup waits, in target-seconds. */
const MAX_RETRY_AFTER_SECONDS = 65;
/** Target-seconds waited for a VM whose delete was accepted to leave the list, before looking again. */
const LEAVE_WAITS_SECONDS = [2, 5, 15, 30];
/** A status word of a listed VM that says it is gone already (some targets list a deleted VM for a while). */
const GONE = /^(deleted|terminated|destroyed|removed|gone)$/i;

type Call = (o: CallOptions) => Promise<Exchange>;
type Owner = 'primary' | 'second';

/** What cleanup needs of the run. */
interface CleanupDeps {
  declarations: Declarations;
  ledger: Ledger;
  log: readonly Exchange[];
  objects: RunObjects;
  config: Pick<RunConfig, 'runId' | 'timeScale' | 'taskTimeoutSeconds' | 'profile' | 'names'>;
  waits: Waits;
  call: Call;
  /** The lanes the run holds a token in (at least main): none is opened just to delete. */
  lanes?: readonly string[];
}

/** What cleanup leaves: the resources still on the target, and the run's last look at the list. */
export type CleanupOutcome = Omit<LedgerReport, 'entries'>;

/** The id of what an exchange created, where the overlay says its delete operation finds it (x-cleanup-for + link). */
export function createdId(
  declarations: Declarations,
  kind: ResourceKind,
  ex: Exchange | undefined
): string | undefined {
  const loc = declarations.cleanup[kind]?.id;
  if (!ex) return undefined;
  const v = loc ? readLocation(ex, loc) : undefined;
  if (typeof v === 'string' && v !== '') return v;
  // A VM's create may answer with its task's id at the top: its own is found by its name (vmIdsNamedIn), never guessed.
  return kind === 'alarm' || kind === 'webhook' ? answeredId(ex, kind) : undefined;
}

/**
 * The id a create answered with, where the overlay says nothing (or nothing there): a field named id at its top, in
 * the object named after the kind ({"webhook": {"id": …}}), or in the only object it holds that has one.
 */
function answeredId(ex: Exchange, kind: ResourceKind): string | undefined {
  const body = ex.response?.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const idOf = (o: unknown) =>
    o && typeof o === 'object' && typeof (o as Record<string, unknown>)['id'] === 'string'
      ? ((o as Record<string, unknown>)['id'] as string)
      : undefined;
  const top = body as Record<string, unknown>;
  const nested = Object.values(top).filter((v) => idOf(v) !== undefined);
  const id = idOf(top) ?? idOf(top[kind]) ?? (nested.length === 1 ? idOf(nested[0]) : undefined);
  return id !== '' ? id : undefined;
}

// Children before parents: an alarm or a backup may hold its VM.
const ORDER: ResourceKind[] = ['alarm', 'webhook', 'backup'];

/**
 * Deletes what the run created: each kind with the delete operation the overlay declares (the VMs' discovered where
 * not), retried while the target says the resource is not ready, over every lane the run holds. Then it looks at the
 * list once more for every VM named cc-<run id>-… and returns what is still there (and what no delete could remove).
 */
export async function cleanup(d: CleanupDeps): Promise<CleanupOutcome> {
  const bySeq = new Map(d.log.map((ex) => [ex.seq, ex]));
  const deps: DeleteDeps = {
    call: d.call,
    objects: d.objects,
    declarations: d.declarations,
    config: d.config,
    waits: d.waits,
    createdIn: (e) => (e.createdIn !== undefined ? bySeq.get(e.createdIn) : undefined),
  };
  const lanes = d.lanes?.length ? d.lanes : ['main'];
  await cleanupDependents(d, deps, lanes);
  for (const e of d.ledger.entries.filter((x) => x.kind !== 'vm' && x.cleanup === 'pending')) {
    e.cleanup = 'not-declared';
    e.note ??= 'nothing deletes it';
  }
  const sweeps: NonNullable<CleanupOutcome['sweeps']> = [];
  const leftBehind: LeftBehind[] = [];
  for (const owner of ownersWithVms(d)) {
    const { sweep, del } = await cleanupVms(d, deps, lanes, owner);
    if (sweep)
      sweeps.push({
        owner,
        scope: sweep.scope,
        complete: sweep.complete,
        stoppedBecause: sweep.stoppedBecause,
        found: sweep.matches.length,
      });
    leftBehind.push(...vmsLeft(d, owner, sweep, del));
  }
  leftBehind.unshift(...othersLeft(d));
  return { leftBehind, sweeps };
}

/** The organizations the run sent VM creates in (whatever came back): their lists are swept. */
function ownersWithVms(d: CleanupDeps): Owner[] {
  const creates = d.log.filter(
    (ex) => ex.request.method === 'POST' && /\/v1\/vms$/.test(new URL(ex.request.url).pathname)
  );
  const owners: Owner[] = [];
  if (creates.some((ex) => ex.caller !== 'second') || d.ledger.entries.some((e) => e.kind === 'vm' && !e.owner))
    owners.push('primary');
  if (creates.some((ex) => ex.caller === 'second') || d.ledger.entries.some((e) => e.kind === 'vm' && e.owner))
    owners.push('second');
  return owners;
}

/** The alarms, webhooks and backups, in ORDER, each kind with the delete operation the overlay declares for it. */
async function cleanupDependents(d: CleanupDeps, deps: DeleteDeps, lanes: readonly string[]): Promise<void> {
  for (const kind of ORDER) {
    const pending = d.ledger.entries.filter((x) => x.kind === kind && x.cleanup === 'pending');
    const del =
      d.declarations.cleanup[kind] ?? (kind === 'backup' ? await backupDeleteOperation(pending, deps) : undefined);
    if (!del) {
      for (const e of pending.filter((x) => x.cleanup === 'pending')) {
        e.cleanup = 'not-declared';
        const tried = e.id ? ', and DELETE /v1/backups/{id} was not accepted' : ', and its start answer named no id';
        e.note = `${e.note ? `${e.note}; ` : ''}not deleted: the overlay declares no delete operation for a ${kind} (x-cleanup-for)${kind === 'backup' ? tried : ''}`;
      }
      continue;
    }
    for (const e of pending.filter((x) => x.cleanup === 'pending')) {
      e.id ??= createdId(d.declarations, kind, deps.createdIn(e));
      if (!e.id) {
        e.cleanup = 'delete-failed';
        e.note = `${e.note ? `${e.note}; ` : ''}its id was not where the overlay says (the link to ${del.method} ${del.path})`;
      }
    }
    const queue = pending.filter((e) => e.id && e.cleanup === 'pending');
    await deleteOverLanes(queue, del, deps, lanes, async (e, answer, lane) => {
      await followDeleteTask(e, answer, deps, lane);
    });
  }
}

/**
 * A backup delete where the overlay declares none (the seed shows none): the conventional DELETE /v1/backups/{id},
 * tried on a backup whose id its start answer names (backup_id, a backup object, a Location path); used for all
 * when the target accepts it. Undefined when it does not, or no backup's id is known.
 */
async function backupDeleteOperation(pending: LedgerEntry[], deps: DeleteDeps): Promise<DeleteOp | undefined> {
  const own = pending.filter((x) => !x.owner);
  const named = new Map(own.map((e) => [e, backupIdsNamedIn(deps.createdIn(e))]));
  const first = own.find((e) => e.id || named.get(e)!.length);
  if (!first) return undefined;
  const conventional = { method: 'DELETE', path: '/v1/backups/{id}' };
  // Each place the first backup's answer names an id, until the target deletes one: that place names the others'.
  const tries = first.id ? [{ where: undefined, id: first.id }] : named.get(first)!;
  let deleted: { where: string | undefined; ex: Exchange } | undefined;
  for (const t of tries) {
    first.id = t.id;
    const ex = await deleteWaitingOut429(first, conventional, deps);
    if (ex && isSuccess(ex)) {
      deleted = { where: t.where, ex };
      break;
    }
    // Nothing was deleted: the entry is as it was, for the note every pending backup gets.
    first.cleanup = 'pending';
  }
  for (const e of own)
    if (e !== first) e.id ??= (named.get(e)!.find((n) => n.where === deleted?.where) ?? named.get(e)![0])?.id;
  if (!deleted) {
    first.id = tries[0]!.id;
    return undefined;
  }
  const ex = deleted.ex;
  first.note = `${first.note ? `${first.note}; ` : ''}deleted with DELETE /v1/backups/{id} (discovered: the seed shows no delete operation)`;
  await followDeleteTask(first, ex, deps);
  return conventional;
}

/**
 * The VMs of one organization: ids from the ledger, else from the answer that created each (vm_id, the VM record, a
 * VM path), then deleted; the list is then swept for the run's prefix, and whatever it still shows is matched to the
 * ledger by id or name (a VM the ledger lacks is added) and deleted in turn. A VM whose delete was accepted and is
 * still listed has its delete task followed, and the list is looked at again after a wait, a few times at most.
 */
async function cleanupVms(
  d: CleanupDeps,
  deps: DeleteDeps,
  lanes: readonly string[],
  owner: Owner
): Promise<{ sweep?: Sweep; del?: DeleteOp }> {
  const mine = (e: LedgerEntry) => e.kind === 'vm' && (e.owner ?? 'primary') === owner;
  for (const e of d.ledger.entries.filter((x) => mine(x) && x.cleanup === 'pending' && !x.id))
    e.id = createdId(d.declarations, 'vm', deps.createdIn(e)) ?? vmIdsNamedIn(deps.createdIn(e), e.name ?? '')[0]?.id;
  const state: VmCleanup = { accepted: new Map(), followed: new Set(), tried: false };
  let sweep: Sweep | undefined;
  for (let round = 0; ; round++) {
    const sent = await deleteReady(d, deps, owner === 'primary' ? lanes : ['main'], state, mine);
    // A moment for accepted deletes to take effect before the list is read.
    if (sent) await settle(d, LEAVE_WAITS_SECONDS[0]!, 'VMs whose delete was just accepted to leave the list');
    sweep = await sweepOwn(d, owner);
    const listed = matchListed(d, sweep, owner, state.accepted);
    const leaving = listed.leaving;
    // What neither its create answer nor the list named: its create task may (once each).
    const vouched = sweep.complete;
    const unseen = (e: LedgerEntry) => mine(e) && (!vouched || !e.name?.startsWith(`cc-${d.config.runId}-`));
    const work = listed.work || (await idsFromTasks(d, deps, unseen, state));
    if ((!work && !leaving.length) || round >= LEAVE_WAITS_SECONDS.length) break;
    // Deletes accepted and still listed: their tasks are followed (where the delete answered one), else waited for.
    const unfollowed = leaving.filter((e) => !state.followed.has(e));
    for (const e of unfollowed) state.followed.add(e);
    const ended = await inParallel(unfollowed, lanes.length * IN_FLIGHT_PER_LANE, (e) =>
      followDeleteTask(e, state.accepted.get(e)!, deps)
    );
    if (!work && (unfollowed.length === 0 || ended.includes(false)))
      await settle(d, LEAVE_WAITS_SECONDS[round]!, `${leaving.length} VMs whose delete was accepted to leave the list`);
  }
  const prefix = `cc-${d.config.runId}-`;
  for (const e of d.ledger.entries.filter((x) => mine(x) && x.cleanup === 'pending')) {
    e.cleanup = 'delete-failed';
    e.note =
      sweep?.complete && e.name?.startsWith(prefix)
        ? `not in the list, read whole: nothing to delete (gone, or never made: its create's task may have failed)`
        : state.del
          ? `its id could not be learnt: neither its create answer nor ${sweep?.scope ?? 'the list'} named it (${sweep?.stoppedBecause ?? 'not walked'})`
          : (e.note ?? 'no delete operation for a VM is declared or answers');
  }
  return { sweep, del: state.del };
}

/** What VM cleanup carries from round to round: accepted deletes, the tasks followed, the delete operation. */
interface VmCleanup {
  accepted: Map<LedgerEntry, Exchange>;
  followed: Set<LedgerEntry>;
  del?: DeleteOp;
  /** The delete operation was looked for (a VM delete neither declared nor discovered is not looked for again). */
  tried: boolean;
  /** Entries whose create task was asked for the VM's id. */
  asked?: Set<LedgerEntry>;
}

/**
 * The ids of pending VMs the list cannot vouch for (not read whole, or a name without the run's prefix) that their
 * create answer did not name either, read off their create task's record
 * (resource_id, target.id, a VM path), each task asked once; true when one was learnt.
 */
async function idsFromTasks(
  d: CleanupDeps,
  deps: DeleteDeps,
  mine: (e: LedgerEntry) => boolean,
  state: VmCleanup
): Promise<boolean> {
  state.asked ??= new Set();
  let learnt = false;
  for (const e of d.ledger.entries.filter((x) => mine(x) && x.cleanup === 'pending' && !x.id && !x.owner)) {
    const created = deps.createdIn(e);
    if (!created || state.asked.has(e)) continue;
    state.asked.add(e);
    try {
      const task = await d.objects.findTask(created, d.declarations.taskIdOnCreateVm);
      e.id = vmIdsNamedIn(task.confirmation, e.name ?? '')[0]?.id;
      learnt ||= e.id !== undefined;
    } catch {
      // No task, or none that names its VM: the entry stays without an id, said so.
    }
  }
  return learnt;
}

/** Deletes every pending VM of the organization whose id is known; how many were sent. */
async function deleteReady(
  d: CleanupDeps,
  deps: DeleteDeps,
  lanes: readonly string[],
  state: VmCleanup,
  mine: (e: LedgerEntry) => boolean
): Promise<number> {
  const ready = d.ledger.entries.filter((e) => mine(e) && e.cleanup === 'pending' && e.id);
  if (!ready.length) return 0;
  if (!state.tried) {
    state.tried = true;
    state.del = await vmDeleteOperation(d.declarations, ready, deps, (e, answer) => state.accepted.set(e, answer));
  }
  const del = state.del;
  if (!del) {
    for (const e of ready) {
      e.cleanup = 'not-declared';
      e.note ??= 'the seed shows no delete operation, and none is declared or answers';
    }
    return 0;
  }
  await deleteOverLanes(
    ready.filter((e) => e.cleanup === 'pending'),
    del,
    deps,
    lanes,
    (e, answer) => void state.accepted.set(e, answer)
  );
  return ready.length;
}

/** Waits target-seconds for the list to catch up. */
function settle(d: CleanupDeps, seconds: number, what: string): Promise<void> {
  return d.waits.sleep((seconds * 1000) / d.config.timeScale, what, 'cleanup', 'list-settle');
}

/** A sweep of the organization's list for the run's prefix: the whole list within the profile's bound. */
function sweepOwn(d: CleanupDeps, owner: Owner): Promise<Sweep> {
  return sweepList(d.call, {
    prefix: `cc-${d.config.runId}-`,
    as: owner,
    maxPages: d.config.profile === 'certify' ? CERTIFY_MAX_WALK_PAGES : MAX_WALK_PAGES,
    totalPointer: declaredTotalPointer(d.declarations.totalField),
  });
}

/**
 * Matches what the sweep still lists to the ledger: an entry without an id gets the listed one; a VM the ledger lacks
 * is added (an answer lost on the way); an entry whose delete was accepted is leaving. `work` says deletes are due.
 */
function matchListed(
  d: CleanupDeps,
  sweep: Sweep,
  owner: Owner,
  accepted: ReadonlyMap<LedgerEntry, Exchange>
): { work: boolean; leaving: LedgerEntry[] } {
  let work = false;
  const leaving: LedgerEntry[] = [];
  const vms = d.ledger.entries.filter((e) => e.kind === 'vm' && (e.owner ?? 'primary') === owner);
  for (const item of sweep.matches) {
    const id = typeof item['id'] === 'string' ? item['id'] : undefined;
    const name = String(item['name']);
    const entry =
      vms.find((e) => id !== undefined && e.id === id) ??
      vms.find((e) => e.name === name && !e.id && e.cleanup === 'pending');
    if (!entry) {
      if (!id || GONE.test(String(item['status'] ?? ''))) continue;
      const added = d.ledger.record({
        kind: 'vm',
        id,
        name,
        createdBy: 'cleanup',
        ...(owner === 'second' ? { owner } : {}),
        note: `found in the list by its name (cc-${d.config.runId}-…): the run holds no accepted create of it (an answer lost on the way?)`,
      });
      vms.push(added);
      work = true;
    } else if (entry.cleanup === 'pending' && !entry.id && id) {
      entry.id = id;
      work = true;
    } else if (accepted.has(entry) && entry.cleanup === 'deleted' && !GONE.test(String(item['status'] ?? '')))
      leaving.push(entry);
  }
  return { work, leaving };
}

/**
 * The VM delete operation: declared, or discovered (the conventional DELETE /v1/vms/{id}, tried on the run's VMs, a
 * few at most, until one is accepted). Undefined when neither: every VM is then noted as left.
 */
async function vmDeleteOperation(
  declarations: Declarations,
  withId: LedgerEntry[],
  deps: DeleteDeps,
  onAccepted: (e: LedgerEntry, answer: Exchange) => void
): Promise<DeleteOp | undefined> {
  const declared = declarations.cleanup.vm;
  if (declared) return declared;
  const conventional = CONVENTIONAL_VM_DELETE;
  let ex: Exchange | undefined;
  for (const e of withId.slice(0, 3)) {
    ex = await deleteWaitingOut429(e, conventional, deps);
    if (ex && isSuccess(ex)) {
      e.note = 'deleted with DELETE /v1/vms/{id} (discovered: the seed shows no delete operation)';
      onAccepted(e, ex);
      return conventional;
    }
    // 405 or 501: the operation is not there; a 404 may be this VM's alone.
    if (ex?.response?.status !== 404) break;
  }
  const refused = ex?.response?.status === 429;
  for (const e of withId) {
    e.cleanup = refused ? 'delete-failed' : 'not-declared';
    e.note = refused
      ? `not deleted: DELETE /v1/vms/{id} answered 429 after its Retry-After was waited out ${LANE_RESTORES} times`
      : `the seed shows no delete operation, the overlay declares none, and DELETE /v1/vms/{id} answered ${ex ? statusText(ex) : 'nothing'}`;
  }
  return undefined;
}

/**
 * Deletes the queue over every lane, IN_FLIGHT_PER_LANE at a time on each. A token refused with 429 is left for the
 * others; with every token refused, cleanup waits the last Retry-After and tries them all again, LANE_RESTORES times at
 * most, before what is left stays in the ledger, said so.
 */
async function deleteOverLanes(
  queue: LedgerEntry[],
  del: DeleteOp,
  deps: DeleteDeps,
  lanes: readonly string[],
  onAccepted: (e: LedgerEntry, answer: Exchange, lane: string) => Promise<void> | void
): Promise<void> {
  const live = [...lanes];
  let restores = 0;
  let restoring: Promise<void> | undefined;
  let lastRefusal: Exchange | undefined;
  await inParallel(queue, lanes.length * IN_FLIGHT_PER_LANE, async (e, i) => {
    for (;;) {
      const lane = live[i % Math.max(1, live.length)];
      if (lane === undefined) {
        if (restores >= LANE_RESTORES && !restoring) {
          e.cleanup = 'delete-failed';
          e.note = `not deleted: the write budget of every cleanup token was refused (429), ${LANE_RESTORES + 1} times`;
          return;
        }
        restoring ??= waitOutRefusal(deps, lastRefusal).then(() => {
          restores++;
          live.push(...lanes);
          restoring = undefined;
        });
        await restoring;
        continue;
      }
      const ex = await deleteSeenThrough(e, del, deps, lane);
      if (ex && isSuccess(ex)) await onAccepted(e, ex, lane);
      if (ex?.response?.status !== 429) return;
      lastRefusal = ex;
      if (live.includes(lane)) live.splice(live.indexOf(lane), 1);
    }
  });
}

/**
 * One delete whose answer decides whether an operation exists: a 429 says nothing of that, so it is waited out as its
 * Retry-After says and sent again, LANE_RESTORES times at most.
 */
async function deleteWaitingOut429(e: LedgerEntry, op: DeleteOp, deps: DeleteDeps): Promise<Exchange | undefined> {
  let ex = await deleteSeenThrough(e, op, deps);
  for (let i = 0; i < LANE_RESTORES && ex?.response?.status === 429; i++) {
    await waitOutRefusal(deps, ex);
    ex = await deleteSeenThrough(e, op, deps);
  }
  return ex;
}

/** Waits the Retry-After of a refusal (bounded), as the target asked. */
async function waitOutRefusal(deps: DeleteDeps, refusal: Exchange | undefined): Promise<void> {
  const seconds = refusal ? retryAfterSeconds(refusal, deps.config.timeScale) : 1;
  await deps.waits.sleep(
    retryWaitMs(seconds, 1, deps.config.timeScale, MAX_RETRY_AFTER_SECONDS),
    'the Retry-After of a refused delete (every cleanup token was refused)',
    'cleanup',
    'retry-after'
  );
}

/**
 * The VMs of one organization still on the target: what the last sweep lists (a VM whose status says gone is not), and
 * every entry not deleted that the sweep cannot vouch for: its list was not read whole, or its name lacks the prefix.
 */
function vmsLeft(d: CleanupDeps, owner: Owner, sweep: Sweep | undefined, del: DeleteOp | undefined): LeftBehind[] {
  const prefix = `cc-${d.config.runId}-`;
  const vms = d.ledger.entries.filter((e) => e.kind === 'vm' && (e.owner ?? 'primary') === owner);
  // Where no delete was declared or accepted, the conventional one is what a person would try.
  const op = del ?? CONVENTIONAL_VM_DELETE;
  const deleting = (id: string) => ({
    delete: { method: op.method, path: op.path.replace('{id}', encodeURIComponent(id)) },
  });
  const left: LeftBehind[] = [];
  for (const item of sweep?.matches ?? []) {
    if (GONE.test(String(item['status'] ?? ''))) continue;
    const id = typeof item['id'] === 'string' ? item['id'] : undefined;
    const entry = vms.find((e) => id !== undefined && e.id === id) ?? vms.find((e) => e.name === item['name']);
    const status = item['status'] !== undefined ? ` (status ${String(item['status'])})` : '';
    left.push({
      kind: 'vm',
      ...(id ? { id } : {}),
      name: String(item['name']),
      reason:
        entry?.cleanup === 'deleted'
          ? `its delete was accepted, and the list still shows it${status}${entry.note ? `: ${entry.note}` : ''}`
          : `${entry?.note ?? 'still listed'}${status}`,
      owner,
      listed: true,
      ...(id ? deleting(id) : {}),
    });
  }
  const vouched = (e: LedgerEntry) => !!sweep?.complete && !!e.name?.startsWith(prefix);
  for (const e of vms.filter((x) => x.cleanup !== 'deleted' && !vouched(x))) {
    if (left.some((l) => (e.id !== undefined && l.id === e.id) || (e.name !== undefined && l.name === e.name)))
      continue;
    const why = sweep?.complete
      ? "its name lacks the run's prefix, so the list cannot show whether it is still there"
      : `the list could not be read whole to see whether it is still there (${sweep?.stoppedBecause ?? 'not walked'})`;
    left.push({
      kind: 'vm',
      ...(e.id ? { id: e.id } : {}),
      ...(e.name !== undefined ? { name: e.name } : {}),
      reason: `${e.note ?? e.cleanup}; ${why}`,
      owner,
      listed: false,
      ...(e.id ? deleting(e.id) : {}),
    });
  }
  return left;
}

/** The backups, webhooks and alarms not deleted: there is no list of them in the seed, so the ledger says what is left. */
function othersLeft(d: CleanupDeps): LeftBehind[] {
  return d.ledger.entries
    .filter((e) => e.kind !== 'vm' && e.kind !== 'api-key-revoked' && e.cleanup !== 'deleted')
    .map((e) => {
      const kind = e.kind as LeftBehind['kind'];
      const del = d.declarations.cleanup[kind];
      return {
        kind,
        ...(e.id ? { id: e.id } : {}),
        ...(e.name ? { name: e.name } : {}),
        reason: e.note ?? (e.cleanup === 'pending' ? 'not deleted' : e.cleanup),
        owner: e.owner ?? 'primary',
        ...(e.id && del
          ? { delete: { method: del.method, path: del.path.replace('{id}', encodeURIComponent(e.id)) } }
          : {}),
      };
    });
}
