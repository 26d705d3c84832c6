// One registry of the operations a target serves: the document's (the overlay's declared ones marked), the methods an
// Allow header lists on the document's paths and the conventional item paths (ids that exist nowhere), and the
// conventional VM delete the run's cleanup relies on, each with where the run learnt of it. Memoised per run: one
// OPTIONS request per path. The properties stated for every request, write or token range over it.
import type { LoadedSpec } from '../../spec/load.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { statusText } from '../transport/exchange.ts';
import { inParallel } from '../transport/in-parallel.ts';
import { Unavailable } from '../outcome/outcome.ts';
import type { OperationSource, OperationsRecord } from '../outcome/observations.ts';

export type { OperationSource };
import { documentOperations, type DocumentOperation } from '../schema/operations.ts';

export interface ServedOperation extends DocumentOperation {
  source: OperationSource;
  /** Why the run ranges over it, in a line: the document, the overlay, or the answer that listed it. */
  why: string;
  /**
   * The target showed it serves it: documented, declared, or listed by an Allow answer. A conventional operation no
   * answer listed is not shown: it is judged only on the run's own objects, where a 2xx answer shows it.
   */
  shown: boolean;
}

/** The delete a target offers by convention where its overlay declares none: the seed shows no delete. */
export const CONVENTIONAL_VM_DELETE = { method: 'DELETE', path: '/v1/vms/{id}' } as const;

/** The methods an Allow value lists (RFC 9110 §10.2.1: a comma-separated list of method tokens). */
export function allowedMethods(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
}

/** Methods a discovered operation may be: HEAD follows GET, OPTIONS is the question itself, the rest are not the API's. */
const RANGED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** OPTIONS requests in flight at once. */
const IN_FLIGHT = 4;

/** A path template with its parameters unnamed, so `/v1/vms/{id}` and `/v1/vms/{vm_id}` are one path. */
export const templateKey = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');

/** A path of the template with each id one that exists nowhere (the suites' absent ids: cc-<run>-absent-<kind>). */
export function absentPath(template: string, runId: string): string {
  return template.replace(
    /([^/]+)\/\{[^}]+\}/g,
    (_, collection: string) =>
      `${collection}/${encodeURIComponent(`cc-${runId}-absent-${collection.replace(/s$/, '')}`)}`
  );
}

/** Whether a request path is an instance of the template. */
export function matchesTemplate(template: string, pathname: string): boolean {
  const parts = template.split('/');
  const given = pathname.split('/');
  return (
    parts.length === given.length && parts.every((p, i) => (/^\{[^}]+\}$/.test(p) ? given[i] !== '' : p === given[i]))
  );
}

/** A path the suite never asks about: token issuance (public) and key management (a revocation ends the run). */
const leftAlone = (o: DocumentOperation) => o.public || o.revokesKey || /api-keys/.test(o.path);

/** The paths the registry asks about: the document's, and the item path of each top-level collection it names. */
export function probedPaths(ops: readonly DocumentOperation[]): string[] {
  const paths = new Map<string, string>();
  for (const o of ops.filter((x) => !leftAlone(x))) {
    if (!paths.has(templateKey(o.path))) paths.set(templateKey(o.path), o.path);
    const collection = /^\/v1\/[a-z][a-z0-9_-]*(?=\/|$)/.exec(o.path)?.[0];
    const item = collection && `${collection}/{id}`;
    if (item && !paths.has(templateKey(item))) paths.set(templateKey(item), item);
  }
  return [...paths.values()];
}

/** An operation the document does not have, as the suites range over one: no body but an empty object for a write. */
function discovered(
  method: string,
  path: string,
  source: OperationSource,
  why: string,
  shown: boolean
): ServedOperation {
  return {
    operationId: `${method} ${path}`,
    method,
    path,
    public: false,
    takesBody: method !== 'GET' && method !== 'DELETE',
    list: false,
    longRunning: false,
    revokesKey: false,
    source,
    why,
    shown,
  };
}

/** Why a discovered write is never sent, even on ids that exist nowhere (undefined: it stays harmless there). */
function unsafeWrite(method: string, template: string): string | undefined {
  if (method === 'GET') return undefined;
  if (!/\{[^}]+\}/.test(template)) return 'a write on a collection is never sent';
  // RFC 9110 §9.3.4: a PUT may create the resource it names, an absent id included.
  if (method === 'PUT') return 'a PUT may create what its path names, so it is never sent';
  return undefined;
}

/** The methods an answer's Allow lists (a 2xx or a 405: elsewhere Allow says nothing of the resource), or undefined. */
function allowOf(ex: Exchange): string[] | undefined {
  const status = ex.response?.status;
  if (status === undefined || !(status === 405 || (status >= 200 && status < 300))) return undefined;
  return allowedMethods(ex.response?.headers['allow'])?.map((m) => m.toUpperCase());
}

type Call = (opts: CallOptions) => Promise<Exchange>;

/**
 * The registry of one run: the document's operations at once, the discovered ones after one OPTIONS request per path
 * (on first use, once). Writes an Allow lists on a path with no id, and PUTs, are passed over: no absent id makes them
 * harmless.
 */
export class ServedOperations {
  private discovery: Promise<ServedOperation[]> | undefined;
  private resolved: ServedOperation[] | undefined;
  private readonly passedOver: OperationsRecord['passedOver'] = [];
  /** Paths whose Allow listed HEAD: never ranged over as operations (a HEAD answer has no body to judge). */
  private readonly headPaths: string[] = [];

  constructor(
    private readonly spec: LoadedSpec,
    private readonly call: Call,
    private readonly runId: string,
    /** The VM delete the overlay declares (x-cleanup-for: createVm): then no conventional one is assumed. */
    private readonly declaredVmDelete: { method: string; path: string } | undefined,
    private readonly record: (r: OperationsRecord) => void = () => {}
  ) {}

  /** The document's operations after the overlay, each marked document or overlay. */
  documented(): ServedOperation[] {
    const base = new Set(documentOperations(this.spec.base).map((o) => `${o.method} ${templateKey(o.path)}`));
    return documentOperations(this.spec.merged).map((o) => {
      const inBase = base.has(`${o.method} ${templateKey(o.path)}`);
      return {
        ...o,
        source: inBase ? 'document' : 'overlay',
        why: inBase ? 'the seed-derived document' : 'declared in the overlay',
        shown: true,
      };
    });
  }

  /** Every operation the run knows the target serves, discovering on first use. */
  all(): Promise<ServedOperation[]> {
    this.discovery ??= this.discover().then((ops) => (this.resolved = ops));
    return this.discovery;
  }

  /** What is known now, without a request: everything once discovery has run, else the document's. */
  known(): ServedOperation[] {
    return this.resolved ?? this.documented();
  }

  /** The operation of the registry a request went to (documented ones first), by method and path. */
  operationFor(method: string, pathname: string): ServedOperation | undefined {
    const ops = this.known().filter((o) => o.method === method && matchesTemplate(o.path, pathname));
    // The most literal template wins: /v1/audit/export before /v1/audit/{id}.
    const params = (o: ServedOperation) => o.path.split('{').length;
    return ops.sort((a, b) => params(a) - params(b))[0];
  }

  /** The paths an Allow listed HEAD on (once discovery has run): a read no check sends, which the read probe spreads over. */
  headListed(): readonly string[] {
    return this.headPaths;
  }

  /** The VM delete: declared, listed by an Allow, or the conventional one the cleanup relies on (not shown). */
  async vmDelete(): Promise<ServedOperation | undefined> {
    const del = this.declaredVmDelete ?? CONVENTIONAL_VM_DELETE;
    const ops = await this.all();
    return ops.find((o) => o.method === del.method && templateKey(o.path) === templateKey(del.path));
  }

  private async discover(): Promise<ServedOperation[]> {
    const documented = this.documented();
    const have = new Set(documented.map((o) => `${o.method} ${templateKey(o.path)}`));
    const out = [...documented];
    const paths = probedPaths(documented);
    const answers = await inParallel(paths, IN_FLIGHT, (template) =>
      this.call({ method: 'OPTIONS', path: absentPath(template, this.runId) }).catch((err: unknown) =>
        err instanceof Unavailable ? undefined : Promise.reject(err)
      )
    );
    paths.forEach((template, i) => {
      const ex = answers[i];
      if (ex && allowOf(ex)?.includes('HEAD')) this.headPaths.push(template);
      for (const method of (ex && allowOf(ex)) ?? []) {
        if (!RANGED_METHODS.has(method) || have.has(`${method} ${templateKey(template)}`)) continue;
        have.add(`${method} ${templateKey(template)}`);
        const operation = `${method} ${template}`;
        const unsafe = unsafeWrite(method, template);
        if (unsafe) {
          this.passedOver.push({ operation, why: `listed by Allow (${describe(ex!, template)}), but ${unsafe}` });
          continue;
        }
        out.push(discovered(method, template, 'allow', `listed by Allow: ${describe(ex!, template)}`, true));
      }
    });
    const del = CONVENTIONAL_VM_DELETE;
    if (!this.declaredVmDelete && !have.has(`${del.method} ${templateKey(del.path)}`))
      out.push(
        discovered(
          del.method,
          del.path,
          'conventional',
          "the delete the run's cleanup relies on; no Allow answer listed it, so it is judged only on the run's own VMs",
          false
        )
      );
    this.record({
      operations: out.map((o) => ({
        operation: `${o.method} ${o.path}`,
        source: o.source,
        shown: o.shown,
        why: o.why,
      })),
      passedOver: this.passedOver,
    });
    return out;
  }
}

/** An answer in a line, the same in every run: the request by its template (ids that exist nowhere), the status, its Allow. */
function describe(ex: Exchange, template: string): string {
  const allow = ex.response?.headers['allow'];
  const ids = /\{/.test(template) ? ' (ids that exist nowhere)' : '';
  return `${ex.request.method} ${template}${ids} → ${statusText(ex)}${allow ? `, Allow: ${allow}` : ''}`;
}
