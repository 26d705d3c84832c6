// One delete of something the run created, seen through: a refusal while the resource is still being made is retried
// once its task ends (or after a bounded wait), a 429 is left to the caller's lanes, and a task the delete answers
// is followed where the caller asks.
import type { Declarations } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import { isSuccess, statusText, type Exchange } from '../transport/exchange.ts';
import type { Waits } from '../transport/waits.ts';
import type { LedgerEntry } from './ledger.ts';
import type { RunObjects } from './run-objects.ts';

export interface DeleteOp {
  method: string;
  path: string;
}

/** What a delete needs of the run: the call, the task poller, the clock and waits, and the log the creates are in. */
export interface DeleteDeps {
  call(o: CallOptions): Promise<Exchange>;
  objects: RunObjects;
  declarations: Declarations;
  config: Pick<RunConfig, 'timeScale' | 'taskTimeoutSeconds' | 'names'>;
  waits: Waits;
  /** The exchange that created an entry, by its seq. */
  createdIn(e: LedgerEntry): Exchange | undefined;
}

/** Target-seconds waited before each retry of a delete refused as "not now" (its create's task could not be followed). */
const BUSY_WAITS_SECONDS = [2, 5, 15, 30, 60];
/** Words of a 4xx that refuses a delete for the resource's state, not for the request. */
const BUSY_WORDS =
  /provision|pending|progress|not ready|busy|creating|building|being (created|made|deleted)|state|locked|try again|retry/i;

const errorText = (ex: Exchange): string => {
  const e = (ex.response?.json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return `${String(e?.code ?? '')} ${String(e?.message ?? '')} ${typeof ex.response?.json === 'object' ? '' : (ex.response?.body ?? '')}`;
};

/** A refusal for the resource's state (still being made): 409, 423, 425, or another 4xx whose error says so. */
function refusedAsBusy(ex: Exchange): boolean {
  const s = ex.response?.status ?? 0;
  if ([409, 423, 425].includes(s)) return true;
  return s >= 400 && s < 500 && ![401, 403, 404, 405, 429].includes(s) && BUSY_WORDS.test(errorText(ex));
}

const pathFor = (del: DeleteOp, id: string) => del.path.replace('{id}', encodeURIComponent(id));

/**
 * Sends the delete and sees it through: refused as busy, it is sent again once the entry's create task has ended (found
 * in its create answer), else after growing waits, up to BUSY_WAITS_SECONDS. Marks the entry deleted on a 2xx and
 * delete-failed otherwise (a 429 is returned for the caller to try another lane). Returns the last answer.
 */
export async function deleteSeenThrough(
  e: LedgerEntry,
  del: DeleteOp,
  d: DeleteDeps,
  lane?: string
): Promise<Exchange | undefined> {
  if (!e.id) return undefined;
  let createTaskWaited = false;
  for (let attempt = 0; ; attempt++) {
    let ex: Exchange;
    try {
      ex = await d.call({
        method: del.method,
        path: pathFor(del, e.id),
        retryOn429: false,
        ...(e.owner ? { as: e.owner } : lane ? { lane } : {}),
      });
    } catch (err) {
      e.cleanup = 'delete-failed';
      e.note = `not deleted: ${(err as Error).message}`;
      return undefined;
    }
    if (isSuccess(ex)) {
      e.cleanup = 'deleted';
      return ex;
    }
    if (ex.response?.status === 429) return ex;
    const busy = refusedAsBusy(ex) && attempt < BUSY_WAITS_SECONDS.length;
    if (!busy) {
      e.cleanup = 'delete-failed';
      e.note = `${del.method} ${del.path} answered ${statusText(ex)}${attempt ? ` (after ${attempt} retries of a refusal for its state)` : ''}`;
      return ex;
    }
    if (!createTaskWaited) {
      createTaskWaited = true;
      if (await createTaskEnded(e, d, lane)) continue;
    }
    await d.waits.sleep(
      (BUSY_WAITS_SECONDS[attempt]! * 1000) / d.config.timeScale,
      `a ${e.kind} the target would not delete yet (${statusText(ex)}) to be ready`,
      'cleanup',
      'target-time'
    );
  }
}

/** Follows the task of the entry's create to its end, where its create answer names one; true when it ended. */
async function createTaskEnded(e: LedgerEntry, d: DeleteDeps, lane?: string): Promise<boolean> {
  const created = d.createdIn(e);
  if (!created || e.owner) return false;
  try {
    const task = await d.objects.findTask(created, e.kind === 'vm' ? d.declarations.taskIdOnCreateVm : undefined, {
      lane,
    });
    return !(await d.objects.pollTask(task.id, { lane })).timedOut;
  } catch {
    // No task found, or no token to ask with: the bounded waits stand in.
    return false;
  }
}

/**
 * Follows the task a delete answered, where it answered one (a 202 with a task id the target confirms): a task that
 * ends failed leaves the entry delete-failed; one still running at the task timeout is said in its note. True when a
 * task was followed to its end.
 */
export async function followDeleteTask(
  e: LedgerEntry,
  answer: Exchange,
  d: DeleteDeps,
  lane?: string
): Promise<boolean> {
  if (answer.response?.status !== 202 || e.owner) return false;
  try {
    const task = await d.objects.findTask(answer, undefined, { lane });
    const outcome = await d.objects.pollTask(task.id, { lane });
    if (outcome.state.success === false) {
      e.cleanup = 'delete-failed';
      e.note = `its delete was accepted, and its task ${task.id} ended ${outcome.state.value}`;
    } else if (outcome.timedOut)
      e.note = `its delete was accepted; its task ${task.id} had not ended after ${d.config.names.taskTimeout} ${d.config.taskTimeoutSeconds} s`;
    return !outcome.timedOut;
  } catch {
    // No task found, or no token to ask with: the list says whether the VM went.
    return false;
  }
}
