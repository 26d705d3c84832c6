// cloud-conformance diff OLD.json NEW.json: what changed between two runs, by check and by clause. Reports
// of different suite or document versions are compared by id, and the diff says that they differ.
import { ledgerOf, type CheckReport, type RunReport } from '../engine/run/report.ts';

/** A clause's standing in one run: failed (a check citing it failed), verified, not verified, or absent. */
type ClauseStanding = 'failed' | 'verified' | 'not verified' | 'absent';
/** A check's standing: its status, or absent (not in that run). */
type CheckStanding = CheckReport['status'] | 'absent';

interface Change<S> {
  id: string;
  from: S;
  to: S;
}

interface ReportDiff {
  /** What differs between the runs' suites and documents (empty when they are the same). */
  versions: string[];
  checks: {
    newlyFailing: Array<Change<CheckStanding>>;
    newlyPassing: Array<Change<CheckStanding>>;
    newlyNotVerified: Array<Change<CheckStanding>>;
    newWarnings: Array<Change<CheckStanding>>;
    warningsGone: Array<Change<CheckStanding>>;
  };
  clauses: {
    newlyFailing: Array<Change<ClauseStanding>>;
    newlyVerified: Array<Change<ClauseStanding>>;
    newlyNotVerified: Array<Change<ClauseStanding>>;
  };
  verdict: { from: string; to: string };
  /** Resources each run left on the target (its ledger.leftBehind; 0 for reports written before it was kept). */
  leftBehind: { from: number; to: number };
  /** A check newly failing, or a clause newly failing or no longer verified: exit 1. */
  regression: boolean;
}

/** Every clause either run names, with its standing in a report. */
function clauseStandings(r: RunReport): Map<string, ClauseStanding> {
  const out = new Map<string, ClauseStanding>();
  for (const id of r.coverage?.verified ?? []) out.set(id, 'verified');
  for (const n of r.coverage?.notVerified ?? []) out.set(n.clause, 'not verified');
  for (const c of r.checks) {
    if (c.status !== 'failed' || c.level === 'should') continue;
    for (const id of c.clauses) out.set(id, 'failed');
  }
  return out;
}

const decided = (s: CheckStanding) => s === 'passed' || s === 'failed' || s === 'warning';

/** The difference between two runs' JSON reports. */
export function diffReports(older: RunReport, newer: RunReport): ReportDiff {
  const versions: string[] = [];
  if (older.tool?.version !== newer.tool?.version)
    versions.push(`suite ${older.tool?.version ?? '?'} → ${newer.tool?.version ?? '?'}`);
  if (older.digests?.clauses !== newer.digests?.clauses) versions.push('clause list (spec/clauses.yaml) differs');
  if (older.digests?.openapi !== newer.digests?.openapi) versions.push('OpenAPI document (spec/openapi.yaml) differs');
  if ((older.overlay ?? '') !== (newer.overlay ?? ''))
    versions.push(`overlay ${older.overlay ?? 'none'} → ${newer.overlay ?? 'none'}`);
  if (older.profile !== newer.profile) versions.push(`profile ${older.profile} → ${newer.profile}`);

  const oldChecks = new Map(older.checks.map((c) => [c.id, c.status as CheckStanding]));
  const newChecks = new Map(newer.checks.map((c) => [c.id, c.status as CheckStanding]));
  const ids = [...new Set([...oldChecks.keys(), ...newChecks.keys()])].sort();
  const checks: ReportDiff['checks'] = {
    newlyFailing: [],
    newlyPassing: [],
    newlyNotVerified: [],
    newWarnings: [],
    warningsGone: [],
  };
  for (const id of ids) {
    const from = oldChecks.get(id) ?? 'absent';
    const to = newChecks.get(id) ?? 'absent';
    if (from === to) continue;
    const change = { id, from, to };
    if (to === 'failed') checks.newlyFailing.push(change);
    else if (to === 'passed') checks.newlyPassing.push(change);
    else if (to === 'warning') checks.newWarnings.push(change);
    else if (decided(from)) checks.newlyNotVerified.push(change);
    if (from === 'warning' && to !== 'failed') checks.warningsGone.push(change);
  }

  const oldClauses = clauseStandings(older);
  const newClauses = clauseStandings(newer);
  const clauses: ReportDiff['clauses'] = { newlyFailing: [], newlyVerified: [], newlyNotVerified: [] };
  for (const id of [...new Set([...oldClauses.keys(), ...newClauses.keys()])].sort()) {
    const from = oldClauses.get(id) ?? 'absent';
    const to = newClauses.get(id) ?? 'absent';
    if (from === to) continue;
    if (to === 'failed') clauses.newlyFailing.push({ id, from, to });
    else if (to === 'verified') clauses.newlyVerified.push({ id, from, to });
    else if (from === 'verified' || from === 'failed') clauses.newlyNotVerified.push({ id, from, to });
  }
  const regression =
    checks.newlyFailing.length > 0 ||
    clauses.newlyFailing.length > 0 ||
    clauses.newlyNotVerified.some((c) => c.from === 'verified');
  const leftBehind = { from: ledgerOf(older).leftBehind.length, to: ledgerOf(newer).leftBehind.length };
  return { versions, checks, clauses, verdict: { from: older.verdict, to: newer.verdict }, leftBehind, regression };
}

const SECTIONS: Array<[string, (d: ReportDiff) => Array<Change<string>>]> = [
  ['checks newly failing', (d) => d.checks.newlyFailing],
  ['clauses newly failing', (d) => d.clauses.newlyFailing],
  ['clauses no longer verified', (d) => d.clauses.newlyNotVerified.filter((c) => c.from === 'verified')],
  ['clauses failing before, not judged now', (d) => d.clauses.newlyNotVerified.filter((c) => c.from !== 'verified')],
  ['checks newly not verified', (d) => d.checks.newlyNotVerified],
  ['new warnings', (d) => d.checks.newWarnings],
  ['checks newly passing', (d) => d.checks.newlyPassing],
  ['clauses newly verified', (d) => d.clauses.newlyVerified],
  ['warnings gone', (d) => d.checks.warningsGone],
];

/** The headline counts exactly the sections below it, by the same names. */
const headline = (d: ReportDiff) => {
  const counts = SECTIONS.map(([name, get]) => [name, get(d).length] as const).filter(([, n]) => n > 0);
  return `${d.regression ? 'REGRESSION' : 'no regression'}: verdict ${d.verdict.from} → ${d.verdict.to}; ${counts.length ? counts.map(([name, n]) => `${n} ${name}`).join(', ') : 'no check or clause changed'}`;
};

/** Resources left on the target, when either run left any (what a person must delete, whatever the checks say). */
const leftLine = (d: ReportDiff): string | undefined =>
  d.leftBehind.from || d.leftBehind.to
    ? `left behind on the target: ${d.leftBehind.from} → ${d.leftBehind.to} resources (ledger.leftBehind)`
    : undefined;

/** The diff for a terminal: a headline, what differs between the runs, then each non-empty section. */
export function diffText(d: ReportDiff): string[] {
  const lines = [headline(d)];
  if (d.versions.length) lines.push(`the runs differ (compared by check and clause id): ${d.versions.join('; ')}`);
  if (leftLine(d)) lines.push(leftLine(d)!);
  for (const [title, pick] of SECTIONS) {
    const items = pick(d);
    if (items.length === 0) continue;
    lines.push(`${title} (${items.length}):`);
    for (const c of items) lines.push(`  ${c.id}  ${c.from} → ${c.to}`);
  }
  return lines;
}

/** The diff as Markdown, fit for a pull-request comment. */
export function diffMarkdown(d: ReportDiff): string {
  const out = [
    `### Conformance: ${d.regression ? '❌ regression' : '✅ no regression'}`,
    '',
    headline(d).replace(/^[^:]+: /, ''),
  ];
  if (d.versions.length) out.push('', `> The runs differ (compared by check and clause id): ${d.versions.join('; ')}`);
  if (leftLine(d)) out.push('', `> ⚠️ ${leftLine(d)!}`);
  for (const [title, pick] of SECTIONS) {
    const items = pick(d);
    if (items.length === 0) continue;
    out.push(
      '',
      `**${title[0]!.toUpperCase()}${title.slice(1)} (${items.length})**`,
      '',
      '| id | before | after |',
      '|---|---|---|'
    );
    for (const c of items) out.push(`| \`${c.id}\` | ${c.from} | ${c.to} |`);
  }
  return out.join('\n') + '\n';
}
