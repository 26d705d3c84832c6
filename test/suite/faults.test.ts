import { describe, it, expect } from 'vitest';
import { FAULTS } from '../../fixtures/reference/faults.ts';
import { allChecks } from '../../suites/index.ts';
import { runAgainstReference, notPassing, REFERENCE_OVERLAY } from '../helpers.ts';

// The fault catalogue is the specification of what the suite must catch: each fault makes exactly its check fail.
describe('the clean reference target', () => {
  it('is conformant without an overlay, every seed-level property discovered', async () => {
    const report = await runAgainstReference();
    expect(notPassing(report)).toEqual([]);
    expect(report.verdict).toBe('conformant');
    expect(report.checks.filter((c) => c.status === 'passed').length).toBeGreaterThanOrEqual(allChecks.length - 2);
  });

  it('is conformant with its own overlay, held to its declarations', async () => {
    const report = await runAgainstReference({ overlay: REFERENCE_OVERLAY });
    expect(notPassing(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'schema.declared-responses')?.status).toBe('passed');
  });
});

describe.concurrent('each fault of the catalogue makes exactly its check fail', () => {
  for (const fault of FAULTS) {
    it(`${fault.name} → ${fault.check} ${fault.level === 'should' ? 'warns' : 'fails'} (${fault.clauses.join(', ')})`, async () => {
      const report = await runAgainstReference({ faults: [fault.name], overlay: fault.level === 'declared' ? REFERENCE_OVERLAY : undefined });
      expect(notPassing(report)).toEqual([fault.check]);
      const check = report.checks.find((c) => c.id === fault.check)!;
      expect(check.status).toBe(fault.level === 'should' ? 'warning' : 'failed');
      expect(report.verdict).toBe(fault.level === 'should' ? 'conformant' : 'nonconformant');
      expect(check.evidence?.exchanges.length ?? 0).toBeGreaterThanOrEqual(check.id === 'auth.token-organization' || check.id === 'auth.token-role' ? 0 : 1);
    });
  }
});

describe('the catalogue', () => {
  it('names only checks that exist, and every check has a fault', () => {
    const ids = new Set(allChecks.map((c) => c.id));
    for (const f of FAULTS) expect(ids, f.name).toContain(f.check);
    const covered = new Set(FAULTS.map((f) => f.check));
    expect(allChecks.map((c) => c.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});
