import { readFileSync } from 'node:fs';
import type { RunReport } from '../engine/run/report.ts';
import { UsageError } from '../spec/errors.ts';

/** A run's JSON report, or a one-line error naming the file. */
export function readReport(file: string): RunReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
  }
  const r = data as Partial<RunReport>;
  if (!r || typeof r !== 'object' || !Array.isArray(r.checks) || typeof r.verdict !== 'string')
    throw new UsageError(`${file} is not a cloud-conformance JSON report (no verdict and checks)`);
  return r as RunReport;
}
