import type { CheckContext } from '../src/engine/run/context.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import { isSuccess, statusText } from '../src/engine/transport/exchange.ts';
import { Unavailable } from '../src/engine/run/check.ts';
import { declaredTotalPointer } from '../src/engine/target/discover.ts';
import { CHECK_CREATES } from '../src/engine/target/certify.ts';
import type { ObservedCase } from '../src/engine/outcome/observations.ts';
import type { CallOptions } from '../src/engine/identity/call.ts';

export { isSuccess, statusText };

/** Coverage requests run on their own token, so they never eat the other checks' write budget. */
export const GENERATED_LANE = 'generated';

/** An exchange the target accepted although it should have been refused (any 2xx). Transport failures are not acceptance. */
export function wasAccepted(ex: Exchange): boolean {
  return isSuccess(ex);
}

/** Error code of an error object, if the body carries one. */
export function errorCode(ex: Exchange): string | undefined {
  const body = ex.response?.json as { error?: { code?: unknown } } | undefined;
  return typeof body?.error?.code === 'string' ? body.error.code : undefined;
}

/**
 * Where the run knows the organization is near its VM quota: why `need` more creates would take the room the quota
 * probe (vms.quota-refusal), the run's own VM and the other checks' creates need, and race them for the last of it, so
 * that which check got it would change from run to run. Known from the overlay's declaration, or from certify meeting
 * the quota while filling the list (it gives back at most QUOTA_RESERVE VMs' room, fewer than CHECK_CREATES). Undefined
 * where there is room, or the quota is not known.
 */
export async function nearKnownQuota(ctx: CheckContext, need: number): Promise<string | undefined> {
  const plan = ctx.certify?.plan;
  if (plan && plan.deleted < CHECK_CREATES)
    return `filling the list met the organization's VM quota (${plan.stoppedBy}) and certify gave back the room of ${plan.deleted} VMs, less than the ${CHECK_CREATES} the checks may create: this check's ${need} create${need === 1 ? '' : 's'} give way to the checks whose creates judge the create itself and the quota`;
  const quota = ctx.declarations.vmQuota;
  if (quota === undefined) return undefined;
  const { size } = await ctx.objects.listScale();
  // The run's VM and the quota probe's first create come first.
  if (size === undefined || quota - size >= need + 2) return undefined;
  return `the overlay declares a quota of ${quota} VMs and the organization holds ${size}: ${need} more creates would take the room the run's VM and the quota probe need`;
}

/**
 * A create refused for want of room or rate (quota_exceeded, or 429): what it says is the organization's state, not
 * the request's values, so an input-class check has not tried the class it carried.
 */
export function refusedForRoom(ex: Exchange | undefined): boolean {
  return !!ex?.response && (ex.response.status === 429 || errorCode(ex) === 'quota_exceeded');
}

/** Refusals the seed documents for a valid request: a quota (quota_exceeded) or a rate limit. */
export function documentedRefusal(ex: Exchange): string | undefined {
  if (errorCode(ex) === 'quota_exceeded') return 'quota_exceeded';
  if (ex.response?.status === 429) return 'rate limit';
  return undefined;
}

export function describeExchange(ex: Exchange): string {
  return `${ex.request.method} ${new URL(ex.request.url).pathname}${new URL(ex.request.url).search} → ${statusText(ex)}`;
}

/**
 * Where the VM list's total sits, if the overlay declares it (x-total-count). A check without a declaration finds it on
 * its own pages: it reads no other check's finding, so it does not depend on the order checks run in.
 */
export function declaredTotalPointerOf(ctx: CheckContext): string | undefined {
  return declaredTotalPointer(ctx.declarations.totalField);
}

/** Exchanges in the run's log that a predicate selects (checks that review the whole run). */
export function fromLog(ctx: CheckContext, pred: (ex: Exchange) => boolean): Exchange[] {
  return ctx.log.filter((ex) => ex.response !== undefined && pred(ex));
}

export function pathOf(ex: Exchange): string {
  return new URL(ex.request.url).pathname;
}

/**
 * A backup of the run's VM started, after the run's previous long-running operation there has ended (a target may run
 * one at a time per VM: RunObjects.onVm). `as` and framing as for any call.
 */
export function backupOnVm(
  ctx: CheckContext,
  vmId: string,
  opts: Omit<CallOptions, 'method' | 'path'>
): Promise<Exchange> {
  const path = `/v1/vms/${encodeURIComponent(vmId)}/backups`;
  return ctx.objects.onVm(
    vmId,
    () => ctx.call({ method: 'POST', path, ...opts }),
    ctx.declarations.taskIdOnStartBackup
  );
}

/** A restore of a backup of the run's VM (restored onto it), sent as backupOnVm sends a backup. */
export async function restoreOnVm(
  ctx: CheckContext,
  backupId: string,
  opts: Omit<CallOptions, 'method' | 'path'> = { json: {} }
): Promise<Exchange> {
  const restore = ctx.declarations.restoreBackup;
  if (!restore)
    throw new Unavailable('the overlay declares no restore (x-restores)', 'declare x-restores in --overlay');
  const path = restore.path.replace('{id}', encodeURIComponent(backupId));
  const vmId = await ctx.objects.createdVmId();
  return ctx.objects.onVm(vmId, () => ctx.call({ method: restore.method, path, ...opts }), restore.taskId);
}

/** A backup's description under the run's prefix (cc-<run id>-…), as its VMs are named: a person finds what it left. */
export function ownDescription(ctx: CheckContext, what: string): string {
  return `cc-${ctx.config.runId}-${what}`;
}

/** An id the target cannot know, for requests about resources that do not exist. */
export function absentId(ctx: CheckContext, kind: string): string {
  return `cc-${ctx.config.runId}-absent-${kind}`;
}

/** Logged responses the predicate selects that break the seed-derived schema of their operation (MUST level). */
export function baseSchemaViolations(
  ctx: CheckContext,
  pred: (ex: Exchange) => boolean
): { checked: number; bad: Array<{ ex: Exchange; errors: string[] }> } {
  const selected = fromLog(ctx, pred);
  const bad = selected
    .map((ex) => ({ ex, errors: ctx.schema.assert(ex)?.baseErrors ?? [] }))
    .filter((r) => r.errors.length > 0);
  return { checked: selected.length, bad };
}

/**
 * Records the status and code a named error case got (a name of ERROR_CASES, src/spec/vocabulary.ts): the latest under
 * errorCase.<name>, every distinct pair under errorCasesSeen (emitted as x-error-cases; compared with the declared ones).
 */
export function observeErrorCase(ctx: CheckContext, name: string, ex: Exchange): void {
  if (!ex.response || ex.response.status < 400) return;
  const pair: ObservedCase = { status: ex.response.status, code: errorCode(ex) ?? null };
  ctx.observe(`errorCase.${name}`, pair);
  const seen = { ...(ctx.observations.errorCasesSeen ?? {}) };
  const list = seen[name] ?? [];
  if (!list.some((p) => p.status === pair.status && p.code === pair.code)) seen[name] = [...list, pair];
  ctx.observe('errorCasesSeen', seen);
}

/**
 * A property's first cases, sent before fast-check asks for them: `fc.sample` draws the very values `fc.check` tries
 * first under the same seed, so they go out a few at a time (a distant target costs a round trip per few cases) and
 * the property finds each answer waiting. A value asked for that was not drawn (a shrink step) is sent when asked.
 */
export function prefetched<T, R>(
  values: readonly T[],
  inFlight: number,
  send: (value: T) => Promise<R>
): (value: T) => Promise<R> {
  const waiting = new Map<string, Array<Promise<R>>>();
  const settle: Array<{ resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  values.forEach((v) => {
    const p = new Promise<R>((resolve, reject) => settle.push({ resolve, reject }));
    // An answer nobody asks for (the property failed early and shrank) must not surface as an unhandled rejection.
    p.catch(() => undefined);
    const key = JSON.stringify(v);
    waiting.set(key, [...(waiting.get(key) ?? []), p]);
  });
  let next = 0;
  const worker = async () => {
    while (next < values.length) {
      const i = next++;
      try {
        settle[i]!.resolve(await send(values[i]!));
      } catch (err) {
        settle[i]!.reject(err);
      }
    }
  };
  for (let w = 0; w < Math.min(inFlight, values.length); w++) void worker();
  return (value) => waiting.get(JSON.stringify(value))?.shift() ?? send(value);
}

/** The overlay's firing body of an alarm (x-alarm-firing-example) on a VM of the run: "{vm_id}" filled in. */
export function alarmBodyFor(body: Record<string, unknown>, vmId: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(body).replaceAll('{vm_id}', vmId.replaceAll('"', '\\"'))) as Record<string, unknown>;
}

/** How the task of an accepted create ended: failed, or anything else (succeeded, unknown, not found). */
export async function taskEnd(ctx: CheckContext, created: Exchange): Promise<'failed' | 'other'> {
  try {
    const outcome = await ctx.objects.pollTask(
      (await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm)).id
    );
    return outcome.state.terminal && outcome.state.success === false ? 'failed' : 'other';
  } catch (err) {
    if (err instanceof Unavailable) return 'other';
    throw err;
  }
}
