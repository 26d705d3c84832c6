import { DOMAIN_DIMENSIONS } from '../spec/clauses.ts';
import { clauseCounts, ledgerOf, levelShown, type CheckReport, type RunReport } from '../engine/run/report.ts';

const MARK: Record<CheckReport['status'], string> = {
  passed: 'PASS',
  failed: 'FAIL',
  warning: 'WARN',
  skipped: 'SKIP',
  error: 'ERR ',
};

export function checkLine(c: CheckReport): string {
  return `${MARK[c.status]}  ${c.id.padEnd(34)} ${levelShown(c).padEnd(8)} ${c.message}`;
}

/** The "not verified" block under the verdict: what the run could not prove, and what would prove it. */
export function notVerifiedLines(report: RunReport): string[] {
  const open = report.coverage?.notVerified ?? [];
  const errors = report.errors ?? [];
  if (!open.length && !errors.length)
    return report.coverage
      ? [
          `every MUST clause${report.overlay ? ' and declared choice' : ''} was verified (${report.coverage.verified.length})`,
        ]
      : [];
  const clauses = [...new Set(open.map((n) => n.clause))];
  const counts = report.coverage ? clauseCounts(report.coverage) : undefined;
  const lines = [
    `not verified: ${counts ? `${counts.notVerified} of ${counts.total} clauses (${counts.verified} verified)` : `${clauses.length} clause${clauses.length === 1 ? '' : 's'}`}${report.requireComplete ? '; this run requires every MUST clause verified' : ''}`,
  ];
  for (const e of errors) lines.push(`  ERROR ${e.check}: ${e.message}`);
  // Groups left out with --only: one line, not one per clause.
  const unselected = open.filter((n) => /^group \S+ was not selected$/.test(n.reason));
  if (unselected.length) {
    const groups = [...new Set(unselected.map((n) => n.reason.split(' ')[1]))];
    lines.push(
      `  ${new Set(unselected.map((n) => n.clause)).size} clauses need checks of groups this run did not select (--only): ${groups.join(', ')}`
    );
  }
  for (const clause of clauses) {
    for (const n of open.filter((x) => x.clause === clause && !unselected.includes(x))) {
      lines.push(
        `  ${clause.padEnd(26)} ${n.check}: ${n.reason}${n.blocking ? '' : ' (not blocking)'}`,
        `  ${''.padEnd(26)} to verify: ${n.howToVerify}`
      );
    }
  }
  return lines;
}

/** The "partly verified" block: verified clauses whose checks exercised part of their domain, and what is left. */
export function partlyVerifiedLines(report: RunReport): string[] {
  const partly = report.coverage?.partlyVerified ?? [];
  if (!partly.length) return [];
  const blocking = report.requireComplete ? ' (this run requires every MUST clause verified whole: incomplete)' : '';
  const lines = [
    `partly verified: ${partly.length} of the verified clauses were exercised on part of their domain (spec/clauses.yaml)${blocking}; not exercised:`,
  ];
  for (const d of (report.coverage?.domains ?? []).filter((x) => partly.includes(x.clause))) {
    const parts = DOMAIN_DIMENSIONS.map((dim) => {
      const missing = d.missing.filter((m) => m.dimension === dim);
      if (!missing.length) return '';
      const reach = missing.filter((m) => m.possible).map((m) => m.point);
      const beyond = missing.filter((m) => !m.possible).map((m) => `${m.point} (${m.reason})`);
      return `${dim} ${[...reach, ...beyond].join(', ')}`;
    }).filter(Boolean);
    lines.push(`  ${d.clause.padEnd(26)} ${parts.join('; ')}`);
  }
  return lines;
}

const VERDICT_SGR: Record<RunReport['verdict'], number> = {
  conformant: 32,
  nonconformant: 31,
  incomplete: 33,
  error: 31,
};

/** A failure the expectations file lists, marked as such (the verdict is unchanged; the exit code does not count it). */
function expectedNote(c: CheckReport): string {
  return c.expected ? ` EXPECTED${c.expected.reason ? `: ${c.expected.reason}` : ''}` : '';
}

/** Control characters (a name the target lists may hold any) shown escaped, so they never act on the terminal. */
const printable = (s: string): string =>
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * What the run left on the target, right under the verdict (--quiet too): how many, each by name with why, the line
 * that deletes it (the token as a shell variable), and how to set that variable.
 */
export function leftBehindLines(report: RunReport): string[] {
  const left = ledgerOf(report).leftBehind;
  if (!left.length) return [];
  const lines = [
    `LEFT BEHIND: ${left.length} resource${left.length === 1 ? '' : 's'} the run created ${left.length === 1 ? 'is' : 'are'} still on the target (exit code 4 unless the run failed):`,
  ];
  for (const l of left) {
    const name = printable(l.name ?? l.id ?? '(no name)');
    lines.push(`  ${l.kind} ${name}${l.id && l.name ? ` (${printable(l.id)})` : ''}: ${printable(l.reason)}`);
    if (l.deleteCommand) lines.push(`    delete: ${l.deleteCommand}`);
  }
  if (left.some((l) => l.deleteCommand) && report.tokenCommand) {
    const b = left.some((l) => l.deleteCommand && l.owner === 'second')
      ? '; CONFORMANCE_TOKEN_B the same way from CONFORMANCE_API_KEY_B'
      : '';
    lines.push(`  token for the delete lines (with CONFORMANCE_API_KEY set${b}): ${report.tokenCommand}`);
  }
  return lines;
}

/** What --quiet keeps: the verdict line and each failure, one line each (the evidence is in the reports). */
export function quietSummaryLines(report: RunReport): string[] {
  const s = report.summary;
  return [
    `verdict: ${report.verdict}  (${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped)`,
    ...report.checks
      .filter((c) => c.status === 'failed')
      .map((c) => `FAIL ${c.id} [${levelShown(c)}] (${c.clauses.join(', ')})${expectedNote(c)}: ${c.message}`),
    ...leftBehindLines(report),
  ];
}

export function summaryLines(report: RunReport, colour = false): string[] {
  const s = report.summary;
  const verdict = colour ? `\x1b[1;${VERDICT_SGR[report.verdict]}m${report.verdict}\x1b[0m` : report.verdict;
  const lines = [
    '',
    `verdict: ${verdict}  (${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped${report.errors?.length ? `, ${report.errors.length} errors` : ''})`,
    ...leftBehindLines(report),
    ...notVerifiedLines(report),
    ...partlyVerifiedLines(report),
  ];
  for (const c of report.checks.filter((c) => c.status === 'failed')) {
    lines.push('', `FAIL ${c.id} [${levelShown(c)}] (${c.clauses.join(', ')})${expectedNote(c)}`, `  ${c.message}`);
    const first = c.evidence?.exchanges[0];
    if (first) lines.push(`  reproduce: ${first.curl}`);
    // The other assertions that failed beside the lead one, each at its own level.
    for (const f of c.findings?.slice(1) ?? []) lines.push(`  also [${f.level}]: ${f.message}`);
  }
  const needsToken = report.checks.some(
    (c) => c.status === 'failed' && c.evidence?.exchanges[0]?.curl.includes('$CONFORMANCE_TOKEN')
  );
  if (needsToken && report.tokenCommand)
    lines.push('', `token for the curl lines (with CONFORMANCE_API_KEY set): ${report.tokenCommand}`);
  lines.push('', `rerun: ${report.reproduce}`);
  return lines;
}
