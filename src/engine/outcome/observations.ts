// What a run discovers about the choices the seed leaves open: every key a check (or certify's preparation) may
// record with ctx.observe, its type, and who writes it. Reported under `observations` in the JSON report, emitted as an
// overlay (report/overlay.ts), and read back by checks that hold the target to its own choices.
import type { ValueLocation } from '../../spec/declarations.ts';

/** What the object storage endpoint did with one extended operation (reported as the report's s3Capabilities). */
export interface S3Capability {
  operation: string;
  supported: boolean | 'unknown';
  evidence: string;
}

/** The status and code one named error case got (a name of ERROR_CASES, src/spec/vocabulary.ts). */
export interface ObservedCase {
  status: number;
  code: string | null;
}

/** Where the run learnt of an operation it ranges over (target/served-operations.ts). */
export type OperationSource = 'document' | 'overlay' | 'allow' | 'conventional';

/** The registry of the operations a target serves, as the report records it. */
export interface OperationsRecord {
  operations: Array<{ operation: string; source: OperationSource; shown: boolean; why: string }>;
  /** Operations an Allow listed that the run never sends (a write on a collection), and why. */
  passedOver: Array<{ operation: string; why: string }>;
}

/** What each observation holds. Keys with a dot are families: one key per error case, one per limit probe. */
export interface Observations {
  /** vms.create-returns-task: where the create's task id was found. */
  taskIdLocation?: ValueLocation & { declared?: boolean };
  /** vms.create-returns-task: the status a valid create was answered with. */
  createStatus?: number;
  /** vms.create-returns-task: the sizes the run's VM was created with, and how many it tried before. */
  createSizes?: { vcpus: unknown; memory_gb: unknown; system_disk_gb: unknown; refusedFirst: number };
  /** vms.create-wrong-types: the wrong-typed values the target took (read as their field's type). */
  createCoercion?: string[];
  /** vms.create-optional-fields: the create fields the target accepts a create without, and those it refuses it without. */
  createOptionalFields?: { optional: string[]; required: string[] };
  /** vms.quota-refusal: a valid create refused for want of room, which no delete lifted. */
  createRefusal?: { status?: number; code: unknown; liftsAfterDelete: boolean };
  /** vms.quota-refusal: a refusal a delete lifted (the quota). */
  quotaRefusal?: { status?: number; code: unknown };
  /** vms.tag-filter: how the records show tags. */
  tagShape?: string;
  /** vms.tag-filter: false when no VM carries a tag the run can see or set. */
  tagsVisible?: boolean;
  /** pagination.total: where the list's total is, a JSON pointer or a header name. */
  totalField?: string;
  totalHeader?: string;
  /** pagination.walk: the number of the first page (0 or 1). */
  firstPage?: number;
  /** pagination.per-page-max: what per_page above 100 got. */
  perPageOverMax?: 'clamp' | 'reject' | 'error';
  /** tasks.reaches-terminal: the task's state field and the states it went through. */
  taskStates?: { field?: string; seen: string[]; declared?: boolean };
  /** backups.start: the status a backup start was answered with. */
  backupStartStatus?: number;
  /** webhooks.backup-event: target seconds from a backup's start to its event. */
  backupEventDelaySeconds?: number;
  /** auth.token-role: the role claims of the two keys' tokens. */
  roles?: { primary: unknown; readonly: unknown };
  /** auth.token-shape: the token answers' statuses, and fields beyond the seed's. */
  tokenResponse?: { statuses: number[]; extraFields: string[] };
  /** auth.tampered-token: JWT-like or opaque. */
  tokenFormat?: string;
  /** schema.timestamps-utc: the notations timestamps were written in (digits as 9). */
  timestampNotation?: string[];
  /** errors.json-responses: the JSON media types answers were labelled with. */
  jsonMediaTypes?: string[];
  /** errors.error-object: every status and code error answers carried. */
  errorCases?: string[];
  /** Every distinct status and code each error case got (observeErrorCase): emitted as x-error-cases. */
  errorCasesSeen?: Record<string, ObservedCase[]>;
  /** security.oversized-body: the status a body past the target's limit got. */
  oversizedBodyStatus?: number;
  /** limits.rejection-error-object: the status and code of each kind of rate-limit rejection. */
  limitRejection?: string[];
  /** limits.retry-after: how Retry-After was written, and the rate-limit headers beside it. */
  retryAfterFormat?: 'delta-seconds' | 'HTTP date';
  rateLimitHeaders?: string[];
  /** limits.window-resets: how many spent budgets came back, and how many as Retry-After said. */
  windowReset?: { probes: number; servedAtRetryAfter: number };
  /** s3: what the object storage endpoint did with each extended operation (moved to the report's s3Capabilities). */
  s3Capabilities?: S3Capability[];
  /** certify's preparation: why filling the list stopped, how room was made, and what it found. */
  certifyPopulationStopped?: string;
  certifyPlan?: { stoppedBy: string; deleted: number; reserve: number; note: string };
  certify?: {
    tags: { field: string; shape: string; declared: boolean } | null;
    tagAttempts: Array<{ field: string; shape: string; outcome: string }>;
    listBefore?: number;
    /** What the population aimed at: the list's length and the VMs carrying the run's tag, and why. */
    wanted?: { list: number; tagged: number; why: string };
    populated: number;
    shortBy?: number;
    plan?: string;
  };
  /** The registry of served operations: every operation the properties over every request range over, and why. */
  servedOperations?: OperationsRecord;
  /** The latest status and code of one error case (observeErrorCase). */
  [errorCase: `errorCase.${string}`]: ObservedCase | undefined;
  /** limits.retry-after: a probe whose Retry-After was right read as real seconds (under --time-scale). */
  [retryAfterUnit: `retryAfterUnit.${string}`]: 'real seconds' | undefined;
}

export type ObservationKey = keyof Observations;

/** Records an observation: the one way a check writes one, typed by its key. */
export type Observe = <K extends ObservationKey>(key: K, value: NonNullable<Observations[K]>) => void;

/** A run's observations and the one function that writes them. */
export function observationStore(): { observations: Observations; observe: Observe } {
  const observations: Observations = {};
  // The one untyped write: every caller is typed by Observe.
  const observe: Observe = (key, value) => void ((observations as Record<string, unknown>)[key] = value);
  return { observations, observe };
}

/** Every status and code pair observed for each error case: errorCasesSeen, else the latest errorCase.<name> of each. */
export function observedCases(o: Readonly<Observations>): Record<string, ObservedCase[]> {
  if (o.errorCasesSeen) return o.errorCasesSeen;
  const latest = Object.entries(o).filter(
    (e): e is [`errorCase.${string}`, ObservedCase] => e[0].startsWith('errorCase.') && e[1] !== undefined
  );
  return Object.fromEntries(latest.map(([k, v]) => [k.slice('errorCase.'.length), [v]]));
}
