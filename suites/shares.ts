import type { Check } from '../src/engine/check.ts';
import { API_TARGET } from '../src/engine/schedule.ts';

// What each group shares with the others (Check.shares): checks that share nothing run side by side.
/** The run VM's backups and restores (backups group). */
export const BACKUPS = 'backups';
/** The webhook receiver, its registrations and the event backup and alarm (webhooks and alarms groups). */
export const EVENTS = 'events';
/** The object storage endpoint (a bucket per check). */
export const S3 = 's3';
/** The 64 MiB object's bucket: apart from the other S3 checks, so the longest of them runs beside them. */
export const S3_LARGE = 's3-large';
/** Everything the API target holds: a check that reviews what all others did there (the audit trail) waits for them. */
export const WHOLE_API = [API_TARGET, BACKUPS, EVENTS] as const;

/** Gives a group's checks what they share, unless a check says otherwise. */
export function sharing(shares: readonly string[], checks: Check[]): Check[] {
  for (const check of checks) check.shares ??= shares;
  return checks;
}
