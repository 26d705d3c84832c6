// The limits group's second stage, after every other check: the probes' inputs taken from what the run did (the read
// operations it saw served, the objects of its own no check read, the writes that change nothing), then the read and
// write probes (limit-probes.ts). The first stage, the issuance probe, runs before the checks (runner.ts preflight).
import type { Declarations, ResourceKind } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import { CredentialError, type TokenManager } from '../identity/tokens.ts';
import type { ServedOperation, ServedOperations } from '../target/served-operations.ts';
import { COLLECTION_KINDS, type Ledger, type LedgerEntry } from '../target/ledger.ts';
import { createdId } from '../target/cleanup.ts';
import type { RunObjects } from '../target/run-objects.ts';
import type { HttpClient } from '../transport/http.ts';
import { isSuccess, type Exchange } from '../transport/exchange.ts';
import type { Waits } from '../transport/waits.ts';
import { runRequestProbes, type IssuanceStage, type LimitsReport, type ReadRequest } from './limit-probes.ts';

/** What the second stage reads of the run. */
interface RequestStageDeps {
  config: RunConfig;
  http: HttpClient;
  tokens: TokenManager;
  ledger: Ledger;
  waits: Waits;
  declarations: Declarations;
  /** The operations the target serves: the probes spread their reads and writes over them. */
  operations: ServedOperations;
  /** The run's own objects: its VM's id, where a check made it, for the read of its record. */
  objects: Pick<RunObjects, 'madeVmId'>;
  /** A paced call with the primary key, for the reads of unread objects. */
  call: (opts: CallOptions) => Promise<Exchange>;
}

/**
 * The read and write probes, after every other check: first the reads of the run's own objects no check happened to
 * read (an alarm), each once, so the served ones join the spread of the read probe.
 */
export async function runRequestStage(d: RequestStageDeps, issuance: IssuanceStage): Promise<LimitsReport> {
  const { config, http, tokens, ledger, waits, declarations } = d;
  try {
    const ops = await d.operations.all();
    const operationOf = (method: string, pathname: string) => d.operations.operationFor(method, pathname)?.operationId;
    await readUnreadObjects(ops, operationOf, { declarations, ledger, objects: d.objects }, http.log, d.call);
    return await runRequestProbes(
      {
        config,
        http,
        tokens,
        ledger,
        waits,
        declaredWindow: declarations.rateLimitAccounting?.window,
        readRequests: () => [...headReads(d.operations), ...servedReads(http.log, operationOf)],
        writeRequests: () => harmlessWrites(ops, config.runId),
      },
      issuance
    );
  } catch (err) {
    // No token for the probes (an issuance budget that never came back): their checks are errors of the run.
    if (!(err instanceof CredentialError)) throw err;
    return { token: issuance.probe, error: err };
  }
}

/**
 * The largest answer a read may have had to be spread over in the read-budget probe (an export of a long audit is not).
 * The run's own audit grows with its checks: certify's CSV export of the embedded reference is about 33 KB, so the
 * bound leaves it room twice over.
 */
const MAX_SPREAD_ANSWER_BYTES = 64 * 1024;

/**
 * Reads besides the list the run saw served by the primary key, one path each: a task, a VM's or a backup's record,
 * and every declared read (webhooks, alarms, the audit), so the read budget is spent across all of them.
 */
function servedReads(
  log: readonly Exchange[],
  operationOf: (method: string, pathname: string) => string | undefined
): ReadRequest[] {
  const byOperation = new Map<string, { path: string; bytes: number }>();
  for (const ex of log) {
    if (ex.request.method !== 'GET' || !isSuccess(ex) || ex.caller !== 'primary' || ex.sentBy.startsWith('limits.'))
      continue;
    const url = new URL(ex.request.url);
    const op = operationOf('GET', url.pathname);
    const bytes = ex.response?.bodyBytes ?? 0;
    // The smallest answer each operation gave, and none above a bound: the burst must fit its window.
    if (
      !op ||
      url.pathname === '/v1/vms' ||
      bytes > MAX_SPREAD_ANSWER_BYTES ||
      (byOperation.get(op)?.bytes ?? Infinity) <= bytes
    )
      continue;
    byOperation.set(op, { path: url.pathname + url.search, bytes });
  }
  return [...byOperation.values()].map((v) => ({ method: 'GET', path: v.path }));
}

/**
 * HEAD of the list, where an Allow the registry met listed HEAD on it: a read (RFC 9110 §9.3.2) no check sends, so a
 * target that charges it to the write budget shows in the read probe's spread. Known without a request of its own:
 * under a budget shared beyond the token, one would spend a read the probes count.
 */
function headReads(operations: Pick<ServedOperations, 'headListed'>): ReadRequest[] {
  return operations.headListed().includes('/v1/vms') ? [{ method: 'HEAD', path: '/v1/vms?per_page=1' }] : [];
}

/**
 * Reads once each object read the target serves (GET /v1/<collection>/{id}: the document's, and those an Allow listed)
 * that no request of the run has been served yet, on an object of the run's that still stands (its id from the ledger,
 * or from the answer that made it; the run's VM where a check made it): the read-budget probe then spreads its reads
 * over every read operation, not only those the checks happened to read.
 */
async function readUnreadObjects(
  ops: readonly ServedOperation[],
  operationOf: (method: string, pathname: string) => string | undefined,
  run: { declarations: Declarations; ledger: Ledger; objects: Pick<RunObjects, 'madeVmId'> },
  log: readonly Exchange[],
  call: (opts: CallOptions) => Promise<Exchange>
): Promise<void> {
  const served = new Set(
    log
      .filter((ex) => ex.request.method === 'GET' && isSuccess(ex) && ex.caller === 'primary')
      .map((ex) => operationOf('GET', new URL(ex.request.url).pathname))
  );
  for (const op of ops.filter((o) => o.method === 'GET' && !o.public && o.shown && !served.has(o.operationId))) {
    const m = /^\/v1\/([a-z]+)\/\{[^}]+\}$/.exec(op.path);
    const kind = m ? COLLECTION_KINDS[m[1]!] : undefined;
    if (!kind) continue;
    const id =
      ownObjectId(kind, run.declarations, run.ledger, log) ??
      (kind === 'vm' ? await run.objects.madeVmId() : undefined);
    if (id)
      await call({ method: 'GET', path: op.path.replace(/\{[^}]+\}/, encodeURIComponent(id)) }).catch(() => undefined);
  }
}

/** The id of an object of the kind the run made and still holds (not another organization's), from the ledger or its creating answer. */
function ownObjectId(
  kind: ResourceKind,
  declarations: Declarations,
  ledger: Ledger,
  log: readonly Exchange[]
): string | undefined {
  const bySeq = new Map(log.map((ex) => [ex.seq, ex]));
  const idOf = (e: LedgerEntry) =>
    e.id ?? createdId(declarations, kind, e.createdIn !== undefined ? bySeq.get(e.createdIn) : undefined);
  const entry = ledger.entries.find((e) => e.kind === kind && e.cleanup === 'pending' && !e.owner && idOf(e));
  return entry && idOf(entry);
}

/**
 * One write to every write operation the target serves but the create (the probe's own) and key revocation, on ids
 * that exist nowhere and with empty bodies: each is refused, and nothing of the target's changes (what a lenient
 * target makes of an empty body is in the ledger, by the probe). The document's, and those an Allow listed (on a path
 * with an id): a conventional one no answer listed may not exist, and a request no route counts is no budget escaped.
 */
function harmlessWrites(
  ops: readonly ServedOperation[],
  runId: string
): Array<{ method: string; path: string; json?: unknown }> {
  return ops
    .filter(
      (o) =>
        !o.public &&
        o.shown &&
        o.method !== 'GET' &&
        !o.revokesKey &&
        !/api-keys/.test(o.path) &&
        !(o.method === 'POST' && o.path === '/v1/vms')
    )
    .map((o) => ({
      method: o.method,
      path: o.path.replace(/\{[^}]+\}/g, encodeURIComponent(`cc-${runId}-absent`)),
      ...(o.takesBody ? { json: {} } : {}),
    }));
}
