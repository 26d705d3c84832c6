import type { CheckReport, RunReport } from '../engine/report.ts';

const MARK: Record<CheckReport['status'], string> = { passed: 'PASS', failed: 'FAIL', warning: 'WARN', skipped: 'SKIP' };

export function checkLine(c: CheckReport): string {
  return `${MARK[c.status]}  ${c.id.padEnd(34)} ${c.level.padEnd(8)} ${c.message}`;
}

export function summaryLines(report: RunReport): string[] {
  const s = report.summary;
  const lines = [
    '',
    `verdict: ${report.verdict}  (${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped)`,
  ];
  for (const c of report.checks.filter((c) => c.status === 'failed')) {
    lines.push('', `FAIL ${c.id} [${c.level}] (${c.clauses.join(', ')})`, `  ${c.message}`);
    const first = c.evidence?.exchanges[0];
    if (first) lines.push(`  reproduce: ${first.curl}`);
  }
  lines.push('', `rerun: ${report.reproduce}`);
  return lines;
}
