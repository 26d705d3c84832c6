import type { RunReport } from '../engine/run/report.ts';

export function renderJson(report: RunReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
