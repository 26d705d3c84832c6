// What a run is told when the user says nothing: each default once, for the parser, --help, the in-process runs of
// tests and scripts, and test/docs-numbers.test.ts, which holds docs/options.md to them.
import type { Profile } from '../engine/config/config.ts';

export const DEFAULT_PROFILE: Profile = 'quick';

/** Target-seconds per real second: the target's own clock. */
export const DEFAULT_TIME_SCALE = 1;

/**
 * The embedded reference's clock when --time-scale is not given: a simulation runs its clock as fast as the run can
 * still judge it (a rate window is 6 real seconds, twice what a burst needs on a slow machine), so the README's first
 * command ends in seconds. `--time-scale 1` runs it at real time.
 */
export const EMBEDDED_TIME_SCALE = 10;

/** The clock a run assumes when --time-scale is not given: the target's own, or the embedded reference's. */
export const defaultTimeScale = (baseUrl: string | undefined): number =>
  baseUrl === undefined ? EMBEDDED_TIME_SCALE : DEFAULT_TIME_SCALE;

/** Random cases of the property phase: small, because every case is a write against a 60/min budget. */
export const DEFAULT_RUNS = 10;

/** Target-seconds a task may take to reach a terminal state. */
export const DEFAULT_TASK_TIMEOUT_SECONDS = 120;

/** Real seconds allowed per request. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 15;

/** Largest response body read whole: a real deployment's audit export runs to megabytes. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Where the webhook receiver listens: this machine, any free port. */
export const DEFAULT_WEBHOOK_LISTEN = '127.0.0.1:0';

/** The object storage's signing region. */
export const DEFAULT_S3_REGION = 'us-east-1';
