import type { InputNames } from '../config/config.ts';
import type { ClauseList } from '../../spec/clauses.ts';
import type { Check } from './check.ts';
import type { CheckReport, Coverage, NotVerified } from './report.ts';

/** Checks that hold a target to a clause: those asserting at must or declared level (should checks only warn). */
const holds = (c: Check) => c.level === 'must' || c.level === 'declared';

/**
 * A clause is verified when every check that holds the target to it (must or declared level) reached a verdict, passed
 * or failed. A clause with one check that decided and another that could not stays "not verified": a weaker check
 * passing must not hide that a stronger one never ran (a list too short for the per_page cap, for one).
 */
export function computeCoverage(
  clauses: ClauseList,
  checks: readonly Check[],
  reports: readonly CheckReport[],
  opts: { overlay: boolean; only?: readonly string[]; names?: Pick<InputNames, 'only'> }
): Coverage {
  const byId = new Map(reports.map((r) => [r.id, r]));
  const mustClauses = clauses.clauses.filter((c) => c.checkable !== false && !c.deferred);
  const conditional = new Map(mustClauses.filter((c) => c.conditional).map((c) => [c.id, c.conditional!]));
  // Without an overlay the target declared nothing, so no unshown item is a requirement.
  const declared = opts.overlay
    ? clauses.unshown.filter((u) => checks.some((c) => c.level === 'declared' && c.clauses.includes(u.id)))
    : [];
  const verified: string[] = [];
  const failed: string[] = [];
  const notVerified: NotVerified[] = [];
  for (const clause of [...mustClauses, ...declared]) {
    // A MUST clause is held by its must-level checks; only a clause no must check can observe (it needs an operation
    // the seed names but does not show) is held by the declared checks that observe it through the overlay.
    const all = checks.filter((c) => holds(c) && c.clauses.includes(clause.id));
    const must = all.filter((c) => c.level === 'must');
    // An unshown item is held by the declared checks of designs the overlay declares (a test event it does not declare
    // is no requirement); a MUST clause stays open whatever the reason.
    const citing = clause.id.startsWith('U-')
      ? all.filter((c) => c.level === 'declared' && !byId.get(c.id)?.undeclared)
      : must.length
        ? must
        : all;
    if (citing.length === 0) continue;
    // A check holding the clause failed: the clause failed, whatever else decided or not (never also shown verified).
    if (all.some((c) => byId.get(c.id)?.status === 'failed')) failed.push(clause.id);
    const open: NotVerified[] = [];
    for (const check of citing) {
      const r = byId.get(check.id);
      const blocking = !conditional.has(clause.id);
      if (!r) {
        open.push({
          clause: clause.id,
          check: check.id,
          reason: `group ${check.group} was not selected`,
          howToVerify: opts.only
            ? `add ${check.group} to ${opts.names?.only ?? 'the groups selected'}`
            : `select group ${check.group}`,
          blocking,
        });
      } else if (r.status === 'skipped') {
        open.push({
          clause: clause.id,
          check: check.id,
          reason: r.message,
          howToVerify: r.howToVerify ?? conditional.get(clause.id) ?? 'see the reason',
          blocking,
        });
      } else if (r.status === 'error') {
        open.push({
          clause: clause.id,
          check: check.id,
          reason: `the check could not run: ${r.message}`,
          howToVerify: 'rerun; if it persists, report the error with this report',
          blocking,
        });
      }
    }
    if (open.length === 0) verified.push(clause.id);
    else notVerified.push(...open);
  }
  return { verified, notVerified, failed };
}

/** True when a MUST or declared clause that a conforming target must show was left unverified. */
export function isIncomplete(coverage: Coverage): boolean {
  // A clause exercised on part of its domain, the rest within the run's reach, is not verified whole either.
  return coverage.notVerified.some((n) => n.blocking) || (coverage.partlyVerified?.length ?? 0) > 0;
}
