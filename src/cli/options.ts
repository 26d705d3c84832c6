import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { readFileSync } from 'node:fs';
import { UsageError } from '../spec/errors.ts';
import { REPORT_FORMATS, type ReportTarget, type ReportFormat } from '../report/index.ts';
import type { Profile, ProxySettings } from '../engine/config/config.ts';
import { proxyFromEnvironment } from './connection.ts';

export const RUN_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-b': { type: 'string' },
  'api-key-readonly': { type: 'string' },
  'api-key-revocable': { type: 'string' },
  image: { type: 'string' },
  'subnet-id': { type: 'string' },
  'subnet-id-b': { type: 'string' },
  overlay: { type: 'string' },
  only: { type: 'string' },
  profile: { type: 'string' },
  'time-scale': { type: 'string' },
  seed: { type: 'string' },
  report: { type: 'string', multiple: true },
  runs: { type: 'string' },
  'allow-writes': { type: 'string' },
  'webhook-listen': { type: 'string' },
  'webhook-url': { type: 'string' },
  'emit-overlay': { type: 'string' },
  'read-only': { type: 'boolean' },
  'expired-token': { type: 'string' },
  'dry-run': { type: 'boolean' },
  expect: { type: 'string' },
  'write-expect': { type: 'string' },
  'strict-expect': { type: 'boolean' },
  sign: { type: 'string' },
  insecure: { type: 'boolean' },
  'ca-file': { type: 'string' },
  'client-cert': { type: 'string' },
  'client-key': { type: 'string' },
  'reference-tls': { type: 'boolean' },
  'task-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  's3-url': { type: 'string' },
  's3-access-key': { type: 'string' },
  's3-secret-key': { type: 'string' },
  's3-region': { type: 'string' },
  's3-path-style': { type: 'boolean' },
  's3-virtual-host': { type: 'boolean' },
  quiet: { type: 'boolean' },
  sequential: { type: 'boolean' },
  'require-complete': { type: 'boolean' },
  'max-creates': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Flag → environment variable. Flags win over the environment, which wins over .env. */
export const ENV_OF: Record<string, string> = {
  'base-url': 'CONFORMANCE_BASE_URL',
  'api-key': 'CONFORMANCE_API_KEY',
  'api-key-b': 'CONFORMANCE_API_KEY_B',
  'api-key-readonly': 'CONFORMANCE_API_KEY_READONLY',
  'api-key-revocable': 'CONFORMANCE_API_KEY_REVOCABLE',
  image: 'CONFORMANCE_IMAGE',
  'subnet-id': 'CONFORMANCE_SUBNET_ID',
  'subnet-id-b': 'CONFORMANCE_SUBNET_ID_B',
  overlay: 'CONFORMANCE_OVERLAY',
  's3-url': 'CONFORMANCE_S3_URL',
  's3-access-key': 'CONFORMANCE_S3_ACCESS_KEY',
  's3-secret-key': 'CONFORMANCE_S3_SECRET_KEY',
  's3-region': 'CONFORMANCE_S3_REGION',
  'ca-file': 'CONFORMANCE_CA_FILE',
  'client-cert': 'CONFORMANCE_CLIENT_CERT',
  'client-key': 'CONFORMANCE_CLIENT_KEY',
  profile: 'CONFORMANCE_PROFILE',
};

export interface RunOptions {
  baseUrl?: string;
  apiKey?: string;
  apiKeyB?: string;
  apiKeyReadonly?: string;
  apiKeyRevocable?: string;
  image?: string;
  subnetId?: string;
  /** A subnet of the second organization, for a create with --api-key-b. */
  subnetIdB?: string;
  overlay?: string;
  only?: string[];
  profile: Profile;
  timeScale: number;
  seed: number;
  reports: ReportTarget[];
  runs: number;
  allowWrites: number;
  webhookListen: string;
  webhookUrl?: string;
  emitOverlay?: string;
  /** Known failures and warnings (--expect FILE); --write-expect FILE writes one from the run; --strict-expect fails on a fixed entry. */
  expect?: string;
  writeExpect?: string;
  strictExpect: boolean;
  /** --sign KEY: the Ed25519 private key (PEM file) that signs the JSON report's integrity block. */
  sign?: string;
  readOnly: boolean;
  expiredToken?: string;
  dryRun: boolean;
  insecure: boolean;
  /** PEM file of CAs trusted besides Node's own (--ca-file). */
  caFile?: string;
  /** Client certificate and key for mutual TLS (--client-cert, --client-key); the key's passphrase from the environment only. */
  clientCert?: string;
  clientKey?: string;
  clientKeyPassphrase?: string;
  /** HTTP_PROXY, HTTPS_PROXY, NO_PROXY of the environment (connection.ts); absent: every request goes directly. */
  proxy?: ProxySettings;
  /** The embedded reference target (and its S3 endpoint) serve HTTPS with a CA made for the run, which the run trusts. */
  referenceTls: boolean;
  taskTimeoutSeconds: number;
  requestTimeoutSeconds: number;
  /** Largest response body read whole (--max-body-bytes). */
  maxBodyBytes: number;
  quiet: boolean;
  /** Every check after the one before it, instead of running checks that share nothing concurrently. */
  sequential: boolean;
  help: boolean;
  /** Exit 3 (incomplete) when a MUST clause is not verified; implied by --profile certify. */
  requireComplete: boolean;
  /** Most VMs the run may create (--max-creates). */
  maxCreates?: number;
  /** Object storage endpoint ({s3_url}); without it the s3 group runs against the embedded s3rver or is skipped. */
  s3Url?: string;
  s3AccessKey?: string;
  s3SecretKey?: string;
  s3Region?: string;
  /** Virtual-host style addressing (--s3-virtual-host); path style is the default. */
  s3VirtualHost?: boolean;
}

export type FlagValues = Record<string, string | string[] | boolean | undefined>;

export function parseCliArgs(
  args: string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options']
): { values: FlagValues } {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }) as { values: FlagValues };
  } catch (err) {
    // node:util's messages name the flag; drop its stack and hint suffixes, and suggest the nearest known flag.
    const message = (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    const unknown = /^Unknown option '--([^'=]+)/.exec(message)?.[1];
    const near = unknown === undefined ? undefined : nearestFlag(unknown, Object.keys(options ?? {}));
    throw new UsageError(near ? `${message}; did you mean --${near}?` : message);
  }
}

/** The known flag closest to a mistyped one (at most a third of its letters off), for the usage error. */
export function nearestFlag(typed: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return row[b.length]!;
  };
  const best = known.map((k) => ({ k, d: distance(typed, k) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(1, Math.floor(typed.length / 3)) ? best.k : undefined;
}

function positiveNumber(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--${flag} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

/** Random cases of the property phase by default: small, because every case is a write against a 60/min budget. */
export const DEFAULT_RUNS = 10;

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  const n = positiveNumber(flag, raw, fallback);
  if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number, got ${JSON.stringify(raw)}`);
  return n;
}

/** Largest response body read whole by default: a real deployment's audit export runs to megabytes. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
};

/** A size in bytes: a whole number, optionally with a unit (KiB, MiB, GiB; kB, MB, GB). */
function byteSize(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!Number.isFinite(bytes) || bytes < 1024)
    throw new UsageError(`--${flag} must be a size of at least 1024 bytes (e.g. 64MiB), got ${JSON.stringify(raw)}`);
  return bytes;
}

function nonNegativeInteger(flag: string, raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new UsageError(`--${flag} must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function parseListen(raw: string | undefined): string {
  if (raw === undefined) return '127.0.0.1:0';
  const m = /^(.*):(\d{1,5})$/.exec(raw);
  if (!m || Number(m[2]) > 65535)
    throw new UsageError(`--webhook-listen expects HOST:PORT, got ${JSON.stringify(raw)}`);
  return raw;
}

function parseWebhookUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const u = new URL(raw);
    if (u.protocol === 'http:' || u.protocol === 'https:') return raw;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`--webhook-url must be an http or https URL, got ${JSON.stringify(raw)}`);
}

function readDotenv(cwd: string): Record<string, string> {
  const file = `${cwd}/.env`;
  if (!existsSync(file)) return {};
  try {
    return parseDotenv(readFileSync(file));
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

export function parseReportFlag(value: string): ReportTarget {
  const i = value.indexOf(':');
  const format = value.slice(0, i) as ReportFormat;
  const path = value.slice(i + 1);
  if (i <= 0 || !(format in REPORT_FORMATS) || path === '') {
    throw new UsageError(
      `--report expects FORMAT:PATH with FORMAT one of ${Object.keys(REPORT_FORMATS).join(', ')}; got ${JSON.stringify(value)}`
    );
  }
  return { format, path };
}

/** An http or https URL given to --flag, as given (undefined when absent); anything else is a usage error. */
function httpUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`--${flag} is not a URL: ${JSON.stringify(value)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`--${flag} must be http or https, got ${u.protocol}`);
  return value;
}

export function resolveRunOptions(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd()
): RunOptions {
  const { values: v } = parseCliArgs(args, RUN_OPTIONS);
  const dotenv = readDotenv(cwd);
  const setting: Setting = (flag) => {
    const fromFlag = v[flag] as string | undefined;
    const name = ENV_OF[flag]!;
    const value = fromFlag ?? env[name] ?? dotenv[name];
    return value === '' ? undefined : value;
  };
  const profile = runProfile(setting('profile'), v['profile'] !== undefined);
  const seed = runSeed(v['seed'] as string | undefined);
  const baseUrl = httpUrl('base-url', setting('base-url'));
  const s3Url = httpUrl('s3-url', setting('s3-url'));
  checkExclusiveFlags(v, baseUrl);
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: setting('api-key'),
    apiKeyB: setting('api-key-b'),
    apiKeyReadonly: setting('api-key-readonly'),
    apiKeyRevocable: setting('api-key-revocable'),
    image: setting('image'),
    subnetId: setting('subnet-id'),
    subnetIdB: setting('subnet-id-b'),
    overlay: setting('overlay'),
    only: onlyGroups(v['only'] as string | undefined),
    profile,
    timeScale: positiveNumber('time-scale', v['time-scale'] as string | undefined, 1),
    seed,
    reports: ((v['report'] as string[] | undefined) ?? []).map(parseReportFlag),
    runs: positiveInteger('runs', v['runs'] as string | undefined, DEFAULT_RUNS),
    webhookListen: parseListen(v['webhook-listen'] as string | undefined),
    webhookUrl: parseWebhookUrl(v['webhook-url'] as string | undefined),
    emitOverlay: v['emit-overlay'] as string | undefined,
    expect: v['expect'] as string | undefined,
    writeExpect: v['write-expect'] as string | undefined,
    strictExpect: v['strict-expect'] === true,
    sign: v['sign'] as string | undefined,
    readOnly: v['read-only'] === true,
    expiredToken:
      (v['expired-token'] as string | undefined) ??
      env['CONFORMANCE_EXPIRED_TOKEN'] ??
      dotenv['CONFORMANCE_EXPIRED_TOKEN'],
    dryRun: v['dry-run'] === true,
    insecure: v['insecure'] === true,
    caFile: setting('ca-file'),
    clientCert: setting('client-cert'),
    clientKey: setting('client-key'),
    clientKeyPassphrase: env['CONFORMANCE_CLIENT_KEY_PASSPHRASE'] ?? dotenv['CONFORMANCE_CLIENT_KEY_PASSPHRASE'],
    proxy: proxyFromEnvironment(env),
    referenceTls: v['reference-tls'] === true,
    allowWrites: v['allow-writes'] === undefined ? 0 : positiveInteger('allow-writes', v['allow-writes'] as string, 0),
    taskTimeoutSeconds: positiveNumber('task-timeout', v['task-timeout'] as string | undefined, 120),
    requestTimeoutSeconds: positiveNumber('request-timeout', v['request-timeout'] as string | undefined, 15),
    maxBodyBytes: byteSize('max-body-bytes', v['max-body-bytes'] as string | undefined, DEFAULT_MAX_BODY_BYTES),
    quiet: v['quiet'] === true,
    sequential: v['sequential'] === true,
    help: v['help'] === true,
    requireComplete: v['require-complete'] === true || profile === 'certify',
    maxCreates:
      v['max-creates'] === undefined ? undefined : nonNegativeInteger('max-creates', v['max-creates'] as string),
    ...s3Options(v, setting, s3Url),
  };
}

/** How a run setting is read: its flag, else its environment variable, else .env; an empty value is no value. */
type Setting = (flag: string) => string | undefined;

/** --profile (or CONFORMANCE_PROFILE), quick when absent; the error names whichever of the two gave it. */
function runProfile(value: string | undefined, fromFlag: boolean): Profile {
  const profile = value ?? 'quick';
  const from = fromFlag ? '--profile' : 'CONFORMANCE_PROFILE';
  if (profile !== 'quick' && profile !== 'full' && profile !== 'certify')
    throw new UsageError(`${from} must be quick, full or certify, got ${JSON.stringify(profile)}`);
  return profile;
}

/** --seed, or a random one when absent. */
function runSeed(raw: string | undefined): number {
  if (raw !== undefined && !/^\d{1,15}$/.test(raw))
    throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return raw !== undefined ? Number(raw) : Math.floor(Math.random() * 2 ** 31);
}

/** Flags that make no sense together are a usage error. */
function checkExclusiveFlags(v: FlagValues, baseUrl: string | undefined): void {
  if (v['reference-tls'] && baseUrl !== undefined)
    throw new UsageError(
      "--reference-tls serves the embedded reference target over HTTPS; with --base-url the URL's scheme decides"
    );
  if (v['s3-path-style'] && v['s3-virtual-host'])
    throw new UsageError('--s3-path-style and --s3-virtual-host exclude each other');
}

/** --only's comma list of groups; undefined when absent or empty. */
function onlyGroups(raw: string | undefined): string[] | undefined {
  const only = raw
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return only?.length ? only : undefined;
}

/** The object storage endpoint and how to address it. */
function s3Options(
  v: FlagValues,
  setting: Setting,
  s3Url: string | undefined
): Pick<RunOptions, 's3Url' | 's3AccessKey' | 's3SecretKey' | 's3Region' | 's3VirtualHost'> {
  return {
    s3Url: s3Url?.replace(/\/+$/, ''),
    s3AccessKey: setting('s3-access-key'),
    s3SecretKey: setting('s3-secret-key'),
    s3Region: setting('s3-region'),
    s3VirtualHost: v['s3-virtual-host'] === true,
  };
}

/** Run options with every default filled in: for callers that run the suite in-process (tests, scripts). */
export function runOptions(partial: Partial<RunOptions> = {}): RunOptions {
  return {
    strictExpect: false,
    profile: 'quick',
    timeScale: 1,
    seed: 1,
    reports: [],
    runs: DEFAULT_RUNS,
    allowWrites: 0,
    webhookListen: '127.0.0.1:0',
    readOnly: false,
    dryRun: false,
    insecure: false,
    referenceTls: false,
    taskTimeoutSeconds: 120,
    requestTimeoutSeconds: 15,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    quiet: true,
    sequential: false,
    help: false,
    requireComplete: partial.profile === 'certify',
    ...partial,
  };
}
