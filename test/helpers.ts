import type { RunReport } from '../src/engine/run/report.ts';
import type { ReferenceSettings } from '../fixtures/reference/server.ts';
import { runOptions, type RunOptions } from '../src/cli/options.ts';

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

/** Run options pointed at a reference started as its own target (its URL, keys, image and subnet), and the rest given. */
export function optionsAgainst(s: ReferenceSettings, rest: Partial<RunOptions> = {}): RunOptions {
  return runOptions({
    baseUrl: s.baseUrl,
    apiKey: s.apiKey,
    apiKeyB: s.apiKeyB,
    apiKeyReadonly: s.apiKeyReadonly,
    image: s.image,
    subnetId: s.subnetId,
    ...rest,
  });
}
