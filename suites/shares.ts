import type { Check } from '../src/engine/check.ts';
import { API_TARGET } from '../src/engine/schedule.ts';

// What each group shares with the others (Check.shares): checks that share nothing run side by side.
/** The run VM's backups and restores (backups group). */
export const BACKUPS = 'backups';
/** The webhook receiver, its registrations and the event backup and alarm (webhooks and alarms groups). */
export const EVENTS = 'events';
/** The object storage endpoint (a bucket per check). */
export const S3 = 's3';
/** Reads of the run's tasks, and the wait for a later read (tasks group). */
export const TASK_READS = 'task-reads';
/** Requests without a token to the run's objects (auth.bearer-required): they change nothing and spend no budget. */
export const UNAUTHENTICATED_PROBES = 'unauthenticated-probes';
/** The read-only key's write attempts, and the backup it tries to restore (security.readonly-write-refused). */
export const READONLY_PROBES = 'readonly-probes';
/** Everything the API target holds: a check that reviews what all others did there (the audit trail) waits for them. */
export const WHOLE_API = [API_TARGET, BACKUPS, EVENTS] as const;

/** Gives a group's checks what they share, unless a check says otherwise. */
export function sharing(shares: readonly string[], checks: Check[]): Check[] {
  for (const check of checks) check.shares ??= shares;
  return checks;
}
