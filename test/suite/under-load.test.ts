// A verdict must not depend on how busy the machine is: the clean reference under the second overlay, at
// time scale 1200 (a real second is 20 target-minutes), while two processes keep both cores busy, gives the same verdict
// every time; and a target whose signatures are an hour stale is still caught there.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import { ALL_BUT_LIMITS, ALT_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { runAgainstReference, statusOf } from '../helpers.ts';

let hogs: ChildProcess[] = [];
beforeAll(() => {
  hogs = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});
afterAll(() => {
  for (const h of hogs) h.kill('SIGKILL');
});

describe('webhooks.signature on a machine whose cores are busy', () => {
  for (const round of [1, 2, 3]) {
    it(`passes on the clean reference (round ${round})`, async () => {
      const report = await runAgainstReference({
        overlay: ALT_OVERLAY,
        variants: [...ALT_VARIANTS],
        only: ALL_BUT_LIMITS,
      });
      const check = report.checks.find((c) => c.id === 'webhooks.signature')!;
      expect(check.status, check.message).toBe('passed');
    });
  }

  it('still fails a target whose timestamps are an hour stale', async () => {
    const report = await runAgainstReference({
      overlay: ALT_OVERLAY,
      variants: [...ALT_VARIANTS],
      only: ALL_BUT_LIMITS,
      faults: ['signature-timestamp-stale'],
    });
    expect(statusOf(report, 'webhooks.signature')).toBe('failed');
  });
});
