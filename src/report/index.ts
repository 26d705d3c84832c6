import { writeFile } from 'node:fs/promises';
import type { RunReport } from '../engine/run/report.ts';
import { renderJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderHtml } from './html.ts';

export const REPORT_FORMATS = { json: renderJson, junit: renderJunit, html: renderHtml } as const;
export type ReportFormat = keyof typeof REPORT_FORMATS;

export interface ReportOutput {
  format: ReportFormat;
  path: string;
}

export async function writeReports(report: RunReport, outputs: ReportOutput[]): Promise<void> {
  for (const t of outputs) await writeFile(t.path, REPORT_FORMATS[t.format](report));
}
