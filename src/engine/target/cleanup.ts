import type { Declarations, ResourceKind } from '../../spec/declarations.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import { readLocation } from './discover.ts';
import { vmsOf, type RunObjects } from './run-objects.ts';
import { inParallel } from '../transport/in-parallel.ts';
import { Unavailable } from '../outcome/outcome.ts';

/** Deletes in flight per token: a distant target costs a round trip per few deletes (the pacer holds each budget). */
const IN_FLIGHT_PER_LANE = 2;

type Call = (o: CallOptions) => Promise<Exchange>;

/** The id of what an exchange created, where the overlay says its delete operation finds it (x-cleanup-for + link). */
export function createdId(
  declarations: Declarations,
  kind: ResourceKind,
  ex: Exchange | undefined
): string | undefined {
  const loc = declarations.cleanup[kind]?.id;
  if (!ex || !loc) return undefined;
  const v = readLocation(ex, loc);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

// Children before parents: an alarm or a backup may hold its VM.
const ORDER: ResourceKind[] = ['alarm', 'webhook', 'backup'];

/**
 * Deletes what the run created, wherever the overlay declares a delete operation for its kind; otherwise leaves a
 * note in the ledger. Ids come from the entry, else from its creating exchange (found in the log by its seq). The VM
 * deletes go over every lane the run holds a token in (at least main): none is opened just to delete.
 */
export async function cleanup(
  declarations: Declarations,
  ledger: Ledger,
  log: readonly Exchange[],
  objects: RunObjects,
  call: Call,
  lanes: readonly string[] = ['main']
): Promise<void> {
  await cleanupDependents(declarations, ledger, log, call);
  for (const e of ledger.entries.filter((x) => x.kind !== 'vm' && x.cleanup === 'pending')) {
    e.cleanup = 'not-declared';
    e.note ??= 'nothing deletes it';
  }
  await cleanupVms(declarations, ledger, objects, call, lanes, log);
}

/** The alarms, webhooks and backups, in ORDER, each kind with the delete operation the overlay declares for it. */
async function cleanupDependents(
  declarations: Declarations,
  ledger: Ledger,
  log: readonly Exchange[],
  call: Call
): Promise<void> {
  const bySeq = new Map(log.map((ex) => [ex.seq, ex]));
  for (const kind of ORDER) {
    const del = declarations.cleanup[kind];
    const pending = ledger.entries.filter((x) => x.kind === kind && x.cleanup === 'pending');
    if (!del) {
      for (const e of pending) {
        e.cleanup = 'not-declared';
        e.note ??= `the overlay declares no delete operation for a ${kind} (x-cleanup-for)`;
      }
      continue;
    }
    for (const e of pending)
      e.id ??= createdId(declarations, kind, e.createdIn !== undefined ? bySeq.get(e.createdIn) : undefined);
    await inParallel(pending, IN_FLIGHT_PER_LANE, (e) => deleteOne(e, del, call));
  }
}

/** The VMs: ids the ledger lacks learnt from the list, then each deleted by the declared (or discovered) operation. */
async function cleanupVms(
  declarations: Declarations,
  ledger: Ledger,
  objects: RunObjects,
  call: Call,
  lanes: readonly string[],
  log: readonly Exchange[] = []
): Promise<void> {
  const vms = ledger.entries.filter((e) => e.kind === 'vm' && e.cleanup === 'pending');
  if (vms.length === 0) return;
  const missing = vms.filter((e) => !e.id);
  if (missing.length) await learnVmIds(missing, objects, call);
  const withId = vms.filter((e) => e.id);
  for (const e of vms.filter((e) => !e.id)) {
    e.cleanup = 'delete-failed';
    e.note = 'its id could not be found in the list';
  }
  if (withId.length === 0) return;
  const del = await vmDeleteOperation(declarations, withId, call);
  if (!del) return;
  const queue = withId.filter((e) => e.cleanup === 'pending');
  const busy = await deleteOverLanes(queue, del, call, lanes);
  // The VM the conventional delete was discovered on, refused for its state.
  if (!declarations.cleanup.vm && withId[0]!.cleanup === 'delete-failed') busy.unshift(withId[0]!);
  await deleteOnceIdle(busy, { del, call, objects, declarations, log });
}

/** Statuses that say a delete will not be taken however long the run waits: not allowed, not there, no such operation, no budget. */
const NOT_A_STATE = new Set([401, 403, 404, 405, 429]);

/** A delete refused for the VM's state (a 409 while it is provisioning, say): it may be taken once the VM is idle. */
const refusedForState = (ex: Exchange | undefined) =>
  !!ex?.response && ex.response.status >= 400 && ex.response.status < 500 && !NOT_A_STATE.has(ex.response.status);

/** The accepted create that made a ledger entry: by its seq, else by the name it asked for. */
function creatingExchange(log: readonly Exchange[], e: LedgerEntry): Exchange | undefined {
  const bySeq = e.createdIn !== undefined ? log.find((ex) => ex.seq === e.createdIn) : undefined;
  return (
    bySeq ??
    log.find(
      (ex) =>
        ex.request.method === 'POST' &&
        isSuccess(ex) &&
        e.name !== undefined &&
        (ex.request.body ?? '').includes(JSON.stringify(e.name))
    )
  );
}

/**
 * The VMs whose delete was refused for their state: each one's create task is waited for (a VM still being
 * provisioned may refuse deletes, a state the seed does not show) and the delete sent once more. Nothing is left
 * behind for a reason that passes.
 */
async function deleteOnceIdle(
  busy: LedgerEntry[],
  d: {
    del: { method: string; path: string };
    call: Call;
    objects: RunObjects;
    declarations: Declarations;
    log: readonly Exchange[];
  }
): Promise<void> {
  await inParallel(busy, IN_FLIGHT_PER_LANE, async (e) => {
    const created = creatingExchange(d.log, e);
    try {
      if (created) await d.objects.pollTask((await d.objects.findTask(created, d.declarations.taskIdOnCreateVm)).id);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
    const before = e.note;
    const ex = await deleteOne(e, d.del, d.call);
    if (ex && !isSuccess(ex)) e.note = `${before}; again once its create task had ended: ${statusText(ex)}`;
  });
}

/** Learns ids by name from the list (bounded walk at the maximum page size, from the target's first page). */
async function learnVmIds(missing: LedgerEntry[], objects: RunObjects, call: Call): Promise<void> {
  const first = await objects.firstPage().catch(() => 1);
  for (let page = first; page < first + 30 && missing.some((e) => !e.id); page++) {
    const ex = await call({ method: 'GET', path: '/v1/vms', query: { page, per_page: 100 } }).catch(() => undefined);
    const items = ex ? vmsOf(ex) : [];
    for (const item of items) {
      const entry = missing.find((e) => !e.id && e.name === item['name'] && typeof item['id'] === 'string');
      if (entry) entry.id = item['id'] as string;
    }
    if (!ex || !isSuccess(ex) || items.length < 100) break;
  }
}

/**
 * The VM delete operation: declared, or discovered (the conventional DELETE /v1/vms/{id}, tried on one VM the run
 * created). Undefined when neither: every VM is then noted as left.
 */
async function vmDeleteOperation(
  declarations: Declarations,
  withId: LedgerEntry[],
  call: Call
): Promise<{ method: string; path: string } | undefined> {
  const declared = declarations.cleanup.vm;
  if (declared) return declared;
  const conventional = { method: 'DELETE', path: '/v1/vms/{id}' };
  const ex = await deleteOne(withId[0]!, conventional, call);
  // Refused for the VM's state (still provisioning, say): the operation is there, and this VM is deleted once idle.
  if (refusedForState(ex)) return conventional;
  if (!ex || !isSuccess(ex)) {
    for (const e of withId) {
      e.cleanup = 'not-declared';
      e.note = `the seed shows no delete operation, the overlay declares none, and DELETE /v1/vms/{id} answered ${ex ? statusText(ex) : 'nothing'}`;
    }
    return undefined;
  }
  withId[0]!.note = 'deleted with DELETE /v1/vms/{id} (discovered: the seed shows no delete operation)';
  return conventional;
}

/** Deletes the queue over every lane, IN_FLIGHT_PER_LANE at a time on each. */
async function deleteOverLanes(
  queue: LedgerEntry[],
  del: { method: string; path: string },
  call: Call,
  lanes: readonly string[]
): Promise<LedgerEntry[]> {
  // A token refused with 429 is left for the others: a budget that does not come back costs one refusal per token,
  // not a Retry-After wait per VM; with every token refused, what is left stays in the ledger, said so.
  const live = [...lanes];
  const busy: LedgerEntry[] = [];
  await inParallel(queue, lanes.length * IN_FLIGHT_PER_LANE, async (e, i) => {
    for (;;) {
      const lane = live[i % Math.max(1, live.length)];
      if (lane === undefined) {
        e.cleanup = 'delete-failed';
        e.note = 'not deleted: the write budget of every cleanup token was refused (429)';
        return;
      }
      const ex = await deleteOne(e, del, call, lane, false);
      if (refusedForState(ex)) busy.push(e);
      if (ex?.response?.status !== 429) return;
      if (live.includes(lane)) live.splice(live.indexOf(lane), 1);
    }
  });
  return busy;
}

/** Deletes one entry; a refused token (a budget that never comes back) leaves it in the ledger, never ends the run. */
async function deleteOne(
  e: LedgerEntry,
  del: { method: string; path: string },
  call: Call,
  lane?: string,
  retryOn429 = true
): Promise<Exchange | undefined> {
  if (!e.id) {
    e.cleanup = 'delete-failed';
    e.note = `${e.note ? `${e.note}; ` : ''}its id was not where the overlay says (the link to ${del.method} ${del.path})`;
    return undefined;
  }
  try {
    const ex = await call({
      method: del.method,
      path: del.path.replace('{id}', encodeURIComponent(e.id)),
      retryOn429,
      ...(e.owner ? { as: e.owner } : lane ? { lane } : {}),
    });
    e.cleanup = isSuccess(ex) ? 'deleted' : 'delete-failed';
    if (!isSuccess(ex)) e.note = `${del.method} ${del.path} answered ${statusText(ex)}`;
    return ex;
  } catch (err) {
    e.cleanup = 'delete-failed';
    e.note = `not deleted: ${(err as Error).message}`;
    return undefined;
  }
}
