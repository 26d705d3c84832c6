import type { LoadedSpec } from '../spec/load.ts';
import type { Declarations } from '../spec/declarations.ts';
import type { RunConfig } from './config.ts';
import type { HttpClient, SendOptions } from './http.ts';
import type { KeyName, TokenManager } from './tokens.ts';
import type { SchemaAsserter } from './schema.ts';
import type { Exchange } from './exchange.ts';
import type { Ledger } from './ledger.ts';
import type { Fixtures } from './fixtures.ts';
import type { LimitsReport } from './limit-session.ts';
import type { EventFixtures } from './events.ts';

export interface CallOptions extends Omit<SendOptions, 'sentBy'> {
  /** Whose token to send: a configured key, nobody, or an explicit bearer value. Default: primary. */
  as?: KeyName | 'anonymous';
  bearer?: string;
  /** A separate token of the same key with its own per-token budget (generated traffic uses 'generated'). */
  lane?: string;
  /** Outside the limit probes a 429 is honoured and retried, not blamed on the check. Default true. */
  retryOn429?: boolean;
}

/** What a check can use. Built once per check, so every exchange is attributed to the check that sent it. */
export interface CheckContext {
  readonly checkId: string;
  readonly config: RunConfig;
  readonly spec: LoadedSpec;
  readonly declarations: Declarations;
  readonly schema: SchemaAsserter;
  readonly tokens: TokenManager;
  readonly http: HttpClient;
  readonly fixtures: Fixtures;
  /** The webhook receiver, registrations and the backup and alarm that should raise events. */
  readonly events: EventFixtures;
  readonly ledger: Ledger;
  /** What the limit probes observed (run before every other check when the limits group is selected). */
  readonly limits?: LimitsReport;
  /** Everything the run has exchanged so far (for checks that review the log). */
  readonly log: readonly Exchange[];
  call(opts: CallOptions): Promise<Exchange>;
  /** Records what the run discovered about a choice the seed leaves open (reported, and later emitted as an overlay). */
  observe(key: string, value: unknown): void;
  /** What the run has observed so far (for checks that hold the target to its declared choices). */
  readonly observations: Readonly<Record<string, unknown>>;
  /** Registers a value derived from a secret (an altered token) so it is redacted everywhere. */
  registerSecret(value: string, label: string): void;
  /** Waits target-seconds, converted to real time by the time scale; `what` says what for (shown while it lasts). */
  sleepTarget(seconds: number, what?: string): Promise<void>;
}
