/** The API keys a run may hold: the organization's, another organization's, a read-only one, one it may revoke. */
export const KEY_NAMES = ['primary', 'second', 'readonly', 'revocable'] as const;

export type KeyName = (typeof KEY_NAMES)[number];

/**
 * The run's inputs by their role, for the texts that must name one to the user (a start-up failure's hint, a skipped
 * check's "to verify"): the keys by role, the rest as RunConfig calls them.
 */
export const RUN_INPUTS = [
  ...KEY_NAMES,
  'baseUrl',
  'image',
  'subnetId',
  'subnetIdB',
  'overlay',
  'profile',
  'timeScale',
  'seed',
  'only',
  'runs',
  'allowWrites',
  'requireComplete',
  'maxCreates',
  'taskTimeout',
  'requestTimeout',
  'maxBodyBytes',
  'webhookListen',
  'webhookUrl',
  'expiredToken',
  'readOnly',
  'insecure',
  'caFile',
  'clientCert',
  'clientKey',
  'sequential',
  'referenceTls',
  's3Url',
  's3AccessKey',
  's3SecretKey',
  's3Region',
] as const;

export type RunInput = (typeof RUN_INPUTS)[number];

/**
 * How the user gives each input, in the words of the front end that started the run (the CLI: its flags, from its
 * option table). The engine names an input only through this: it holds no flag of its own, so it words a hint without
 * knowing how the run was started.
 */
export type InputNames = Readonly<Record<RunInput, string>>;

/**
 * The environment variable each key is read from, as the printed lines name it (a redacted key in a request body is
 * this variable in its curl line). The front end's too: the CLI reads the keys from them.
 */
export type KeyVariables = Readonly<Record<KeyName, string>>;

/** quick: no long waits; full: also waits out windows and the token lifetime; certify: full, plus whatever makes each MUST check conclusive. */
export type Profile = 'quick' | 'full' | 'certify';

/** The full and certify profiles wait out rate-limit windows and the token lifetime. */
export const waitsLong = (config: { profile: Profile }): boolean => config.profile !== 'quick';

/** Real milliseconds a task is always given: below it a stall of the run's own machine would read as a slow task. */
const MIN_REAL_TASK_WAIT_MS = 2000;

/**
 * --task-timeout in real milliseconds at the run's time scale, never under MIN_REAL_TASK_WAIT_MS: at a high scale
 * (1,200 in tests: 100 ms) a busy machine's pause is longer than the whole timeout, and the run would blame the target.
 */
export const taskTimeoutRealMs = (config: { taskTimeoutSeconds: number; timeScale: number }): number =>
  Math.max(MIN_REAL_TASK_WAIT_MS, (config.taskTimeoutSeconds * 1000) / config.timeScale);

/** The object storage endpoint ({s3_url}) and its credentials; absent when the s3 group cannot run. */
export interface S3Config {
  url: string;
  accessKey: string;
  secretKey: string;
  region: string;
  /** Path-style addressing (http://host/bucket/key) rather than virtual-host style (http://bucket.host/key). */
  forcePathStyle: boolean;
  /** Size of the large-object check's object; default 64 MiB. */
  largeObjectBytes?: number;
  /** True when the suite started the embedded endpoint (s3rver) itself. */
  embedded?: boolean;
}

/** The proxies a run goes through, as undici's EnvHttpProxyAgent reads them (HTTP_PROXY, HTTPS_PROXY, NO_PROXY). */
export interface ProxySettings {
  /** Proxy for http:// targets (and for https:// ones when httpsProxy is unset); may carry user:password. */
  httpProxy?: string;
  /** Proxy for https:// targets; may carry user:password. */
  httpsProxy?: string;
  /** Comma or space list of hosts (host, .domain, *.domain, host:port, or *) reached directly. */
  noProxy?: string;
}

/**
 * How the run reaches its targets: extra trusted CAs, a client certificate for mutual TLS, proxies. Files are read by
 * the CLI; this holds their text. Proxies apply to the targets the run was pointed at, never to the embedded ones.
 */
export interface ConnectionSettings {
  /**
   * PEM certificates trusted besides Node's own: those of --ca-file (`file`), NODE_EXTRA_CA_CERTS' (which an explicit
   * list would drop) and, under --reference-tls, the embedded target's CA.
   */
  ca?: { file?: string; pem: string[] };
  /** Client certificate and key for mutual TLS (--client-cert, --client-key). */
  clientCert?: { certFile: string; keyFile: string; cert: string; key: string; passphrase?: string };
  proxy?: ProxySettings;
}

/**
 * Everything a run needs, resolved once from flags, environment and .env by the CLI, and frozen there: nothing
 * downstream writes to it.
 */
export interface RunConfig {
  baseUrl: string;
  keys: Partial<Record<KeyName, string>>;
  image?: string;
  subnetId?: string;
  /** A subnet of the second organization (--subnet-id-b): valid values depend on the caller, so they are run inputs. */
  subnetIdB?: string;
  overlayPath?: string;
  /** True when the overlay was not asked for but is the embedded reference target's own. */
  overlayImplicit?: boolean;
  profile: Profile;
  timeScale: number;
  seed: number;
  only?: string[];
  /** Random cases of the property phase (generated requests); the deterministic coverage pass comes on top. */
  randomCases: number;
  /** Real creates the write-limit probe may make when writes that create nothing are not counted (--allow-writes). */
  allowWrites: number;
  /** The verdict is incomplete (exit 3) when a MUST clause is not verified (--profile certify, --require-complete). */
  requireComplete: boolean;
  /** Most VMs the run may create (--max-creates); certify's default is what it needs, printed by --dry-run. */
  maxCreates?: number;
  /** Target-seconds a task may take to reach a terminal state. */
  taskTimeoutSeconds: number;
  requestTimeoutSeconds: number;
  maxBodyBytes: number;
  /** host:port the suite's webhook receiver listens on (port 0: ephemeral). */
  webhookListen: string;
  /** The address the target posts to, when it differs from the listening address (NAT, tunnels). */
  webhookUrl?: string;
  /** A token the user knows to be expired (--expired-token): the expiry check judges it at once. */
  expiredToken?: string;
  /** No writes at all: what cannot be checked without writing is skipped with the reason (--read-only). */
  readOnly: boolean;
  /** TLS certificates are not verified (--insecure); said loudly in the report. */
  insecure: boolean;
  /** Trusted CAs, client certificate and proxies (--ca-file, --client-cert/--client-key, HTTP(S)_PROXY, NO_PROXY). */
  connection?: ConnectionSettings;
  /** Every check after the one before it (--sequential); by default checks that share nothing run concurrently. */
  sequential?: boolean;
  /** Unique per run; names everything the run creates. */
  runId: string;
  /** True when the suite started the embedded reference target itself. */
  embedded: boolean;
  /** The embedded targets serve HTTPS with a CA made for the run, which `connection` trusts (--reference-tls). */
  referenceTls?: boolean;
  /** Object storage endpoint for the s3 group (--s3-url or the embedded s3rver). */
  s3?: S3Config;
  /** How the user gives each input, for hints that name one. */
  names: InputNames;
  /** The variables the keys are read from, for the evidence's curl lines. */
  keyVariables: KeyVariables;
}

/** Longest single wait the quick profile allows (real seconds). */
export const QUICK_MAX_WAIT_SECONDS = 5;
