// The fault catalogue run as the specification of what the suite must catch, split over test files by the group of
// each fault's check so that vitest runs the parts side by side: each fault fails its check, and nothing
// else fails but the checks the catalogue names for it (or a random-phase check that happened on it).
import { describe, it, expect } from 'vitest';
import { FAULTS } from '../../fixtures/reference/faults.ts';
import { runAgainstReference, notPassing } from '../helpers.ts';
import { RANDOM_PHASE, runFor } from '../../scripts/gates/fault-runs.ts';

/** The check groups each catalogue file runs; test/suite/faults.test.ts holds every group to exactly one file. */
export const CATALOGUE_FILES = {
  'faults-resources.test.ts': ['vms', 'pagination', 'tasks', 'backups'],
  'faults-access.test.ts': ['auth', 'security'],
  'faults-limits-and-records.test.ts': ['limits', 'errors', 'schema', 'versioning', 'alarms', 'webhooks', 'audit'],
} as const;

/** Describes the faults whose check is in one of the file's groups, each run against the reference. */
export function describeCatalogue(file: keyof typeof CATALOGUE_FILES): void {
  const groups: readonly string[] = CATALOGUE_FILES[file];
  const faults = FAULTS.filter((f) => groups.includes(f.check.slice(0, f.check.indexOf('.'))));
  describe.concurrent(`each fault of the catalogue (${groups.join(', ')}) is caught by its check`, () => {
    for (const fault of faults) {
      it(`${fault.name} → ${fault.check} ${fault.level === 'should' ? 'warns' : 'fails'} (${fault.clauses.join(', ')})`, async () => {
        const report = await runAgainstReference(runFor(fault));
        const failing = notPassing(report);
        expect(failing).toContain(fault.check);
        // Under the fixed seed the random phase is deterministic too, so what the catalogue says it catches, it catches.
        for (const also of fault.alsoCaughtBy ?? []) expect(failing, `alsoCaughtBy ${also}`).toContain(also);
        const allowed = new Set([
          fault.check,
          ...(fault.alsoCaughtBy ?? []),
          ...(fault.timingCaughtBy ?? []),
          ...RANDOM_PHASE,
        ]);
        expect(failing.filter((id) => !allowed.has(id))).toEqual([]);
        const check = report.checks.find((c) => c.id === fault.check)!;
        expect(check.status).toBe(fault.level === 'should' ? 'warning' : 'failed');
        if (fault.level === 'should' && failing.length === 1) expect(report.verdict).toBe('conformant');
        if (fault.level !== 'should') expect(report.verdict).toBe('nonconformant');
      });
    }
  });
}
