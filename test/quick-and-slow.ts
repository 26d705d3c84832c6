// Every test file is quick or slow, by an entry here: a folder (ending in /) or a file. `npm run test:quick`
// (vitest.quick.config.ts) runs the quick ones; `npm test` runs them all. test/architecture/quick-and-slow.test.ts
// holds each test file to exactly one entry, and the quick ones to running no suite, no fault and no process.

/** Unit and architecture tests: no suite run against a target, no fault run, no CLI or reference process. */
export const QUICK_TESTS = [
  'test/architecture/',
  'test/engine/',
  'test/scripts/',
  'test/spec/',
  'test/transport/',
  'test/docs.test.ts',
  'test/docs-numbers.test.ts',
  'test/report/formats-agree.test.ts',
  'test/cli/connection.test.ts',
  'test/cli/memory.test.ts',
  'test/cli/options.test.ts',
  'test/cli/plan.test.ts',
  'test/cli/token.test.ts',
  'test/load/syntax.test.ts',
  'test/load/decisions.test.ts',
  'test/s3/gaps.test.ts',
  'test/suite/conventions.test.ts',
  'test/suite/pagination-total.test.ts',
  'test/suite/sweeps.test.ts',
  'test/suite/tag-filter-strict.test.ts',
  'test/suite/unregistered.test.ts',
  'test/suite/values-read-back.test.ts',
  'test/suite/tag-filter-moving.test.ts',
];

/** Tests that run the suite, a fault, the reference's fault probes, a process or a load script against a target. */
export const SLOW_TESTS = [
  'test/reference/',
  'test/report/html.test.ts',
  'test/report/junit.test.ts',
  'test/zoo/',
  'test/cli/broken-start.test.ts',
  'test/cli/ci-templates.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/diff.test.ts',
  'test/cli/expect.test.ts',
  'test/cli/input-refused.test.ts',
  'test/cli/progress.test.ts',
  'test/cli/proxy.test.ts',
  'test/cli/refusals.test.ts',
  'test/cli/reproduce.test.ts',
  'test/cli/safety.test.ts',
  'test/cli/tls.test.ts',
  'test/cli/verify.test.ts',
  'test/load/flow.test.ts',
  'test/load/readme.test.ts',
  'test/s3/s3.test.ts',
  'test/s3/variants.test.ts',
  'test/suite/certify.test.ts',
  'test/suite/concurrency.test.ts',
  'test/suite/declared-roles.test.ts',
  'test/suite/domains.test.ts',
  'test/suite/emit-overlay.test.ts',
  'test/suite/expired-token.test.ts',
  'test/suite/faults-access.test.ts',
  'test/suite/faults-limits-and-records.test.ts',
  'test/suite/faults-resources.test.ts',
  'test/suite/faults.test.ts',
  'test/suite/full-profile.test.ts',
  'test/suite/hostile.test.ts',
  'test/suite/large-bodies.test.ts',
  'test/suite/left-behind.test.ts',
  'test/suite/order.test.ts',
  'test/suite/quota.test.ts',
  'test/suite/served-operations.test.ts',
  'test/suite/redelivery.test.ts',
  'test/suite/secrets.test.ts',
  'test/suite/seeds.test.ts',
  'test/suite/shared-key.test.ts',
  'test/suite/own-names.test.ts',
  'test/suite/time-scale-mismatch.test.ts',
  'test/suite/empty-organization.test.ts',
  'test/suite/under-load.test.ts',
  'test/suite/accepted-tasks.test.ts',
  'test/suite/audit-entries.test.ts',
  'test/suite/audit-order.test.ts',
  'test/suite/create-declared.test.ts',
  'test/suite/declared-lists.test.ts',
  'test/suite/list-views.test.ts',
  'test/suite/input-positions.test.ts',
  'test/suite/name-classes.test.ts',
  'test/suite/media-types.test.ts',
  'test/suite/vm-operations.test.ts',
  'test/suite/waits.test.ts',
];

/** The entries as vitest include patterns. */
export function asGlobs(entries: string[]): string[] {
  return entries.map((e) => (e.endsWith('/') ? `${e}**/*.test.ts` : e));
}

/** Whether a test file (a path from the repository's root) falls under an entry. */
export function underEntry(file: string, entry: string): boolean {
  return entry.endsWith('/') ? file.startsWith(entry) : file === entry;
}
