import { DOMAIN_DIMENSIONS } from '../spec/clauses.ts';
import { ledgerOf, levelShown, overviewOf, type RunReport } from '../engine/run/report.ts';

const xml = (s: string) =>
  s
    .replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/**
 * Each clause the group's checks hold that has a domain: the points exercised of each dimension, the points left, and
 * whether it is partly verified (the suite's system-out, so the testcase counts stay one per check).
 */
function domainLines(report: RunReport, clauses: readonly string[]): string[] {
  const partly = report.coverage?.partlyVerified ?? [];
  return (report.coverage?.domains ?? [])
    .filter((d) => clauses.includes(d.clause))
    .map((d) => {
      const dims = DOMAIN_DIMENSIONS.filter((dim) => d.domain[dim]?.length).map((dim) => {
        const left = d.missing
          .filter((m) => m.dimension === dim)
          .map((m) => (m.possible ? m.point : `${m.point} (out of reach: ${m.reason})`));
        return `${dim} ${d.exercised[dim]?.length ?? 0}/${d.domain[dim]!.length}${left.length ? ` (not exercised: ${left.join(', ')})` : ''}`;
      });
      return `domain of ${d.clause}: ${dims.join('; ')}${partly.includes(d.clause) ? ' - PARTLY VERIFIED' : ''}`;
    });
}

/** JUnit XML: one testsuite per group, one testcase per check, clause ids in the name; the clauses' domains in each suite's system-out. */
export function renderJunit(report: RunReport): string {
  const groups = [...new Set(report.checks.map((c) => c.group))];
  const props = runProperties(report);
  const suites = groups.map((group) => {
    const checks = report.checks.filter((c) => c.group === group);
    const cases = checks.map((c) => {
      const name = `${c.id} [${c.level.toUpperCase()}] (${c.clauses.join(', ')})`;
      const time = (c.durationMs / 1000).toFixed(3);
      let inner = '';
      // A failure the expectations file lists is a skip with the reason: GitLab's, Jenkins' and GitHub's test reports
      // show it as neither passed nor failed (a red test tab on a job the gate passed misleads); the finding stays in the message.
      if (c.status === 'failed' && c.expected)
        inner = `<skipped message="${xml(`expected${c.expected.reason ? `: ${c.expected.reason}` : ''}${c.expected.reference ? ` (${c.expected.reference})` : ''}: FAILED (${levelShown(c)}) ${c.message}`)}"/>`;
      else if (c.status === 'failed')
        inner = `<failure message="${xml(c.message)}" type="${levelShown(c)}">${xml(JSON.stringify({ findings: c.findings, evidence: c.evidence ?? {} }, null, 2))}</failure>`;
      // A skipped MUST check is a clause not verified: it says why, and what would verify it.
      else if (c.status === 'skipped')
        inner = `<skipped message="${xml(`${c.level === 'should' ? '' : 'NOT VERIFIED: '}${c.message}${c.howToVerify ? ` (to verify: ${c.howToVerify})` : ''}`)}"/>`;
      else if (c.status === 'error') inner = `<error message="${xml(c.message)}" type="error"/>`;
      else if (c.status === 'warning')
        inner = `<system-out>${xml(`WARNING (${levelShown(c)}): ${c.message}`)}</system-out>`;
      else inner = `<system-out>${xml(c.message)}</system-out>`;
      return `    <testcase classname="${xml(`cloud-conformance.${group}`)}" name="${xml(name)}" time="${time}">${inner}</testcase>`;
    });
    const failures = checks.filter((c) => c.status === 'failed' && !c.expected).length;
    const skipped = checks.filter((c) => c.status === 'skipped' || (c.status === 'failed' && c.expected)).length;
    const errors = checks.filter((c) => c.status === 'error').length;
    const domains = domainLines(report, [...new Set(checks.flatMap((c) => c.clauses))]);
    const out = domains.length ? `\n    <system-out>${xml(domains.join('\n'))}</system-out>` : '';
    return `  <testsuite name="${xml(group)}" tests="${checks.length}" failures="${failures}" errors="${errors}" skipped="${skipped}">\n${props}${cases.join('\n')}${out}\n  </testsuite>`;
  });
  const failures = report.checks.filter((c) => c.status === 'failed' && !c.expected).length;
  const errors = report.checks.filter((c) => c.status === 'error').length;
  // A run that could not start is one errored testcase, so a CI gate never reads "0 tests" as a pass.
  const f = report.startupFailure;
  if (f) {
    const error = `<error message="${xml(f.message)}" type="${xml(f.kind)}">${xml(JSON.stringify(f.evidence, null, 2))}</error>`;
    suites.push(
      `  <testsuite name="startup" tests="1" failures="0" errors="1" skipped="0">\n    <testcase classname="cloud-conformance.startup" name="${f.kind === 'input-refused' ? "the run's own inputs (its first VM create)" : 'token issuance for the run (preflight)'}" time="0.000">${error}</testcase>\n  </testsuite>`
    );
  }
  // Resources the run left on the target: one errored testcase (the run's own failing, not the target's), so a CI
  // test report shows it beside the checks.
  const left = leftBehindSuite(report);
  if (left) suites.push(left);
  const extra = (f ? 1 : 0) + (left ? 1 : 0);
  const tests = report.checks.length + extra;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="cloud-conformance" tests="${tests}" failures="${failures}" errors="${errors + extra}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** The run's verdict, its one clause count and what --expect made of the failures, as each testsuite's properties. */
function runProperties(report: RunReport): string {
  const o = overviewOf(report);
  const props: Array<[string, string]> = [['verdict', o.verdict]];
  if (o.clauses) props.push(['clauses', o.clauses.words]);
  if (o.expected) props.push(['expectations', o.expected]);
  return `    <properties>${props.map(([k, v]) => `<property name="${k}" value="${xml(v)}"/>`).join('')}</properties>\n`;
}

/** The cleanup testsuite when something was left behind: each resource, why, and the command that deletes it. */
function leftBehindSuite(report: RunReport): string | undefined {
  const left = ledgerOf(report).leftBehind;
  if (!left.length) return undefined;
  const message = `${left.length} resource${left.length === 1 ? '' : 's'} the run created ${left.length === 1 ? 'is' : 'are'} still on the target: ${left.map((l) => `${l.kind} ${l.name ?? l.id ?? ''}`).join(', ')}`;
  const text = left
    .map(
      (l) =>
        `${l.kind} ${l.name ?? l.id ?? ''}${l.id ? ` (${l.id})` : ''}: ${l.reason}${l.deleteCommand ? `\n  delete: ${l.deleteCommand}` : ''}`
    )
    .join('\n');
  const error = `<error message="${xml(message)}" type="left-behind">${xml(text)}</error>`;
  return `  <testsuite name="cleanup" tests="1" failures="0" errors="1" skipped="0">\n    <testcase classname="cloud-conformance.cleanup" name="nothing the run created is left on the target" time="0.000">${error}</testcase>\n  </testsuite>`;
}
