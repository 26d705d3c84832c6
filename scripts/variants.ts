// npm run variants: soundness as a CI gate, the counterpart of npm run mutants. Runs the suite zero-config (no overlay)
// against the clean embedded reference target, against each conforming variant of fixtures/reference/variants.ts alone,
// and against seeded random combinations of them (at most one per dimension), each run as test/variant-runs.ts says
// (the time scales the tests use), each in a child process of its own, a few at a time. Prints the matrix variant ×
// what noticed it (observations that differ from the clean run's, checks whose status or message differs) and exits
// non-zero unless:
//   - every variant and combination run ends conformant, with no failed check and no check in error;
//   - no run has a warning the clean reference does not raise in the same configuration;
//   - every run, repeated (2 times by default), gives the same status per check.
//
// Options: --concurrency N (default 3), --repeat N (default 2), --variants a,b (a subset, no combinations),
//          --combinations N (default 20), --seed N (of the combinations, default 11), --json PATH.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_VARIANTS, CLEAN_RUNS, combinations, runsFor, type LabelledRun } from '../test/variant-runs.ts';
import type { ReferenceRun } from '../test/helpers.ts';
import { allChecks } from '../suites/index.ts';

const RESULT = '@@variants-result ';

interface CheckResult {
  id: string;
  status: string;
  message: string;
}

interface RunResult {
  verdict: string;
  checks: CheckResult[];
  observations: Record<string, unknown>;
  wallMs: number;
  error?: string;
}

// ---- child: one run, its result on stdout ------------------------------------------------------------------------
if (process.argv[2] === '--child') {
  const run = JSON.parse(process.argv[3]!) as ReferenceRun;
  const { runAgainstReference } = await import('../test/helpers.ts');
  const started = Date.now();
  const report = await runAgainstReference(run);
  const result: RunResult = {
    verdict: report.verdict,
    checks: report.checks.map((c) => ({ id: c.id, status: c.status, message: c.message })),
    observations: report.observations,
    wallMs: Date.now() - started,
  };
  process.stdout.write(`\n${RESULT}${JSON.stringify(result)}\n`);
  process.exit(0);
}

// ---- parent ------------------------------------------------------------------------------------------------------
function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const CONCURRENCY = Number(arg('--concurrency') ?? 3);
const REPEAT = Number(arg('--repeat') ?? 2);
const SUBSET = arg('--variants')?.split(',');
const COMBINATIONS = SUBSET ? 0 : Number(arg('--combinations') ?? 20);
const SEED = Number(arg('--seed') ?? 11);
const JSON_OUT = arg('--json');
const SELF = fileURLToPath(import.meta.url);
const CHILD_TIMEOUT_MS = 10 * 60_000;

const unknown = SUBSET?.filter((n) => !API_VARIANTS.some((v) => v.name === n)) ?? [];
if (unknown.length) {
  console.error(`unknown variant in --variants: ${unknown.join(', ')}`);
  process.exit(2);
}

function runChild(run: ReferenceRun): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    // process.execArgv carries tsx's loader, so the child runs this same file under tsx.
    const child = spawn(process.execPath, [...process.execArgv, SELF, '--child', JSON.stringify(run)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (line) resolve(JSON.parse(line.slice(RESULT.length)) as RunResult);
      else resolve({ verdict: 'error', checks: [], observations: {}, wallMs: Date.now() - started, error: `child exited ${signal ?? code}: ${err.trim().split('\n').slice(-3).join(' | ')}` });
    });
  });
}

/** Runs jobs CONCURRENCY at a time, in the order given. */
async function pool<T>(jobs: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return results;
}

/** What is being run: the clean reference, one variant, or a combination. */
type Subject = { kind: 'clean' } | { kind: 'variant'; name: string } | { kind: 'combination'; n: number; names: string[] };
interface Job {
  subject: Subject;
  labelled: LabelledRun;
  rep: number;
}

const singles = SUBSET ? API_VARIANTS.filter((v) => SUBSET.includes(v.name)) : API_VARIANTS;
const combos = combinations(COMBINATIONS, SEED);
const subjects: Array<{ subject: Subject; runs: LabelledRun[] }> = [
  { subject: { kind: 'clean' }, runs: CLEAN_RUNS },
  ...singles.map((v) => ({ subject: { kind: 'variant' as const, name: v.name }, runs: runsFor([v.name]) })),
  ...combos.map((names, i) => ({ subject: { kind: 'combination' as const, n: i + 1, names }, runs: runsFor(names) })),
];
// Limit runs wait on real windows: start them first so the pool's tail is short.
const weight = (r: ReferenceRun) => (r.profile === 'full' ? 3 : r.only?.includes('limits') ? 2 : 1);
// The clean runs are repeated at least twice: messages that differ between two clean runs (timings, poll counts) are
// compared without their numbers.
const repeatsOf = (s: Subject) => (s.kind === 'clean' ? Math.max(2, REPEAT) : REPEAT);
const jobs: Job[] = subjects
  .flatMap(({ subject, runs }) => runs.flatMap((labelled) => Array.from({ length: repeatsOf(subject) }, (_, rep) => ({ subject, labelled, rep }))))
  .sort((a, b) => weight(b.labelled.run) - weight(a.labelled.run));

const name = (s: Subject) => (s.kind === 'clean' ? 'clean' : s.kind === 'variant' ? s.name : `combination ${s.n}`);
const started = Date.now();
let done = 0;
console.error(`variants: ${singles.length} variants alone, ${combos.length} combinations, the clean reference; ${jobs.length} runs (${REPEAT} of each), ${CONCURRENCY} at a time`);
const results = await pool(
  jobs.map((job) => async () => {
    const r = await runChild(job.labelled.run);
    done++;
    console.error(`  [${String(done).padStart(3)}/${jobs.length}] ${name(job.subject)} (${job.labelled.config}) #${job.rep + 1}: ${r.verdict} in ${(r.wallMs / 1000).toFixed(1)} s${r.error ? ` (${r.error})` : ''}`);
    return { job, result: r };
  }),
  CONCURRENCY,
);
const wallSeconds = (Date.now() - started) / 1000;

const problems: string[] = [];
const resultsOf = (s: Subject, config: string) => results.filter((x) => name(x.job.subject) === name(s) && x.job.labelled.config === config).map((x) => x.result);
const cleanOf = (config: string) => resultsOf({ kind: 'clean' }, config)[0];
/** Messages compared without the run's ids (run id, task and VM ids); `loose` also without numbers (timings, polls). */
const shape = (m: string, loose: boolean) => {
  const ids = m.replace(/[0-9a-f]{8,}/gi, 'ID').replace(/\b(vm|task|bk|evt|req)[-_][0-9a-z]+/gi, '$1-ID');
  return loose ? ids.replace(/\d+(\.\d+)?/g, '#') : ids;
};
/** Checks whose message differs between two clean runs of a configuration, ids aside: their numbers are noise. */
const noisy = (config: string) => {
  const reps = resultsOf({ kind: 'clean' }, config);
  return new Set(reps[0]?.checks.filter((c) => reps.some((r) => shape(r.checks.find((x) => x.id === c.id)?.message ?? '', false) !== shape(c.message, false))).map((c) => c.id));
};
/** Checks that review the whole log count every request: a variant that sends a request more changes their numbers only. */
const reviewers = new Set(allChecks.filter((c) => c.reviewsLog).map((c) => c.id));
const statuses = (r: RunResult) => JSON.stringify(r.checks.map((c) => [c.id, c.status]));

/** Judges every repetition of one subject in one configuration against the gate; returns what differs from clean. */
function judge(s: Subject, config: string): { observations: string[]; checks: string[]; verdicts: string[] } {
  const reps = resultsOf(s, config);
  const clean = cleanOf(config);
  const label = `${name(s)}${s.kind === 'combination' ? ` [${s.names.join(', ')}]` : ''} (${config})`;
  const cleanWarnings = new Set(clean?.checks.filter((c) => c.status === 'warning').map((c) => c.id) ?? []);
  for (const [i, r] of reps.entries()) {
    const at = reps.length > 1 ? ` #${i + 1}` : '';
    if (r.error) {
      problems.push(`${label}${at}: ${r.error}`);
      continue;
    }
    const failed = r.checks.filter((c) => c.status === 'failed' || c.status === 'error');
    if (s.kind !== 'clean' && (r.verdict !== 'conformant' || failed.length)) {
      problems.push(`${label}${at}: verdict ${r.verdict}; ${failed.map((c) => `${c.id} ${c.status}: ${c.message.slice(0, 240)}`).join('; ') || 'no failed check'}`);
    }
    for (const w of r.checks.filter((c) => c.status === 'warning' && !cleanWarnings.has(c.id))) {
      problems.push(`${label}${at}: new warning ${w.id}: ${w.message.slice(0, 240)}`);
    }
  }
  if (new Set(reps.map(statuses)).size > 1) {
    const ids = [...new Set(reps.flatMap((r) => r.checks.map((c) => c.id)))];
    const unstable = ids.filter((id) => new Set(reps.map((r) => r.checks.find((c) => c.id === id)?.status ?? 'absent')).size > 1);
    problems.push(`${label}: not repeatable: ${unstable.join(', ')}`);
  }
  const first = reps[0];
  if (!first || !clean || s.kind === 'clean') return { observations: [], checks: [], verdicts: reps.map((r) => r.verdict) };
  const keys = [...new Set([...Object.keys(first.observations), ...Object.keys(clean.observations)])];
  const observations = keys.filter((k) => JSON.stringify(first.observations[k]) !== JSON.stringify(clean.observations[k]));
  const loose = noisy(config);
  // A status that differs, a message that says something else, or (marked #) the same message with other numbers.
  const checks = first.checks.flatMap((c) => {
    const base = clean.checks.find((x) => x.id === c.id);
    if (!base) return [];
    if (base.status !== c.status) return [`${c.id} (${c.status})`];
    if (shape(base.message, true) !== shape(c.message, true)) return [c.id];
    return !loose.has(c.id) && !reviewers.has(c.id) && shape(base.message, false) !== shape(c.message, false) ? [`${c.id}#`] : [];
  });
  return { observations, checks, verdicts: reps.map((r) => r.verdict) };
}

// ---- the clean reference ------------------------------------------------------------------------------------------
console.log('\n== clean reference target ==');
for (const { config } of CLEAN_RUNS) {
  judge({ kind: 'clean' }, config);
  const reps = resultsOf({ kind: 'clean' }, config);
  const noisy = reps.flatMap((r) => r.checks.filter((c) => c.status === 'failed' || c.status === 'warning' || c.status === 'error').map((c) => `${c.id} ${c.status}`));
  console.log(`${config.padEnd(24)} ${reps.length} runs, ${reps[0]?.checks.length ?? 0} checks: ${noisy.length ? `NOT CLEAN: ${[...new Set(noisy)].join(', ')}` : 'no failure, no warning'}`);
  if (noisy.length) problems.push(`clean reference (${config}): ${[...new Set(noisy)].join(', ')}`);
}

// ---- the matrix ---------------------------------------------------------------------------------------------------
interface Row {
  subject: string;
  variants: string[];
  configs: Array<{ config: string; verdicts: string[]; observations: string[]; checks: string[] }>;
}
const matrix: Row[] = [];
const print = (title: string, list: typeof subjects) => {
  console.log(`\n== ${title} ==  (per configuration: verdicts; observations that differ from the clean run; checks whose status or message differs, # only in its numbers)`);
  for (const { subject, runs } of list) {
    const row: Row = { subject: name(subject), variants: subject.kind === 'variant' ? [subject.name] : subject.kind === 'combination' ? subject.names : [], configs: [] };
    for (const { config } of runs) row.configs.push({ config, ...judge(subject, config) });
    matrix.push(row);
    const head = subject.kind === 'combination' ? `#${String(subject.n).padEnd(3)} ${subject.names.join(' + ')}` : row.subject;
    console.log(head);
    for (const c of row.configs) {
      const verdict = [...new Set(c.verdicts)].join('/');
      console.log(`    ${c.config.padEnd(24)} ${verdict.padEnd(13)} observed: ${c.observations.join(', ') || '-'}; checks: ${c.checks.join(', ') || '-'}`);
    }
  }
};
print('each variant alone', subjects.filter((s) => s.subject.kind === 'variant'));
if (combos.length) print(`seeded combinations (seed ${SEED})`, subjects.filter((s) => s.subject.kind === 'combination'));

const untouched = matrix.filter((r) => r.variants.length === 1 && r.configs.every((c) => c.observations.length === 0 && c.checks.length === 0)).map((r) => r.subject);
console.log(`\nvariants no observation or check noticed (${untouched.length} of ${singles.length}): ${untouched.join(', ') || 'none'}`);
console.log(`wall time: ${wallSeconds.toFixed(1)} s for ${jobs.length} runs, ${CONCURRENCY} at a time`);

if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ wallSeconds, concurrency: CONCURRENCY, repeat: REPEAT, seed: SEED, matrix, problems }, null, 2) + '\n');

if (problems.length) {
  console.log(`\nGATE FAILED (${problems.length}):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('\ngate passed');
