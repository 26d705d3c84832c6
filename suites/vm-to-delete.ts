// One VM the primary key makes for the checks that try to delete it with a credential that must not delete it (none, a
// read-only key): auth.bearer-required and security.readonly-write-refused share it, so the run makes one VM for both,
// and their attempts go one at a time, none sent once the VM is gone.
import type { CheckContext } from '../src/engine/run/context.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import type { CallOptions } from '../src/engine/identity/call.ts';
import type { ServedOperation } from '../src/engine/target/served-operations.ts';
import type { Ledger, LedgerEntry } from '../src/engine/target/ledger.ts';
import { Unavailable } from '../src/engine/run/check.ts';
import { describeExchange, isSuccess } from './support.ts';

interface VmToDelete {
  id: string;
  entry: LedgerEntry;
  /** The attempts so far, one after another. */
  attempts: Promise<unknown>;
}

/** The run's VM to delete, per run (its ledger): made by the first check that asks. */
const perRun = new WeakMap<Ledger, Promise<VmToDelete | { why: string }>>();

/** The VM the primary key made to be deleted, once its create has finished; why there is none, otherwise. */
export function vmToDelete(ctx: CheckContext): Promise<VmToDelete | { why: string }> {
  let made = perRun.get(ctx.ledger);
  if (!made) {
    made = makeVm(ctx).catch((err: unknown) =>
      err instanceof Unavailable ? { why: err.message } : Promise.reject(err)
    );
    perRun.set(ctx.ledger, made);
  }
  return made;
}

async function makeVm(ctx: CheckContext): Promise<VmToDelete | { why: string }> {
  // After the run's VM, so it has the sizes the target accepted.
  await ctx.objects.acceptedVm();
  const { body } = ctx.objects.vmCreateBody('to-delete');
  const created = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
  if (!isSuccess(created)) return { why: `the primary key's create was refused (${describeExchange(created)})` };
  const entry = ctx.ledger.record(
    {
      kind: 'vm',
      name: String(body['name']),
      createdBy: ctx.checkId,
      note: 'for a request without a token and the read-only key to try to delete',
    },
    created
  );
  try {
    await ctx.objects.pollTask((await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm)).id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  const { matches } = await ctx.objects.findInList([String(body['name'])]);
  const id = matches[0]?.['id'];
  if (typeof id !== 'string') return { why: `the VM made for it is not in the list (${matches.length} matches)` };
  return { id, entry, attempts: Promise.resolve() };
}

/**
 * One attempt to delete the VM with a credential that must not (`who`, for the ledger), after the attempts before it;
 * not sent once the VM was deleted. A VM deleted is noted in the ledger, so cleanup leaves it.
 */
export function tryDelete(
  ctx: CheckContext,
  vm: VmToDelete,
  del: ServedOperation,
  credential: Pick<CallOptions, 'as' | 'bearer'>,
  who: string
): Promise<{ ex: Exchange } | { why: string }> {
  const attempt = vm.attempts.then(async () => {
    if (vm.entry.cleanup === 'deleted') return { why: `the VM made for it was deleted before (${vm.entry.note})` };
    const ex = await ctx.call({
      ...credential,
      method: del.method,
      path: del.path.replace(/\{[^}]+\}/, encodeURIComponent(vm.id)),
    });
    if (isSuccess(ex)) Object.assign(vm.entry, { cleanup: 'deleted', note: `deleted by ${who}` });
    return { ex };
  });
  vm.attempts = attempt.catch(() => {});
  return attempt;
}

/**
 * Whether an answer of the VM delete says nothing of the credential: the delete is only the conventional one (no
 * answer listed it, the overlay declares none) and the answer says there is no such operation (404, 405, 501).
 */
export function deleteNotOffered(del: ServedOperation, ex: Exchange): boolean {
  return !del.shown && [404, 405, 501].includes(ex.response?.status ?? 0);
}
