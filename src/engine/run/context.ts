import type { Observations, Observe } from '../outcome/observations.ts';
import type { LoadedSpec } from '../../spec/load.ts';
import type { Declarations } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { HttpClient } from '../transport/http.ts';
import type { CallOptions } from '../identity/call.ts';
import type { TokenManager } from '../identity/tokens.ts';
import type { SchemaAsserter } from '../schema/schema.ts';
import type { Exchange } from '../transport/exchange.ts';
import type { Ledger } from '../target/ledger.ts';
import type { RunObjects } from '../target/run-objects.ts';
import type { ServedOperations } from '../target/served-operations.ts';
import type { CertifyPreparation } from '../target/certify.ts';
import type { LimitsReport } from '../limits/limit-probes.ts';
import type { RunEvents } from '../events/events.ts';
import type { Undecided } from './attribution.ts';

/**
 * The run's settings as a check sees them: what it judges by (scale, profile, seed, its inputs), never the keys (a
 * check gets tokens from `tokens`), the receiver's address (the events room's) or how the run is scheduled.
 */
export type CheckSettings = Readonly<Omit<RunConfig, (typeof HIDDEN_FROM_CHECKS)[number]>>;

const HIDDEN_FROM_CHECKS = [
  'keys',
  'webhookListen',
  'webhookUrl',
  'sequential',
  'only',
  'allowWrites',
  'requireComplete',
] as const;

/** The run's settings without what checks may not see: built once per run, so a check that prints it prints no key. */
export function checkSettings(config: RunConfig): CheckSettings {
  const view: Partial<RunConfig> = { ...config };
  for (const field of HIDDEN_FROM_CHECKS) delete view[field];
  return Object.freeze(view as CheckSettings);
}

/** What a check can use. Built once per check, so every exchange is attributed to the check that sent it. */
export interface CheckContext {
  readonly checkId: string;
  readonly config: CheckSettings;
  readonly spec: LoadedSpec;
  readonly declarations: Declarations;
  readonly schema: SchemaAsserter;
  readonly tokens: TokenManager;
  readonly http: HttpClient;
  readonly objects: RunObjects;
  /** The operations the target serves (the document's, the overlay's, the discovered ones): what sweeps range over. */
  readonly operations: ServedOperations;
  /** What the certify profile prepared before the checks (tag shape, a filled list); undefined in the other profiles. */
  readonly certify?: CertifyPreparation;
  /** The webhook receiver, registrations and the backup and alarm that should raise events. */
  readonly events: RunEvents;
  readonly ledger: Ledger;
  /**
   * What the limit probes observed, for the limits group's checks: the issuance probe runs first, the read and write
   * probes after every other check (they may exhaust what they probe); undefined for the checks that run before them.
   */
  readonly limits?: LimitsReport;
  /** Everything the run has exchanged so far (for checks that review the log). */
  readonly log: readonly Exchange[];
  call(opts: CallOptions): Promise<Exchange>;
  /**
   * Independent calls (none depends on another's answer), a few in flight at a time (IN_FLIGHT_PER_CHECK), answers in
   * the order asked: a distant target then costs one round trip per few calls.
   */
  callEach(opts: readonly CallOptions[]): Promise<Exchange[]>;
  /** Records what the run discovered about a choice the seed leaves open (reported, and later emitted as an overlay). */
  observe: Observe;
  /** What the run has observed so far (for checks that hold the target to its declared choices). */
  readonly observations: Readonly<Observations>;
  /** Registers a value derived from a secret (an altered token) so it is redacted everywhere. */
  registerSecret(value: string, label: string): void;
  /** Waits target-seconds, converted to real time by the time scale; `what` says what for (shown while it lasts). */
  sleepTarget(seconds: number, what?: string): Promise<void>;
  /** Says, before it is done, what the check is about to do to the target (many creates): on stderr, and in the report. */
  announce(message: string): void;
  /**
   * Records that the check decided a clause's property in a view of the VM list (a filter × a page, LIST_VIEWS), or,
   * with `undecided`, why it could not there: the clause's domain counts the views (run/domains.ts).
   */
  view(clause: string, view: string, undecided?: Undecided): void;
}
