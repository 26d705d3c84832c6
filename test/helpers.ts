import type { RunReport } from '../src/engine/run/report.ts';

export {
  REFERENCE_OVERLAY,
  TEST_TIME_SCALE,
  runAgainstReference,
  type ReferenceRun,
} from '../scripts/gates/reference-run.ts';

export function statusOf(report: RunReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

export function notPassing(report: RunReport): string[] {
  return report.checks.filter((c) => c.status === 'failed' || c.status === 'warning').map((c) => c.id);
}
