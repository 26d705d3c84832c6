// A check that reads what another check observed runs after it, whatever --only selects: on its own the
// security group used to judge the read-only key's refusal status before that refusal had been made.
import { describe, expect, it } from 'vitest';
import { runAgainstReference } from '../helpers.ts';

describe('security.readonly-status with --only security', () => {
  it("judges the read-only key's refused write, not an observation not made yet", async () => {
    const report = await runAgainstReference({ only: ['security'] });
    const check = report.checks.find((c) => c.id === 'security.readonly-status')!;
    expect(check.status, check.message).toBe('passed');
  });
});
