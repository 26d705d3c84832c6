import type { RunReport } from '../engine/report.ts';

export function renderJson(report: RunReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
