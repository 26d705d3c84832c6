import { DOMAIN_DIMENSIONS } from '../spec/clauses.ts';
import { ledgerOf, levelShown, overviewOf, type CheckReport, type RunReport } from '../engine/run/report.ts';

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

/** The "not verified" block under the verdict: what the run could not prove, and what would prove it (per clause). */
function notVerifiedLines(report: RunReport): string[] {
  const { notVerified: open, clauses: counts } = overviewOf(report);
  const errors = report.errors ?? [];
  if (!open.clauses.length && !open.unselected.length && !errors.length)
    return counts && !counts.failed
      ? [`every MUST clause${report.overlay ? ' and declared choice' : ''} was verified (${counts.verified})`]
      : counts
        ? [counts.words]
        : [];
  const lines = [
    `${counts ? counts.words : `not verified: ${open.clauses.length} clause${open.clauses.length === 1 ? '' : 's'}`}${report.requireComplete ? '; this run requires every MUST clause verified' : ''}`,
  ];
  for (const e of errors) lines.push(`  ERROR ${e.check}: ${e.message}`);
  // Groups left out with --only: one line, not one per clause.
  if (open.unselected.length)
    lines.push(
      `  ${open.unselectedClauses} clauses need checks of groups this run did not select (--only): ${open.unselected.map((g) => g.group).join(', ')}`
    );
  // The clause named once, then each reason its checks gave.
  for (const c of open.clauses)
    c.reasons.forEach((r, i) =>
      lines.push(
        `  ${(i ? '' : c.clause).padEnd(26)} ${r.checks.join(', ')}: ${r.reason}${c.blocking ? '' : ' (not blocking)'}`,
        `  ${''.padEnd(26)} to verify: ${r.howToVerify}`
      )
    );
  return lines;
}

/** The "partly verified" block: verified clauses whose checks exercised part of their domain, and what is left. */
function partlyVerifiedLines(report: RunReport): string[] {
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

/** Under --expect, what the file made of the failures and warnings, in the words every format uses. */
function expectedLines(report: RunReport): string[] {
  const words = overviewOf(report).expected;
  return words ? [`expectations: ${words}`] : [];
}

/** Each limit probe's requests, 429 share, latency, Retry-After values and waits (the model's words, target seconds). */
function limitProbeLines(report: RunReport): string[] {
  const probes = (report.limitProbes ?? []).filter((p) => p.stats);
  const checks = report.limitChecks ?? [];
  return [
    ...(probes.length
      ? ['limit probes (every duration in target seconds):', ...probes.map((p) => `  ${p.stats!.words}`)]
      : []),
    ...(checks.length
      ? ["limit checks, each one's own requests (target seconds):", ...checks.map((c) => `  ${c.stats.words}`)]
      : []),
  ];
}

/** What --quiet keeps: the verdict line and each failure, one line each (the evidence is in the reports). */
export function quietSummaryLines(report: RunReport): string[] {
  const s = report.summary;
  return [
    `verdict: ${report.verdict}  (${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped)`,
    ...expectedLines(report),
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
    ...expectedLines(report),
    ...leftBehindLines(report),
    ...notVerifiedLines(report),
    ...partlyVerifiedLines(report),
    ...limitProbeLines(report),
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
    lines.push(
      '',
      `token for the curl lines (the key read as the run read it; a spent issuance budget is waited out): ${report.tokenCommand}`
    );
  lines.push('', ...rerunLines(report));
  return lines;
}

/** The rerun line, and once above it the variables it reads its secrets from (no secret is on it). */
function rerunLines(report: Pick<RunReport, 'reproduce' | 'reproduceReads'>): string[] {
  const reads = report.reproduceReads ?? [];
  return [
    ...(reads.length
      ? [`the rerun reads ${reads.join(', ')} from the environment or .env (no key is on its line)`]
      : []),
    `rerun: ${report.reproduce}`,
  ];
}
