// Shared state of the s3 group for one run: the SDK, the client, the buckets the run created, the capability matrix.
// The AWS SDK (client-s3 and the presigner: 14 CommonJS modules of 9 packages, about 0.15 s to load) is loaded only
// when the s3 group runs: this module and the checks import its types only, and take its classes from the session
// (session.sdk) or loadS3Sdk().
import { createRequire } from 'node:module';
import type { S3Client } from '@aws-sdk/client-s3';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { RunConfig, S3Config } from '../../src/engine/config/config.ts';
import type { S3Capability } from '../../src/engine/run/report.ts';
import { Unavailable } from '../../src/engine/run/check.ts';
import type { Dispatcher } from 'undici';
import { hasProxy, targetDispatcher, targetTls } from '../../src/engine/transport/connection.ts';
import {
  absoluteFormProxy,
  loadProxyAgentClasses,
  nodeAgents,
  type NodeAgentSettings,
  type ProxyAgentClasses,
} from '../../src/engine/transport/node-agents.ts';

type S3Sdk = typeof import('@aws-sdk/client-s3');
type S3Presigner = typeof import('@aws-sdk/s3-request-presigner');

let sdk: S3Sdk | undefined;
let sdkLoading: Promise<S3Sdk> | undefined;
let presignerLoading: Promise<S3Presigner> | undefined;

/** The AWS S3 client module, imported on first use (once per process). */
function loadS3Sdk(): Promise<S3Sdk> {
  sdkLoading ??= import('@aws-sdk/client-s3').then((m) => (sdk = m));
  return sdkLoading;
}

/** The presigner module (s3.presigned only), imported on first use (once per process). */
export function loadS3Presigner(): Promise<S3Presigner> {
  presignerLoading ??= import('@aws-sdk/s3-request-presigner');
  return presignerLoading;
}

/**
 * The SDK for a synchronous caller: the one loaded already, else required on the spot (a caller of makeClient that has
 * not opened a session, such as a test). The package is CommonJS only, so require and import() give the same module.
 */
function sdkNow(): S3Sdk {
  if (!sdk) {
    sdk = createRequire(import.meta.url)('@aws-sdk/client-s3') as S3Sdk;
    sdkLoading ??= Promise.resolve(sdk);
  }
  return sdk;
}

interface S3Session {
  config: S3Config;
  /** The loaded AWS SDK: the checks take their command classes from it. */
  sdk: S3Sdk;
  runId: string;
  timeoutMs: number;
  client: S3Client;
  /** How the session's clients connect (trusted CAs, client certificate, proxy): every client made for it uses it. */
  transport: NodeAgentSettings;
  /** For requests outside the SDK (presigned URLs): the same trust and proxy, through undici. */
  dispatcher: Dispatcher;
  /** Every bucket the run asked to create, removed by the end-of-run sweep whatever the checks left. */
  buckets: Set<string>;
  capabilities: S3Capability[];
}

const sessions = new Map<string, S3Session>();
/** Sessions not yet swept, for the end of the run and for Ctrl-C. */
const live = new Set<{ runId: string; session: S3Session }>();

const NEEDS_S3_URL = 'needs --s3-url (the object storage endpoint and its credentials)';

/**
 * A standard client, configured only with the endpoint, the credentials and the addressing style. Checksums are
 * computed and validated only where S3 requires them (the SDK default adds CRC trailers that many S3-compatible
 * endpoints do not accept); one attempt per request, each bounded by --request-timeout. It connects through the SDK's
 * own NodeHttpHandler with agents of its own (node-agents.ts: trusted CAs, client certificate, proxy).
 */
export function makeClient(
  cfg: S3Config,
  timeoutMs: number,
  credentials?: { accessKeyId: string; secretAccessKey: string },
  s3: S3Sdk = sdkNow(),
  transport: NodeAgentSettings = { tls: { rejectUnauthorized: true } }
): S3Client {
  // Node 20 is this project's platform; the SDK's advisory about its future Node 22 requirement is noise in reports.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  return new s3.S3Client({
    endpoint: cfg.url,
    region: cfg.region,
    forcePathStyle: cfg.forcePathStyle,
    credentials: credentials ?? { accessKeyId: cfg.accessKey, secretAccessKey: cfg.secretKey },
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      requestTimeout: timeoutMs,
      connectionTimeout: Math.min(timeoutMs, 10_000),
      ...nodeAgents(transport),
    },
    // Through an http proxy in absolute form the SDK's Expect: 100-continue (bodies of 2 MB and more) cannot pass.
    ...(absoluteFormProxy(cfg.url, transport.proxy) ? { expectContinueHeader: false } : {}),
  });
}

/** The run's s3 session, opened (and the SDK loaded) on first use; Unavailable, before anything loads, without --s3-url. */
export async function s3Session(ctx: CheckContext): Promise<S3Session> {
  const cfg = s3Config(ctx);
  const session = sessions.get(ctx.config.runId);
  if (session) return session;
  const [s3] = await Promise.all([
    loadS3Sdk(),
    hasProxy(proxyOf(ctx.config, cfg)) ? loadProxyAgentClasses().then((c) => (proxyClasses = c)) : undefined,
  ]);
  return openSession(ctx, cfg, s3);
}

let proxyClasses: ProxyAgentClasses | undefined;

/** The proxies of the run for this endpoint: none for the embedded one (on this machine, out of a proxy's reach). */
const proxyOf = (run: Pick<RunConfig, 'connection'>, cfg: S3Config) =>
  cfg.embedded ? undefined : run.connection?.proxy;

function s3Config(ctx: CheckContext): S3Config {
  const cfg = ctx.config.s3;
  if (!cfg) throw new Unavailable(NEEDS_S3_URL, '--s3-url URL --s3-access-key KEY --s3-secret-key SECRET');
  return cfg;
}

/** Synchronous: checks that asked for the session at the same time while the SDK loaded get the same one. */
function openSession(ctx: CheckContext, cfg: S3Config, s3: S3Sdk): S3Session {
  let session = sessions.get(ctx.config.runId);
  if (!session) {
    const timeoutMs = ctx.config.requestTimeoutSeconds * 1000;
    const tls = targetTls(ctx.config.connection, ctx.config.insecure);
    const proxy = proxyOf(ctx.config, cfg);
    const transport: NodeAgentSettings = { tls, proxy, classes: proxyClasses };
    const dispatcher = targetDispatcher({ timeoutMs, tls, proxy });
    session = {
      config: cfg,
      sdk: s3,
      runId: ctx.config.runId,
      timeoutMs,
      client: makeClient(cfg, timeoutMs, undefined, s3, transport),
      transport,
      dispatcher,
      buckets: new Set(),
      capabilities: [],
    };
    sessions.set(ctx.config.runId, session);
    live.add({ runId: ctx.config.runId, session });
    ctx.registerSecret(cfg.secretKey, 'S3 secret key');
  }
  return session;
}

/** A valid bucket name carrying the run id: cc-<run id>-<suffix>, lowercase, at most 63 characters. */
export function bucketName(session: S3Session, suffix: string): string {
  return `cc-${session.runId}-${suffix}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
}

/** Records an operation in the capability matrix (the latest finding for an operation wins). */
export function record(ctx: CheckContext, operation: string, supported: boolean | 'unknown', evidence: string): void {
  const cfg = s3Config(ctx);
  const session = sessions.get(ctx.config.runId) ?? openSession(ctx, cfg, sdkNow());
  const existing = session.capabilities.find((c) => c.operation === operation);
  // A definite answer is not overwritten by a later "unknown".
  if (existing) {
    if (supported !== 'unknown' || existing.supported === 'unknown')
      Object.assign(existing, { supported, evidence: `${evidence} (${ctx.checkId})` });
  } else session.capabilities.push({ operation, supported, evidence: `${evidence} (${ctx.checkId})` });
  ctx.observe('s3Capabilities', session.capabilities);
}

export interface S3Failure {
  status?: number;
  code?: string;
  message: string;
  /** No HTTP answer at all (connection refused, timeout). */
  transport: boolean;
}

function failureOf(err: unknown): S3Failure {
  const e = err as {
    name?: string;
    message?: string;
    Code?: string;
    $metadata?: { httpStatusCode?: number };
    $response?: { statusCode?: number };
  };
  const status = e.$metadata?.httpStatusCode ?? e.$response?.statusCode;
  if (status === undefined) return { transport: true, message: e.message ?? String(err) };
  return { transport: false, status, code: e.Code ?? e.name, message: e.message ?? '' };
}

// The SDK names an error without a body (a 304, most HEAD errors) "Unknown": the status alone says it.
export const describeFailure = (f: S3Failure) =>
  f.transport ? `no answer (${f.message})` : `${f.status} ${f.code && f.code !== 'Unknown' ? f.code : ''}`.trim();

/** Not supported: 501 / NotImplemented, or 405 MethodNotAllowed for an operation S3 defines on that resource. */
export const notImplemented = (f: S3Failure) =>
  !f.transport &&
  (f.status === 501 || f.code === 'NotImplemented' || (f.status === 405 && f.code === 'MethodNotAllowed'));

export type Result<T> = { ok: true; value: T; status: number } | { ok: false; failure: S3Failure };

/** What came back for a request: its status, or the S3 error with its status, or "no answer (…)". */
export const answerOf = (r: Result<unknown>): string => (r.ok ? String(r.status) : describeFailure(r.failure));

/** A capability row's evidence: the request sent, what came back and, when it matters, what was checked of it. */
export const evidence = (request: string, r: Result<unknown>, checked?: string): string =>
  `${request} → ${answerOf(r)}${checked ? `; ${checked}` : ''}`;

/** A check's record of what it sent and what came back: the evidence of its outcome. */
export class Trace {
  readonly steps: string[] = [];

  async call<T extends { $metadata?: { httpStatusCode?: number } }>(
    label: string,
    fn: () => Promise<T>
  ): Promise<Result<T>> {
    try {
      const value = await fn();
      const status = value.$metadata?.httpStatusCode ?? 200;
      this.steps.push(`${label} → ${status}`);
      return { ok: true, value, status };
    } catch (err) {
      const failure = failureOf(err);
      this.steps.push(`${label} → ${describeFailure(failure)}`);
      return { ok: false, failure };
    }
  }

  note(line: string): void {
    this.steps.push(line);
  }

  details(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { steps: this.steps, ...extra };
  }
}

/** Creates a bucket of the run for a check that needs one; the check is skipped if the endpoint refuses. */
export async function runBucket(ctx: CheckContext, trace: Trace, suffix: string): Promise<string> {
  const session = await s3Session(ctx);
  const { CreateBucketCommand } = session.sdk;
  const bucket = bucketName(session, suffix);
  session.buckets.add(bucket);
  const r = await trace.call(`CreateBucket ${bucket}`, () =>
    session.client.send(new CreateBucketCommand({ Bucket: bucket }))
  );
  if (!r.ok) throw new Unavailable(`could not create bucket ${bucket}: ${describeFailure(r.failure)}`);
  return bucket;
}

/** Buckets removed through each client: the end-of-run sweep does not ask again for what a check already removed. */
const removedBy = new WeakMap<S3Client, Set<string>>();

/** Removes a bucket and everything in it (objects, unfinished multipart uploads). Returns an error text or undefined. */
export async function removeBucket(client: S3Client, bucket: string): Promise<string | undefined> {
  const removed = removedBy.get(client) ?? new Set<string>();
  removedBy.set(client, removed);
  const error = await removeBucketOnce(client, bucket);
  if (error === undefined) removed.add(bucket);
  return error;
}

async function removeBucketOnce(client: S3Client, bucket: string): Promise<string | undefined> {
  try {
    const {
      ListMultipartUploadsCommand,
      AbortMultipartUploadCommand,
      ListObjectsV2Command,
      DeleteObjectCommand,
      DeleteBucketCommand,
    } = await loadS3Sdk();
    try {
      const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      for (const u of uploads.Uploads ?? [])
        await client
          .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key!, UploadId: u.UploadId! }))
          .catch(() => {});
    } catch {
      // Not supported by every endpoint; objects and the bucket are still removed.
    }
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const list = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const o of list.Contents ?? []) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key! }));
      token = list.NextContinuationToken;
      if (!list.IsTruncated || !token) break;
    }
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    return undefined;
  } catch (err) {
    const f = failureOf(err);
    if (f.code === 'NoSuchBucket' || f.status === 404) return undefined;
    return describeFailure(f);
  }
}

interface S3CleanupResult {
  buckets: string[];
  removed: string[];
  failed: Array<{ bucket: string; error: string }>;
}

/** Removes every bucket of the run: those it asked for and any cc-<run id>- bucket the endpoint lists. */
export async function sweepS3(run: Pick<RunConfig, 'runId'>): Promise<S3CleanupResult | undefined> {
  const session = sessions.get(run.runId);
  if (!session) return undefined;
  sessions.delete(run.runId);
  for (const l of live) if (l.session === session) live.delete(l);
  const prefix = `cc-${session.runId}-`;
  const removed = removedBy.get(session.client) ?? new Set<string>();
  const names = new Set(session.buckets);
  const listedNames = new Set<string>();
  try {
    const listed = await session.client.send(new session.sdk.ListBucketsCommand({}));
    for (const b of listed.Buckets ?? []) if (b.Name?.startsWith(prefix)) listedNames.add(b.Name);
  } catch {
    // Listing is best effort; the buckets the run asked for are known.
  }
  for (const b of listedNames) names.add(b);
  const result: S3CleanupResult = { buckets: [...names].sort(), removed: [], failed: [] };
  for (const bucket of result.buckets) {
    // A check removed it and the listing does not show it: not asked again.
    const error =
      removed.has(bucket) && !listedNames.has(bucket) ? undefined : await removeBucket(session.client, bucket);
    if (error) result.failed.push({ bucket, error });
    else result.removed.push(bucket);
  }
  session.client.destroy();
  await session.dispatcher.close();
  return result;
}

/** Sweeps every run still in progress (Ctrl-C). */
export async function sweepAllS3(): Promise<void> {
  for (const l of [...live]) await sweepS3({ runId: l.runId }).catch(() => {});
}

/** Core checks: what a standard client needs from {s3_url} (seed §1, §4). */
export const CORE_CLAUSES = ['S3-ENDPOINT', 'S3-STANDARD-CLIENTS'];
/** Extended checks: operations of the unshown supported subset, reported per operation. */
export const EXTENDED_CLAUSES = ['S3-STANDARD-CLIENTS', 'U-S3-SUBSET'];

export const md5Hex = async (data: Uint8Array | string) =>
  (await import('node:crypto')).createHash('md5').update(data).digest('hex');
export const unquote = (etag: string | undefined) => (etag ?? '').replace(/^W\//, '').replace(/"/g, '');
