// Every operation of the document (the overlay's declared ones included), as a request a check can send with a
// subject of its choosing: how checks range a clause over its operations without code per operation.
import type { CheckContext } from '../src/engine/run/context.ts';
import type { CallOptions } from '../src/engine/identity/call.ts';
import { COLLECTION_KINDS, type LedgerEntry } from '../src/engine/target/ledger.ts';
import { Unavailable } from '../src/engine/run/check.ts';
import { createdId } from '../src/engine/target/cleanup.ts';
import { absentId } from './support.ts';
import { documentOperations as operationsOf, type DocumentOperation } from '../src/engine/schema/operations.ts';
import type { ServedOperation } from '../src/engine/target/served-operations.ts';

export type { DocumentOperation };

/** An object of the kind the run made: its id from the ledger, else from the answer that made it (where the overlay says). */
export function ledgerId(ctx: CheckContext, kind: LedgerEntry['kind'] | undefined): string | undefined {
  if (!kind || kind === 'api-key-revoked') return undefined;
  for (const e of ctx.ledger.entries.filter((x) => x.kind === kind && x.cleanup === 'pending')) {
    const id =
      e.id ??
      createdId(
        ctx.declarations,
        kind,
        ctx.log.find((ex) => ex.seq === e.createdIn)
      );
    if (id) return id;
  }
  return undefined;
}

/** Every operation of the run's document after the overlay. */
export function documentOperations(ctx: CheckContext): DocumentOperation[] {
  return operationsOf(ctx.spec.merged);
}

/**
 * Every operation the target serves, as far as the run knows: the document's, the overlay's, those an Allow listed,
 * and the conventional VM delete (see src/engine/target/served-operations.ts). Discovered on first use, once a run.
 */
export function servedOperations(ctx: CheckContext): Promise<ServedOperation[]> {
  return ctx.operations.all();
}

/**
 * The operations of the registry a check judging requests on ids that exist nowhere cannot reach, each with what would
 * reach it: a conventional operation no answer listed may not exist, and its answer says nothing.
 */
export function notShown(ops: readonly ServedOperation[]): string[] {
  return ops
    .filter((o) => !o.shown)
    .map(
      (o) =>
        `${o.method} ${o.path} (not shown: no Allow answer lists it; declare it in the overlay${o.method === 'DELETE' && /^\/v1\/vms\//.test(o.path) ? ', x-cleanup-for: createVm' : ''})`
    );
}

/** A path of the document with each id one that exists nowhere, or the id `own` gives for its collection. */
export function pathWithAbsentIds(
  ctx: CheckContext,
  template: string,
  own: Partial<Record<string, string>> = {}
): string {
  return template.replace(
    /([^/]+)\/\{[^}]+\}/g,
    (_, collection: string) =>
      `${collection}/${encodeURIComponent(own[collection] ?? absentId(ctx, collection.replace(/s$/, '')))}`
  );
}

/**
 * An operation as a request: path parameters from the run's own objects for reads (a route that looks an object up
 * before it asks for credentials serves what it finds), ids that exist nowhere for writes (a target that lets the
 * request through changes nothing of the run's); an empty JSON object for a body. objects 'absent': ids that exist
 * nowhere for reads too (for a key of another organization, whose refusal of the run's objects is isolation).
 */
export async function requestFor(
  ctx: CheckContext,
  op: Pick<DocumentOperation, 'method' | 'path' | 'takesBody'>,
  objects: 'own' | 'absent' = 'own'
): Promise<CallOptions> {
  let path = op.path;
  for (const m of op.path.matchAll(/([^/]+)\/\{([^}]+)\}/g)) {
    const [whole, collection] = [m[0], m[1]!];
    let id: string | undefined;
    if (op.method === 'GET' && objects === 'own') {
      if (collection === 'vms')
        id = await ctx.objects
          .createdVmId()
          .catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
      else if (collection === 'tasks')
        id = await ctx.objects.vmTask().then(
          (t) => t.id,
          (err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err))
        );
      else id = ledgerId(ctx, COLLECTION_KINDS[collection]);
    }
    path = path.replace(
      whole,
      `${collection}/${encodeURIComponent(id ?? absentId(ctx, collection.replace(/s$/, '')))}`
    );
  }
  return { method: op.method, path, ...(op.takesBody ? { json: {} } : {}) };
}

/** The operation ids a check sent requests to (from its own exchanges), to sweep only the rest. */
export function operationsSent(
  ctx: CheckContext,
  sent: ReadonlyArray<{ request: { method: string; url: string } }>
): Set<string> {
  return new Set(
    sent
      .map((ex) => ctx.operations.operationFor(ex.request.method, new URL(ex.request.url).pathname)?.operationId)
      .filter((id): id is string => !!id)
  );
}
