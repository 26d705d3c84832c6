import { writeFile } from 'node:fs/promises';
import type { RunReport } from '../engine/run/report.ts';
import { renderJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderHtml } from './html.ts';

export const REPORT_FORMATS = { json: renderJson, junit: renderJunit, html: renderHtml } as const;
export type ReportFormat = keyof typeof REPORT_FORMATS;

export interface ReportTarget {
  format: ReportFormat;
  path: string;
}

export async function writeReports(report: RunReport, targets: ReportTarget[]): Promise<void> {
  for (const t of targets) await writeFile(t.path, REPORT_FORMATS[t.format](report));
}
