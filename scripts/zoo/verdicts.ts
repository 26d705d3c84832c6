// What the zoo's runs mean: a clean member must be judged clean, a member's fault must be caught, and a miss is
// pointed at the checks that cite the clause it breaks. Pure functions over reports, so the test suite can hold them.
import type { MemberFault } from './members.ts';
import type { Profile, SuiteRun } from './suite-run.ts';
import { findings } from './suite-run.ts';

/** A clean member's run: what would make it a false verdict. */
export interface CleanJudgement {
  clean: boolean;
  /** Failed, warned or errored checks, each with its message: every one is a false verdict on a conforming target. */
  problems: string[];
  /** Checks that could not decide, with why (allowed: certify may be incomplete, with the reason). */
  undecided: string[];
}

export function judgeClean(run: SuiteRun, profile: Profile): CleanJudgement {
  const problems: string[] = [];
  if (run.verdict === 'error') problems.push(`the run could not start: ${run.error ?? 'no reason given'}`);
  for (const c of run.checks) {
    if (c.status === 'failed' || c.status === 'warning' || c.status === 'error')
      problems.push(`${c.status} ${c.id}: ${c.message}`);
  }
  const acceptable = profile === 'certify' ? ['conformant', 'incomplete'] : ['conformant', 'incomplete'];
  if (run.verdict !== 'error' && !acceptable.includes(run.verdict)) problems.push(`verdict ${run.verdict}`);
  const undecided = run.notVerified.map((n) => `${n.clause}: ${n.reason}`);
  return { clean: problems.length === 0, problems, undecided };
}

/** A fault run: caught when the verdict turns as its level says (MUST: a failure; SHOULD: a failure or a warning). */
export function caught(fault: MemberFault, run: SuiteRun): { caught: boolean; by: string[] } {
  const f = findings(run);
  const by = fault.level === 'MUST' ? f.failed : [...f.failed, ...f.warned];
  return { caught: by.length > 0, by };
}

export interface ClauseRef {
  id: string;
  text: string;
}

const WORDS = (s: string) =>
  new Set(
    s
      .toLowerCase()
      .replace(/[^a-z0-9_/]+/g, ' ')
      .split(' ')
      .filter((w) => w.length > 2)
  );

/** The clause of spec/clauses.yaml whose text shares most words with the sentence a member's author quoted. */
export function nearestClause(quote: string, clauses: readonly ClauseRef[]): ClauseRef | undefined {
  const q = WORDS(quote);
  let best: { clause: ClauseRef; score: number } | undefined;
  for (const clause of clauses) {
    const t = WORDS(clause.text);
    let shared = 0;
    for (const w of q) if (t.has(w)) shared++;
    const score = shared / Math.sqrt(Math.max(1, q.size) * Math.max(1, t.size));
    if (!best || score > best.score) best = { clause, score };
  }
  return best && best.score > 0.15 ? best.clause : undefined;
}
