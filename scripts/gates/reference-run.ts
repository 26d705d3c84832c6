// A suite run against a fresh embedded reference, in-process: what the tests, the mutants gate and the variants gate
// all run (scripts/gates/fault-runs.ts and variant-runs.ts say which runs).
import { runCommand } from '../../src/cli/run.ts';
import { runOptions, type RunOptions } from '../../src/cli/options.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

export const REFERENCE_OVERLAY = 'spec/overlays/reference.yaml';

/**
 * Time scale for suite runs in tests: token lifetime 3 s real, so the quick profile also runs the expiry check;
 * rate windows of 50 ms, so no test trips a limit by accident.
 */
export const TEST_TIME_SCALE = 1200;

export interface ReferenceRun {
  faults?: string[];
  /** Conforming variants of the reference (fixtures/reference/variants.ts). */
  variants?: string[];
  /** Conforming variants of the embedded S3 endpoint (fixtures/s3/variants.ts). */
  s3Variants?: string[];
  overlay?: string;
  only?: string[];
  timeScale?: number;
  profile?: 'quick' | 'full' | 'certify';
  seed?: number;
  allowWrites?: number;
  readOnly?: boolean;
  /** Most VMs the run may create (--max-creates). */
  maxCreates?: number;
  /** One check at a time (--sequential). */
  sequential?: boolean;
}

/** Runs the suite in-process against a fresh embedded reference target; no overlay unless given, to exercise discovery. */
export async function runAgainstReference(run: ReferenceRun = {}): Promise<RunReport> {
  const opts: RunOptions = runOptions({
    profile: run.profile ?? 'quick',
    timeScale: run.timeScale ?? TEST_TIME_SCALE,
    seed: run.seed ?? 1,
    allowWrites: run.allowWrites ?? 0,
    readOnly: run.readOnly ?? false,
    overlay: run.overlay,
    only: run.only,
    maxCreates: run.maxCreates,
    sequential: run.sequential ?? false,
  });
  const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {
    faults: run.faults,
    variants: run.variants,
    s3Variants: run.s3Variants,
    noDefaultOverlay: true,
  });
  return report;
}
