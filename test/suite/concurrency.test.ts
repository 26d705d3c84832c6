import { describe, expect, it } from 'vitest';
import { runAgainstReference, type ReferenceRun } from '../helpers.ts';
import { ALL_BUT_LIMITS, ALT_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

// Checks that share no budget and no state run concurrently, and the verdict and every check's status are
// those of a sequential run. The targets are the ones where running side by side could matter: the clean reference,
// variants whose events, lists or tasks other tracks could disturb, and faults of each track.
const TARGETS: Array<{ name: string; run: ReferenceRun }> = [
  { name: 'the clean reference', run: {} },
  {
    name: 'variant events-on-restore (a restore raises events while webhooks are watched)',
    run: { variants: ['events-on-restore'] },
  },
  {
    name: 'variant vm-listed-when-ready (the list moves while tasks end)',
    run: { variants: ['vm-listed-when-ready'] },
  },
  { name: 'variant backup-needs-running-vm', run: { variants: ['backup-needs-running-vm'] } },
  { name: 'fault page-boundary-duplicate (api track)', run: { faults: ['page-boundary-duplicate'] } },
  {
    name: 'fault total-per-page (the list readers side by side: pagination and the generated list queries)',
    run: { faults: ['total-per-page'] },
  },
  {
    name: 'fault tag-filter-cross-org (the strict tag filter asks its four questions side by side)',
    run: { faults: ['tag-filter-cross-org'] },
  },
  { name: 'fault restore-without-task-id (backups track)', run: { faults: ['restore-without-task-id'] } },
  { name: 'fault webhook-not-retried (events track)', run: { faults: ['webhook-not-retried'] } },
  { name: 'fault alarm-never-fires (alarms track, beside the events track)', run: { faults: ['alarm-never-fires'] } },
  {
    name: 'fault webhook-wildcard-ignored under the second overlay (events and alarms tracks both)',
    run: { faults: ['webhook-wildcard-ignored'], variants: [...ALT_VARIANTS], overlay: ALT_OVERLAY },
  },
  { name: 'fault audit-missing-failures (after the tracks)', run: { faults: ['audit-missing-failures'] } },
];

const statuses = (r: RunReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));

describe('concurrent and sequential runs agree', () => {
  for (const t of TARGETS) {
    it(`${t.name}: the same verdict and the same status for every check`, { timeout: 120_000 }, async () => {
      const run = { overlay: 'spec/overlays/reference.yaml', only: ALL_BUT_LIMITS, ...t.run };
      const sequential = await runAgainstReference({ ...run, sequential: true });
      const concurrent = await runAgainstReference({ ...run, sequential: false });
      expect(concurrent.verdict).toBe(sequential.verdict);
      expect(statuses(concurrent)).toEqual(statuses(sequential));
      // The runs judged something: a fault run is not conformant, a clean one is.
      expect(sequential.verdict).toBe(t.run.faults ? 'nonconformant' : 'conformant');
    });
  }
});
