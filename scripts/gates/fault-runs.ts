// How each fault of the reference catalogue is run: shared by test/suite/faults.test.ts and scripts/mutants.ts,
// so the test and the CI gate cannot drift apart.
import type { FaultDef } from '../../fixtures/reference/faults.ts';
import { ALT_VARIANTS, CLAIMS_VARIANTS } from '../../fixtures/reference/variants.ts';
import { allChecks } from '../../suites/index.ts';
import { REFERENCE_OVERLAY, type ReferenceRun } from './reference-run.ts';

/** The second overlay: the reference under ALT_VARIANTS, which make the other choice everywhere the vocabulary offers one. */
export const ALT_OVERLAY = 'spec/overlays/reference-alt.yaml';

/** The third overlay: the reference under CLAIMS_VARIANTS, the calling key's id read from a claim of its token. */
export const CLAIMS_OVERLAY = 'spec/overlays/reference-claims.yaml';

/** Quotas overrun by creates side by side, and a quota met while the VM to delete is still provisioning. */
const QUOTA_RACE_FAULTS = new Set(['quota-check-race', 'quota-counts-finished-only', 'quota-code-busy-delete']);

/** The quota's size: the reference under variant vm-quota-low, its quota declared. */
const QUOTA_OVERLAY = 'spec/overlays/reference-quota.yaml';
const QUOTA_OVERLAY_FAULTS = new Set(['quota-one-over-declared', 'quota-status-drift']);

/** Faults of the third overlay's designs: run against the reference under CLAIMS_VARIANTS with CLAIMS_OVERLAY. */
const CLAIMS_OVERLAY_FAULTS = new Set([
  'revoke-by-id-no-effect',
  'revoked-key-code-generic',
  'payload-too-large-400',
  'audit-open-to-every-role',
  'webhook-reads-refused-to-viewer',
  'cross-org-status-drift',
  'audit-skips-token-issuance',
  'event-id-header-per-attempt',
  'audit-window-ignored',
  'audit-method-filter-ignored',
  'restore-event-missing',
  'tag-filter-case-sensitive',
  'tag-filter-repeated-first',
  'refused-requests-uncounted',
  'retry-after-counts-real-seconds',
  'limit-window-sliding',
  'delivery-timeout-ignored',
  'tag-key-split-at-last-colon',
]);

/** Faults of the second overlay's designs: run against the reference under ALT_VARIANTS with ALT_OVERLAY. */
const ALT_OVERLAY_FAULTS = new Set([
  'signature-timestamp-unsigned',
  'signature-timestamp-stale',
  'retry-schedule-short',
  'webhook-delete-404',
  'webhook-wildcard-ignored',
  'webhook-test-event-not-sent',
  'audit-jsonl-missing-entry',
  'audit-order-reversed',
  'audit-actor-id-missing',
  'revoked-key-reissues',
  'invalid-json-code-drift',
  'audit-csv-id-column-undeclared',
  'signature-wall-clock-stale',
  'refused-requests-counted',
  'limit-window-fixed',
  'alarm-sample-not-evaluated',
  'alarm-lt-compared-as-gt',
]);

/** Checks whose cases are random: under a given seed they may also catch a fault whose own check is elsewhere. */
export const RANDOM_PHASE = ['vms.create-fuzz', 'vms.create-declared-valid', 'vms.list-fuzz', 'vms.stateful'];

/** The API groups without the probes; the S3 group has its own faults and tests (test/s3). */
export const ALL_BUT_LIMITS = [...new Set(allChecks.map((c) => c.group))].filter((g) => g !== 'limits' && g !== 's3');

/** Faults that bite only in operations the seed does not show, though their check runs without an overlay too. */
const BITES_IN_DECLARED = new Set([
  'readonly-can-restore',
  'readonly-can-register-webhook',
  'webhook-any-media-type',
  'restore-trailing-json-accepted',
  'alarm-trailing-json-accepted',
  'cross-org-backup-readable',
  'odd-backup-id-500',
  'restore-array-body-500',
  'restore-malformed-json-500',
]);

/** Faults whose check observes only through operations the seed does not show (declared in the overlay). */
function needsOverlay(fault: FaultDef): boolean {
  return (
    fault.level === 'declared' ||
    ['webhooks', 'alarms', 'audit'].includes(fault.check.split('.')[0]!) ||
    fault.check === 'backups.restore-task' ||
    fault.check === 'security.revoked-key' ||
    BITES_IN_DECLARED.has(fault.name)
  );
}

/** Faults that show only on a long list (a filter or the list holding more than 100 VMs, or 202 for a later page). */
const LONG_LIST_FAULTS = new Set([
  'per-page-cap-skipped-with-filter',
  'per-page-cap-skipped-on-later-pages',
  'per-page-cap-skipped-with-filter-on-later-pages',
]);

/** Faults judged under the data shape they break in: list elements without tags, tags in a map named labels. */
const SHAPE_VARIANT: Record<string, string> = {
  'tag-filter-later-pages-unfiltered': 'vm-record-minimal',
  'tag-filter-cross-org-labels': 'tags-as-labels',
};

/** Faults a quick run cannot tell from a window boundary (or that need a window to pass): judged in the full profile. */
const NEEDS_FULL = new Set([
  'token-limit-9',
  'token-limit-11',
  'token-limit-missing',
  'window-never-resets',
  'window-120s',
  'issuance-window-10s',
  'retry-after-counts-real-seconds',
  'limit-window-sliding',
  'limit-window-fixed',
]);

/**
 * How each fault is run. The limit probes need a window they can fill (real minutes at scale 1, 6 s at scale 10),
 * so limit faults run the limits group alone; everything else runs the whole suite except the probes at a high
 * scale, where windows are too short for the probes to be anything but inconclusive.
 */
export function runFor(fault: FaultDef): ReferenceRun {
  if (fault.check.startsWith('limits.')) {
    // A limit fault of a declared accounting runs under the overlay that declares it.
    const declared: Partial<ReferenceRun> = CLAIMS_OVERLAY_FAULTS.has(fault.name)
      ? { overlay: CLAIMS_OVERLAY, variants: [...CLAIMS_VARIANTS] }
      : ALT_OVERLAY_FAULTS.has(fault.name)
        ? { overlay: ALT_OVERLAY, variants: [...ALT_VARIANTS] }
        : {};
    const base: ReferenceRun = {
      ...(NEEDS_FULL.has(fault.name)
        ? { faults: [fault.name], only: ['limits'], profile: 'full' as const, timeScale: 10 }
        : { faults: [fault.name], only: ['limits'], timeScale: 1 }),
      ...declared,
    };
    // Writes that create nothing are counted by the reference, so only a missing limit needs real creates to show.
    // A task poll charged elsewhere shows only when the run has polled a task: the tasks group beside the probes.
    // A VM record read charged elsewhere shows only once the run has read its VM's record (found by Allow, not declared).
    if (fault.name === 'task-read-charged-as-write' || fault.name === 'vm-read-charged-as-write')
      return { ...base, only: ['limits', 'tasks'] };
    return fault.name === 'write-limit-missing' ? { ...base, allowWrites: 200 } : base;
  }
  // A cap skipped under a filter, or on a later page, shows only where a filter (or the list) holds more than 100 VMs
  // (202 for a later page): a population of 2,500.
  if (LONG_LIST_FAULTS.has(fault.name))
    return { faults: [fault.name], only: ['pagination'], variants: ['population-large'] };
  // Faults that show in one data shape of the target: run under the conforming variant that has it.
  const shaped = SHAPE_VARIANT[fault.name];
  if (shaped) return { faults: [fault.name], only: ALL_BUT_LIMITS, variants: [shaped] };
  // The oversized body goes beyond the create only in the full profile.
  if (fault.name === 'oversized-token-body-500')
    return { faults: [fault.name], only: ['security'], profile: 'full', timeScale: 60 };
  // A quota answered 429 is told from a rate limit by outlasting a rate window, which the quick profile does not wait out.
  if (fault.name === 'quota-429-resource-exhausted')
    return { faults: [fault.name], only: ['vms'], profile: 'full', timeScale: 60 };
  if (QUOTA_OVERLAY_FAULTS.has(fault.name))
    return {
      faults: [fault.name],
      only: fault.check.startsWith('schema.') ? ['vms', 'schema'] : ['vms'],
      overlay: QUOTA_OVERLAY,
      variants: ['vm-quota-low'],
    };
  // Retries early by a tenth show only where a declared delay lasts long enough in real time to be timed.
  if (fault.name === 'retry-delays-tenth')
    return {
      faults: [fault.name],
      only: ['webhooks'],
      overlay: ALT_OVERLAY,
      variants: [...ALT_VARIANTS],
      timeScale: 60,
    };
  // A quota of vCPUs far past the standard VM's reach: met by certify's creates of the largest VM the run accepted.
  if (fault.name === 'vcpu-quota-code-other') return { faults: [fault.name], only: ['vms'], profile: 'certify' };
  // A race shows where the run sends creates side by side near the quota; the vms group alone reaches it.
  if (QUOTA_RACE_FAULTS.has(fault.name)) return { faults: [fault.name], only: ['vms'], timeScale: 60 };
  if (CLAIMS_OVERLAY_FAULTS.has(fault.name))
    return { faults: [fault.name], only: ALL_BUT_LIMITS, overlay: CLAIMS_OVERLAY, variants: [...CLAIMS_VARIANTS] };
  if (ALT_OVERLAY_FAULTS.has(fault.name))
    return { faults: [fault.name], only: ALL_BUT_LIMITS, overlay: ALT_OVERLAY, variants: [...ALT_VARIANTS] };
  return { faults: [fault.name], only: ALL_BUT_LIMITS, overlay: needsOverlay(fault) ? REFERENCE_OVERLAY : undefined };
}
