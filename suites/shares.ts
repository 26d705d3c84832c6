import type { Check } from '../src/engine/run/check.ts';
import { API_TARGET } from '../src/engine/run/schedule.ts';

// What each group shares with the others (Check.shares): checks that share nothing run side by side.
/** The run VM's backups and restores (backups group). */
export const BACKUPS = 'backups';
/** The webhook receiver's registrations and the event backup (webhooks group). */
export const EVENTS = 'events';
/**
 * The alarm made to fire (alarms group). It only reads the receiver the webhooks group registered, and its event goes
 * to the endpoint registered for everything, which no webhook check judges by count: it fires beside their waits.
 */
export const ALARMS = 'alarms';
/** The object storage endpoint (a bucket per check). */
export const S3 = 's3';
/**
 * The 64 MiB object's bucket (s3.large-object): the run's heaviest work on this machine's processor, it goes first,
 * beside the other S3 checks and while the API tracks wait for the run's VM.
 */
export const S3_LARGE_OBJECT = 's3-large-object';
/** Reads of the run's tasks, and the wait for a later read (tasks group). */
export const TASK_READS = 'task-reads';
/**
 * The objects tasks.long-running-operations makes for itself (a backup, a VM it deletes): their tasks are its own, so
 * it waits for them beside the task track's reads and later read.
 */
export const LONG_RUNNING_TASKS = 'long-running-tasks';
/** Requests without a token to the run's objects (auth.bearer-required): they change nothing and spend no budget. */
export const UNAUTHENTICATED_PROBES = 'unauthenticated-probes';
/**
 * The read-only key's write attempts, and the VM and backup the primary key makes for them (security.readonly-write-
 * refused): first on their track, so the VM made for it joins the list before the API track's walks judge the list.
 */
export const READONLY_PROBES = 'readonly-probes';
/** The read-only key's view of the VM list (auth.token-organization): reads only, beside every other track. */
export const READONLY_LIST = 'readonly-list';
/**
 * Requests a conforming target refuses, which create nothing and read no list whose contents a check judges (malformed
 * tokens and bodies, unknown versions, odd ids, tags nobody carries): they run beside the API track, so a distant target
 * costs their round trips once.
 */
export const REFUSAL_PROBES = 'refusal-probes';
/**
 * The declared body operations asked with an odd framing (errors.declared-body-framing), and the backup of the run's VM
 * it restores: requests a conforming target refuses, beside the API track, so its backup's wait is not the track's.
 */
export const FRAMING_PROBES = 'framing-probes';
/**
 * The VMs vms.values-read-back makes to compare with the run's VM: made first on their track, beside the API track, so
 * they join the list before the API track's walks judge it, and their tasks end while the API track goes on.
 */
export const COMPARISON_VMS = 'comparison-vms';
/**
 * The organization's room for VMs: the input-class checks create VMs of their own, and vms.quota-refusal fills the
 * quota and frees it again; they take turns, so under a small quota the classes' creates never race the probe's.
 */
export const VM_ROOM = 'vm-room';
/** Everything the API target holds: a check that reviews what all others did there (the audit trail) waits for them. */
export const WHOLE_API = [API_TARGET, BACKUPS, EVENTS, ALARMS, REFUSAL_PROBES, FRAMING_PROBES, COMPARISON_VMS] as const;

/** Gives a group's checks what they share, unless a check says otherwise. */
export function sharing(shares: readonly string[], checks: Check[]): Check[] {
  for (const check of checks) check.shares ??= shares;
  return checks;
}
