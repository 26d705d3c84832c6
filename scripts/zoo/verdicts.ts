// What the zoo's runs mean: a clean member must be judged clean, a member's fault must be caught, and a miss is
// pointed at the checks that cite the clause it breaks. Pure functions over reports, so the test suite can hold them.
import type { MemberFault } from './members.ts';
import type { Profile, SuiteRun } from './suite-run.ts';
import { findings } from './suite-run.ts';
import YAML from 'yaml';

/** A clean member's run: what would make it a false verdict. */
interface CleanJudgement {
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

/**
 * A fault run: caught when the verdict turns as its level says (MUST: a failure; SHOULD: a failure or a warning), by a
 * check that did not already fail or warn on the clean member in the same configuration: a member judged unclean
 * would otherwise count every one of its faults as caught by its own false finding.
 */
export function caught(fault: MemberFault, run: SuiteRun, clean?: SuiteRun): { caught: boolean; by: string[] } {
  const f = findings(run);
  const already = new Set(clean ? [...findings(clean).failed, ...findings(clean).warned] : []);
  const by = (fault.level === 'MUST' ? f.failed : [...f.failed, ...f.warned]).filter((id) => !already.has(id));
  return { caught: by.length > 0, by };
}

/** How a fault can be reached (scripts/zoo/kinds.yaml): through the seed's operations, or only a declared one. */
export type FaultKind = 'seed' | 'declared' | 'unobservable';

interface KindEntry {
  kind: FaultKind;
  /** For declared: the operation the document does not show; for unobservable: why. */
  because?: string;
}

/** The kinds file: member → fault → kind (a bare word, or an object with needs/why). */
export function parseKinds(text: string): Map<string, Map<string, KindEntry>> {
  const raw = (YAML.parse(text) ?? {}) as Record<string, Record<string, unknown>>;
  const out = new Map<string, Map<string, KindEntry>>();
  for (const [member, faults] of Object.entries(raw)) {
    const m = new Map<string, KindEntry>();
    for (const [name, v] of Object.entries(faults ?? {})) {
      const o = (typeof v === 'string' ? { kind: v } : v) as { kind?: unknown; needs?: unknown; why?: unknown };
      if (o.kind !== 'seed' && o.kind !== 'declared' && o.kind !== 'unobservable')
        throw new Error(`kinds: ${member} ${name}: kind must be seed, declared or unobservable`);
      const because = typeof o.needs === 'string' ? o.needs : typeof o.why === 'string' ? o.why : undefined;
      m.set(name, { kind: o.kind, ...(because ? { because } : {}) });
    }
    out.set(member, m);
  }
  return out;
}

/** Why a fault was missed, as the team traced it (scripts/zoo/diagnoses.yaml): the class of miss it belongs to. */
export interface Diagnosis {
  class: string;
  why: string;
}

export function parseDiagnoses(text: string): Map<string, Diagnosis> {
  const raw = (YAML.parse(text) ?? {}) as Record<string, Record<string, { class?: unknown; why?: unknown }>>;
  const out = new Map<string, Diagnosis>();
  for (const [member, faults] of Object.entries(raw))
    for (const [name, d] of Object.entries(faults ?? {})) {
      if (typeof d?.class !== 'string' || typeof d.why !== 'string')
        throw new Error(`diagnoses: ${member} ${name}: needs class and why`);
      out.set(`${member}/${name}`, { class: d.class, why: d.why });
    }
  return out;
}

/** Caught / counted per level and kind, for one member's fault results. */
export function killRates(
  results: ReadonlyArray<{ fault: MemberFault; kind: FaultKind; caughtIn?: string }>
): Record<string, { caught: number; of: number }> {
  const rates: Record<string, { caught: number; of: number }> = {};
  for (const r of results) {
    const key = `${r.fault.level} ${r.kind}`;
    const e = (rates[key] ??= { caught: 0, of: 0 });
    e.of++;
    if (r.caughtIn) e.caught++;
  }
  return rates;
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
