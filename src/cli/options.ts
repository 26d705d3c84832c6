import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { readFileSync } from 'node:fs';
import { UsageError } from '../spec/errors.ts';
import { REPORT_FORMATS, type ReportOutput, type ReportFormat } from '../report/index.ts';
import {
  KEY_NAMES,
  RUN_INPUTS,
  type InputNames,
  type KeyName,
  type KeyVariables,
  type Profile,
  type ProxySettings,
  type RunInput,
} from '../engine/config/config.ts';
import { proxyFromEnvironment } from './connection.ts';
import { deepFrozen } from './frozen.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PROFILE,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_RUNS,
  DEFAULT_S3_REGION,
  DEFAULT_TASK_TIMEOUT_SECONDS,
  DEFAULT_TIME_SCALE,
  DEFAULT_WEBHOOK_LISTEN,
  EMBEDDED_TIME_SCALE,
  defaultTimeScale,
} from './defaults.ts';

/**
 * One option of a command: how node:util's parseArgs reads it, what --help says of it, and the environment variable
 * that also sets it. The one table of the CLI's options: --help is printed from it (help.ts) and test/cli/options.test.ts
 * holds docs/options.md to it, flag for flag and variable for variable.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in --help (URL, FILE, N). */
  value?: string;
  /** What --help says of it (docs/options.md says it at length). */
  help: string;
  /** The environment variable that also sets it: a flag wins over the environment, which wins over .env. */
  env?: string;
  /** The run input it gives, by the name the engine knows it by: the engine's hints name it as this flag. */
  input?: RunInput;
  /** A secret: never on a printed command line; the rerun line leaves it to its variable. */
  secret?: true;
  /** What the run writes or how it shows it, not what it does: the rerun line leaves it out. */
  output?: true;
}

/** The options of `run`, in the order --help lists them. */
export const RUN_FLAGS = {
  'base-url': {
    input: 'baseUrl',
    type: 'string',
    value: 'URL',
    env: 'CONFORMANCE_BASE_URL',
    help: 'target API host (paths begin with /v1; default: start the embedded reference target)',
  },
  'api-key': {
    input: 'primary',
    secret: true,
    type: 'string',
    value: 'KEY',
    env: 'CONFORMANCE_API_KEY',
    help: 'API key of the primary organization',
  },
  'api-key-b': {
    input: 'second',
    secret: true,
    type: 'string',
    value: 'KEY',
    env: 'CONFORMANCE_API_KEY_B',
    help: 'API key of a second organization',
  },
  'api-key-readonly': {
    input: 'readonly',
    secret: true,
    type: 'string',
    value: 'KEY',
    env: 'CONFORMANCE_API_KEY_READONLY',
    help: 'API key whose owner may only read',
  },
  'api-key-revocable': {
    input: 'revocable',
    secret: true,
    type: 'string',
    value: 'KEY',
    env: 'CONFORMANCE_API_KEY_REVOCABLE',
    help: 'API key the run may revoke (where the overlay declares how), to check revocation',
  },
  image: {
    input: 'image',
    type: 'string',
    value: 'NAME',
    env: 'CONFORMANCE_IMAGE',
    help: 'image valid on the target for creating a VM',
  },
  'subnet-id': {
    input: 'subnetId',
    type: 'string',
    value: 'ID',
    env: 'CONFORMANCE_SUBNET_ID',
    help: 'subnet valid on the target for creating a VM',
  },
  'subnet-id-b': {
    input: 'subnetIdB',
    type: 'string',
    value: 'ID',
    env: 'CONFORMANCE_SUBNET_ID_B',
    help: 'a subnet of the second organization, for a create with --api-key-b',
  },
  overlay: {
    input: 'overlay',
    type: 'string',
    value: 'FILE',
    env: 'CONFORMANCE_OVERLAY',
    help: "OpenAPI Overlay 1.0 declaring the target's choices (checked as overlay check does)",
  },
  only: { input: 'only', type: 'string', value: 'GROUPS', help: 'comma list of groups to run' },
  profile: {
    input: 'profile',
    type: 'string',
    value: 'quick|full|certify',
    env: 'CONFORMANCE_PROFILE',
    help: `${DEFAULT_PROFILE} (default): no long waits; full: waits out windows and token expiry; certify: full, plus whatever makes each MUST check conclusive (creates within --max-creates); incomplete (exit 3) unless every MUST clause is verified`,
  },
  'require-complete': {
    input: 'requireComplete',
    type: 'boolean',
    help: 'exit 3 (incomplete) when any MUST clause is not verified',
  },
  'max-creates': {
    input: 'maxCreates',
    type: 'string',
    value: 'N',
    help: "most VMs the run may create (certify's default is what it needs; --dry-run prints it)",
  },
  'time-scale': {
    input: 'timeScale',
    type: 'string',
    value: 'N',
    help: `target-seconds per real second (default ${DEFAULT_TIME_SCALE}; ${EMBEDDED_TIME_SCALE} against the embedded reference)`,
  },
  seed: { input: 'seed', type: 'string', value: 'N', help: 'seed for generated data' },
  report: {
    output: true,
    type: 'string',
    multiple: true,
    value: 'FORMAT:PATH',
    help: 'json, junit or html; repeatable',
  },
  runs: {
    input: 'runs',
    type: 'string',
    value: 'N',
    help: `random cases of the property phase (default ${DEFAULT_RUNS})`,
  },
  'webhook-listen': {
    input: 'webhookListen',
    type: 'string',
    value: 'HOST:PORT',
    help: `where the suite's webhook receiver listens (default ${DEFAULT_WEBHOOK_LISTEN})`,
  },
  'webhook-url': {
    input: 'webhookUrl',
    type: 'string',
    value: 'URL',
    help: "the receiver's address as the target should post to it, when it differs",
  },
  'emit-overlay': {
    output: true,
    type: 'string',
    value: 'FILE',
    help: "write what the run observed about the target's choices as an Overlay",
  },
  expect: {
    output: true,
    type: 'string',
    value: 'FILE',
    help: 'known failures and warnings (YAML: check, clause, reason, reference): the verdict is unchanged, the exit code is 1 only for a failure the file does not list',
  },
  'write-expect': {
    output: true,
    type: 'string',
    value: 'FILE',
    help: "write the run's failures and warnings as such a file",
  },
  'strict-expect': {
    output: true,
    type: 'boolean',
    help: 'with --expect: exit 1 when a listed failure no longer fails (the file shrinks as fixes land)',
  },
  sign: {
    output: true,
    type: 'string',
    value: 'KEY',
    help: "sign the JSON report's digests with this Ed25519 private key (PEM); verify --public-key checks it",
  },
  'expired-token': {
    input: 'expiredToken',
    secret: true,
    type: 'string',
    value: 'TOKEN',
    help: 'a token known to be expired: the expiry check judges it without waiting',
  },
  'read-only': {
    input: 'readOnly',
    type: 'boolean',
    help: 'no writes at all; checks that need them are skipped with the reason',
  },
  'dry-run': {
    output: true,
    type: 'boolean',
    help: 'print the plan (groups, requests per endpoint, writes) and send nothing',
  },
  insecure: { input: 'insecure', type: 'boolean', help: 'do not verify TLS certificates (said loudly in the report)' },
  'ca-file': {
    input: 'caFile',
    type: 'string',
    value: 'FILE',
    env: 'CONFORMANCE_CA_FILE',
    help: "PEM file of CAs trusted besides Node's own (NODE_EXTRA_CA_CERTS also works)",
  },
  'client-cert': {
    input: 'clientCert',
    type: 'string',
    value: 'FILE',
    env: 'CONFORMANCE_CLIENT_CERT',
    help: 'client certificate (PEM) for a target that requires mutual TLS; with --client-key',
  },
  'client-key': {
    input: 'clientKey',
    type: 'string',
    value: 'FILE',
    env: 'CONFORMANCE_CLIENT_KEY',
    help: "the client certificate's private key (PEM); its passphrase, if any, in CONFORMANCE_CLIENT_KEY_PASSPHRASE",
  },
  'reference-tls': {
    input: 'referenceTls',
    type: 'boolean',
    help: 'the embedded reference target serves HTTPS (a CA made for the run, trusted by it)',
  },
  'allow-writes': {
    input: 'allowWrites',
    type: 'string',
    value: 'N',
    help: 'real creates the write-limit probe may make if writes that create nothing are not counted',
  },
  'task-timeout': {
    input: 'taskTimeout',
    type: 'string',
    value: 'SECONDS',
    help: `target-seconds a task may take to finish (default ${DEFAULT_TASK_TIMEOUT_SECONDS})`,
  },
  'request-timeout': {
    input: 'requestTimeout',
    type: 'string',
    value: 'SECONDS',
    help: `seconds allowed per request (default ${DEFAULT_REQUEST_TIMEOUT_SECONDS})`,
  },
  'max-body-bytes': {
    input: 'maxBodyBytes',
    type: 'string',
    value: 'SIZE',
    help: `largest response body read (default ${DEFAULT_MAX_BODY_BYTES / 1024 ** 2}MiB; bytes, or with a unit: KiB, MiB, GiB, kB, MB, GB)`,
  },
  quiet: { output: true, type: 'boolean', help: 'no progress output' },
  sequential: {
    input: 'sequential',
    type: 'boolean',
    help: 'one check at a time (by default checks that share no budget and no state run concurrently; the statuses are the same either way)',
  },
  's3-url': {
    input: 's3Url',
    type: 'string',
    value: 'URL',
    env: 'CONFORMANCE_S3_URL',
    help: 'object storage endpoint (default: the embedded s3rver when the API target is embedded; with --base-url and no --s3-url the s3 group is skipped)',
  },
  's3-access-key': {
    input: 's3AccessKey',
    secret: true,
    type: 'string',
    value: 'KEY',
    env: 'CONFORMANCE_S3_ACCESS_KEY',
    help: 'object storage access key (SigV4)',
  },
  's3-secret-key': {
    input: 's3SecretKey',
    secret: true,
    type: 'string',
    value: 'SECRET',
    env: 'CONFORMANCE_S3_SECRET_KEY',
    help: 'object storage secret key (SigV4)',
  },
  's3-region': {
    input: 's3Region',
    type: 'string',
    value: 'NAME',
    env: 'CONFORMANCE_S3_REGION',
    help: `signing region (default ${DEFAULT_S3_REGION})`,
  },
  's3-path-style': { type: 'boolean', help: 'path-style addressing (the default)' },
  's3-virtual-host': { type: 'boolean', help: 'virtual-host-style addressing' },
  help: { output: true, type: 'boolean', short: 'h', help: 'print this help' },
} as const satisfies Record<string, OptionSpec>;

/** The table read one way: each run input as the user gives it (its flag), which the engine's hints name it by. */
export const INPUT_NAMES: InputNames = Object.freeze(
  Object.fromEntries(
    RUN_INPUTS.map((input) => {
      const flag = Object.keys(RUN_FLAGS).find((f) => (RUN_FLAGS as Record<string, OptionSpec>)[f]!.input === input);
      if (flag === undefined) throw new Error(`no flag of run gives the input ${input}`);
      return [input, `--${flag}`];
    })
  ) as Record<RunInput, string>
);

/** The variable each key is read from (its flag's), which the printed lines name it by. */
export const KEY_VARIABLES: KeyVariables = Object.freeze(
  Object.fromEntries(
    KEY_NAMES.map((key) => [key, (RUN_FLAGS as Record<string, OptionSpec>)[INPUT_NAMES[key].slice(2)]!.env!])
  ) as Record<KeyName, string>
);

/** The variable --expired-token's token is read from when the flag is absent (a token: no flag's [VARIABLE] of --help). */
const EXPIRED_TOKEN_VARIABLE = 'CONFORMANCE_EXPIRED_TOKEN';
/** The variable naming the dotenv file to read instead of ./.env (empty: none; the tests read none). */
const ENV_FILE_VARIABLE = 'CONFORMANCE_ENV_FILE';

/** The variable a flag's value may come from instead: its own, or the expired token's. */
export function variableOf(flag: string): string | undefined {
  return flag === 'expired-token' ? EXPIRED_TOKEN_VARIABLE : (RUN_FLAGS as Record<string, OptionSpec>)[flag]?.env;
}

/** Environment variables that are no flag's: each with what it does, as --help lists them. */
export const OTHER_VARIABLES: ReadonlyArray<{ names: readonly string[]; help: string }> = [
  {
    names: [EXPIRED_TOKEN_VARIABLE],
    help: 'the token of --expired-token, when the flag is not given (or in .env)',
  },
  {
    names: ['CONFORMANCE_CLIENT_KEY_PASSPHRASE'],
    help: "the passphrase of --client-key's key (never a flag, which other users of the machine could read)",
  },
  {
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    help: 'proxies for the API and object storage (or lower case; not for the embedded targets, which are on this machine); from the environment only, not .env',
  },
  {
    names: [ENV_FILE_VARIABLE],
    help: 'the dotenv file to read instead of ./.env (empty: none); from the environment only',
  },
  { names: ['NODE_EXTRA_CA_CERTS'], help: "Node's own: a PEM file of CAs trusted besides Node's" },
  { names: ['NO_COLOR', 'FORCE_COLOR'], help: 'colour of the live view on a terminal' },
  { names: ['CONFORMANCE_DEBUG'], help: 'an internal error prints its stack trace too' },
  { names: ['CONFORMANCE_NO_BUNDLE'], help: '=1: load the sources through tsx instead of the bundle' },
  { names: ['CONFORMANCE_NO_REEXEC'], help: '=1: no second start with a smaller young generation' },
  { names: ['CONFORMANCE_NO_CACHE'], help: '=1: neither read nor write the cache of derived documents' },
];

/** The options of `reference`, in the order --help lists them. */
export const REFERENCE_FLAGS = {
  tls: {
    type: 'boolean',
    help: 'HTTPS, with a certificate a CA made for this start signed (the settings line names its file, caFile, for run --ca-file)',
  },
  'require-client-cert': {
    type: 'boolean',
    help: 'implies --tls; refuses clients without a certificate the same CA signed (the settings line names one: clientCertFile, clientKeyFile)',
  },
  port: { type: 'string', value: 'N', help: 'port to listen on (default: any free port)' },
  fault: { type: 'string', multiple: true, value: 'NAME', help: 'break one documented behaviour; repeatable' },
  variant: {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: 'make one unshown choice differently, conformingly; repeatable',
  },
  's3-fault': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: 'a fault of the embedded S3 endpoint; repeatable',
  },
  's3-variant': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: 'a variant of the embedded S3 endpoint; repeatable',
  },
  'time-scale': {
    type: 'string',
    value: 'N',
    help: `target-seconds per real second (default ${DEFAULT_TIME_SCALE})`,
  },
  population: {
    type: 'string',
    value: 'N',
    help: 'VMs the primary organization holds before the run (default 130), every third tagged',
  },
  'list-faults': { type: 'boolean', help: 'print the fault catalogue and exit' },
  'list-variants': { type: 'boolean', help: 'print the variants and exit' },
  help: { type: 'boolean', short: 'h', help: 'print this help' },
} as const satisfies Record<string, OptionSpec>;

/** parseArgs' options of a table: its types, repeatability and short names. */
export function parseArgsOptions(
  table: Record<string, OptionSpec>
): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> {
  return Object.fromEntries(
    Object.entries(table).map(([flag, o]) => [
      flag,
      { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) },
    ])
  );
}

const RUN_OPTIONS = parseArgsOptions(RUN_FLAGS);

/** Flag → environment variable. Flags win over the environment, which wins over .env. */
export const ENV_OF: Record<string, string> = Object.fromEntries(
  Object.entries(RUN_FLAGS as Record<string, OptionSpec>).flatMap(([flag, o]) => (o.env ? [[flag, o.env]] : []))
);

/** Where a setting came from: the command line, the environment, or the .env file of the working directory. */
export type SettingSource = 'flag' | 'environment' | '.env';

/** One setting as the user gave it: its flag (or the flag whose variable gave it), its value as given, and whence. */
export interface GivenSetting {
  readonly flag: string;
  readonly value: string | boolean | readonly string[];
  readonly from: SettingSource;
}

export interface RunOptions {
  /** What the user gave, in the table's order: the rerun line is made from it (reproduce.ts), never from the rest. */
  given: readonly GivenSetting[];
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
  reports: ReportOutput[];
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

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  const n = positiveNumber(flag, raw, fallback);
  if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number, got ${JSON.stringify(raw)}`);
  return n;
}

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
  if (raw === undefined) return DEFAULT_WEBHOOK_LISTEN;
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

function readDotenv(cwd: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const named = env[ENV_FILE_VARIABLE];
  if (named === '') return {};
  const file = named ?? `${cwd}/.env`;
  if (named !== undefined && !existsSync(file))
    throw new UsageError(`${ENV_FILE_VARIABLE} names ${file}, which does not exist`);
  if (!existsSync(file)) return {};
  try {
    return parseDotenv(readFileSync(file));
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function parseReportFlag(value: string): ReportOutput {
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
  const dotenv = readDotenv(cwd, env);
  const given = givenSettings(v, env, dotenv);
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
  return deepFrozen({
    given,
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
    timeScale: positiveNumber('time-scale', v['time-scale'] as string | undefined, defaultTimeScale(baseUrl)),
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
      (v['expired-token'] as string | undefined) ?? env[EXPIRED_TOKEN_VARIABLE] ?? dotenv[EXPIRED_TOKEN_VARIABLE],
    dryRun: v['dry-run'] === true,
    insecure: v['insecure'] === true,
    caFile: setting('ca-file'),
    clientCert: setting('client-cert'),
    clientKey: setting('client-key'),
    clientKeyPassphrase: env['CONFORMANCE_CLIENT_KEY_PASSPHRASE'] ?? dotenv['CONFORMANCE_CLIENT_KEY_PASSPHRASE'],
    proxy: proxyFromEnvironment(env),
    referenceTls: v['reference-tls'] === true,
    allowWrites: v['allow-writes'] === undefined ? 0 : positiveInteger('allow-writes', v['allow-writes'] as string, 0),
    taskTimeoutSeconds: positiveNumber(
      'task-timeout',
      v['task-timeout'] as string | undefined,
      DEFAULT_TASK_TIMEOUT_SECONDS
    ),
    requestTimeoutSeconds: positiveNumber(
      'request-timeout',
      v['request-timeout'] as string | undefined,
      DEFAULT_REQUEST_TIMEOUT_SECONDS
    ),
    maxBodyBytes: byteSize('max-body-bytes', v['max-body-bytes'] as string | undefined, DEFAULT_MAX_BODY_BYTES),
    quiet: v['quiet'] === true,
    sequential: v['sequential'] === true,
    help: v['help'] === true,
    requireComplete: v['require-complete'] === true || profile === 'certify',
    maxCreates:
      v['max-creates'] === undefined ? undefined : nonNegativeInteger('max-creates', v['max-creates'] as string),
    ...s3Options(v, setting, s3Url),
  });
}

/** Each setting the user gave, by flag, by environment variable or in .env (an empty value is none), in the table's order. */
function givenSettings(v: FlagValues, env: NodeJS.ProcessEnv, dotenv: Record<string, string>): GivenSetting[] {
  return Object.keys(RUN_FLAGS).flatMap((flag): GivenSetting[] => {
    const typed = v[flag];
    if (typed !== undefined) return [{ flag, value: typed, from: 'flag' }];
    const name = variableOf(flag);
    if (name === undefined) return [];
    // As the run reads it: a variable set in the environment, even empty, hides the .env entry.
    const from: SettingSource = env[name] !== undefined ? 'environment' : '.env';
    const value = from === 'environment' ? env[name] : dotenv[name];
    return value ? [{ flag, value, from }] : [];
  });
}

/** How a run setting is read: its flag, else its environment variable, else .env; an empty value is no value. */
type Setting = (flag: string) => string | undefined;

/** --profile (or CONFORMANCE_PROFILE), quick when absent; the error names whichever of the two gave it. */
function runProfile(value: string | undefined, fromFlag: boolean): Profile {
  const profile = value ?? DEFAULT_PROFILE;
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
  return deepFrozen({
    // Given in-process, not on a command line: the rerun line carries the profile and seed alone.
    given: [],
    strictExpect: false,
    profile: DEFAULT_PROFILE,
    timeScale: DEFAULT_TIME_SCALE,
    seed: 1,
    reports: [],
    runs: DEFAULT_RUNS,
    allowWrites: 0,
    webhookListen: DEFAULT_WEBHOOK_LISTEN,
    readOnly: false,
    dryRun: false,
    insecure: false,
    referenceTls: false,
    taskTimeoutSeconds: DEFAULT_TASK_TIMEOUT_SECONDS,
    requestTimeoutSeconds: DEFAULT_REQUEST_TIMEOUT_SECONDS,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    quiet: true,
    sequential: false,
    help: false,
    requireComplete: partial.profile === 'certify',
    ...partial,
  });
}
