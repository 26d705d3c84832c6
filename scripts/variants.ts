// npm run variants: soundness as a CI gate, the counterpart of npm run mutants. Runs the suite zero-config (no overlay)
// against the clean embedded reference target, against each conforming variant of fixtures/reference/variants.ts alone,
// against each variant of the embedded S3 endpoint (fixtures/s3/variants.ts) alone with the s3 group,
// and against seeded random combinations of the API target's (at most one per dimension), each run as test/variant-runs.ts says
// (the time scales the tests use), in a few worker processes. Prints the matrix variant ×
// what noticed it (observations that differ from the clean run's, checks whose status or message differs) and exits
// non-zero unless:
//   - every variant and combination run ends conformant, with no failed check and no check in error;
//   - no run has a warning the clean reference does not raise in the same configuration;
//   - every run, repeated (2 times by default), gives the same status per check.
//
// Options: --concurrency N (default 3), --repeat N (default 2), --variants a,b (a subset, no combinations),
//          --combinations N (default 20), --seed N (of the combinations, default 11), --json PATH.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  API_VARIANTS,
  CLEAN_RUNS,
  S3_VARIANTS,
  combinations,
  runsFor,
  s3RunsFor,
  type LabelledRun,
} from './gates/variant-runs.ts';
import type { ReferenceRun } from './gates/reference-run.ts';
import { allChecks } from '../suites/index.ts';

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

// ---- worker: runs what the parent sends, one run at a time, and answers each ---------------------------------------
// A worker loads the suite once and serves many runs (each against a fresh embedded target): loading the modules costs
// about as much CPU as a run, so one process per run would double the gate's time.
if (process.argv[2] === '--worker') {
  const { runAgainstReference } = await import('./gates/reference-run.ts');
  process.on('message', (msg: { i: number; run: ReferenceRun }) => {
    void (async () => {
      const started = Date.now();
      let result: RunResult;
      try {
        const report = await runAgainstReference(msg.run);
        result = {
          verdict: report.verdict,
          checks: report.checks.map((c) => ({ id: c.id, status: c.status, message: c.message })),
          // Compared key by key with the clean run's, whatever the key.
          observations: Object.fromEntries(Object.entries(report.observations)),
          wallMs: Date.now() - started,
        };
      } catch (err) {
        result = {
          verdict: 'error',
          checks: [],
          observations: {},
          wallMs: Date.now() - started,
          error: `the run threw: ${(err as Error).message}`,
        };
      }
      process.send!({ i: msg.i, result });
    })();
  });
  process.send!({ ready: true });
  await new Promise(() => {});
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
const RUN_TIMEOUT_MS = 10 * 60_000;

const unknown = SUBSET?.filter((n) => ![...API_VARIANTS, ...S3_VARIANTS].some((v) => v.name === n)) ?? [];
if (unknown.length) {
  console.error(`unknown variant in --variants: ${unknown.join(', ')}`);
  process.exit(2);
}

/** A worker process and the run it is busy with. */
class Worker {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private pending: { i: number; resolve: (r: RunResult) => void; timer: NodeJS.Timeout; started: number } | undefined;
  private stderr = '';
  private seq = 0;

  private start(): Promise<void> {
    // process.execArgv carries tsx's loader, so the worker runs this same file under tsx.
    const child = fork(SELF, ['--worker'], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child = child;
    this.stderr = '';
    child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    const ready = new Promise<void>((resolve) => {
      child.on('message', (m: { ready?: true; i?: number; result?: RunResult }) => {
        if (m.ready) return resolve();
        if (this.pending && m.i === this.pending.i) this.settle(m.result!);
      });
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      this.ready = undefined;
      if (this.pending)
        this.settle({
          verdict: 'error',
          checks: [],
          observations: {},
          wallMs: Date.now() - this.pending.started,
          error: `worker exited ${signal ?? code}: ${this.stderr.trim().split('\n').slice(-3).join(' | ')}`,
        });
    });
    return ready;
  }

  private settle(r: RunResult): void {
    const p = this.pending!;
    this.pending = undefined;
    clearTimeout(p.timer);
    p.resolve(r);
  }

  async run(run: ReferenceRun): Promise<RunResult> {
    this.ready ??= this.start();
    await this.ready;
    const i = ++this.seq;
    return new Promise((resolve) => {
      // A run that outlives its bound is ended with its worker; the next run starts a new one.
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), RUN_TIMEOUT_MS);
      this.pending = { i, resolve, timer, started: Date.now() };
      this.child!.send({ i, run });
    });
  }

  stop(): void {
    this.child?.kill();
  }
}

const workers = Array.from({ length: Math.max(1, CONCURRENCY) }, () => new Worker());

/** Runs jobs on the first `n` workers, in the order given. */
async function pool<T>(jobs: Array<(w: Worker) => Promise<T>>, n: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const drain = async (w: Worker) => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!(w);
    }
  };
  await Promise.all(workers.slice(0, Math.max(1, Math.min(n, jobs.length))).map(drain));
  return results;
}

/** What is being run: the clean reference, one variant, or a combination. */
type Subject =
  { kind: 'clean' } | { kind: 'variant'; name: string } | { kind: 'combination'; n: number; names: string[] };
interface Job {
  subject: Subject;
  labelled: LabelledRun;
  rep: number;
}

const singles = SUBSET ? API_VARIANTS.filter((v) => SUBSET.includes(v.name)) : API_VARIANTS;
const s3Singles = SUBSET ? S3_VARIANTS.filter((v) => SUBSET.includes(v.name)) : S3_VARIANTS;
const combos = combinations(COMBINATIONS, SEED);
const judged: Array<{ subject: Subject; runs: LabelledRun[] }> = [
  ...singles.map((v) => ({ subject: { kind: 'variant' as const, name: v.name }, runs: runsFor([v.name]) })),
  ...s3Singles.map((v) => ({ subject: { kind: 'variant' as const, name: v.name }, runs: s3RunsFor(v.name) })),
  ...combos.map((names, i) => ({ subject: { kind: 'combination' as const, n: i + 1, names }, runs: runsFor(names) })),
];
// The clean reference in the configurations the variants run in (all of them on a full run).
const cleanRuns = CLEAN_RUNS.filter((c) => judged.some((j) => j.runs.some((r) => r.config === c.config)));
const subjects: Array<{ subject: Subject; runs: LabelledRun[] }> = [
  { subject: { kind: 'clean' }, runs: cleanRuns },
  ...judged,
];
// The clean runs are repeated at least twice: messages that differ between two clean runs (timings, poll counts) are
// compared without their numbers.
const repeatsOf = (s: Subject) => (s.kind === 'clean' ? Math.max(2, REPEAT) : REPEAT);
const jobs: Job[] = subjects.flatMap(({ subject, runs }) =>
  runs.flatMap((labelled) => Array.from({ length: repeatsOf(subject) }, (_, rep) => ({ subject, labelled, rep })))
);
/**
 * Runs that wait out a window at time scale 10 judge bursts against a 6-second window: they run first, at most two at a
 * time (one per core), so a busy machine does not turn a probe inconclusive in one repetition and not in the other.
 */
const timed = (r: ReferenceRun) => r.profile === 'full';
const name = (s: Subject) => (s.kind === 'clean' ? 'clean' : s.kind === 'variant' ? s.name : `combination ${s.n}`);
const started = Date.now();
let done = 0;
console.error(
  `variants: ${singles.length + s3Singles.length} variants alone (${s3Singles.length} of the S3 endpoint), ${combos.length} combinations, the clean reference; ${jobs.length} runs (${REPEAT} of each), ${CONCURRENCY} at a time`
);
const runJob = (job: Job) => async (w: Worker) => {
  const r = await w.run(job.labelled.run);
  done++;
  console.error(
    `  [${String(done).padStart(3)}/${jobs.length}] ${name(job.subject)} (${job.labelled.config}) #${job.rep + 1}: ${r.verdict} in ${(r.wallMs / 1000).toFixed(1)} s${r.error ? ` (${r.error})` : ''}`
  );
  return { job, result: r };
};
const results = [
  ...(await pool(jobs.filter((j) => timed(j.labelled.run)).map(runJob), Math.min(2, CONCURRENCY))),
  // Limit runs at scale 1 wait on real windows: they go first, so the pool's tail is short.
  ...(await pool(
    jobs
      .filter((j) => !timed(j.labelled.run))
      .sort(
        (a, b) => Number(!!b.labelled.run.only?.includes('limits')) - Number(!!a.labelled.run.only?.includes('limits'))
      )
      .map(runJob),
    CONCURRENCY
  )),
];
for (const w of workers) w.stop();
const wallSeconds = (Date.now() - started) / 1000;

const problems: string[] = [];
const resultsOf = (s: Subject, config: string) =>
  results.filter((x) => name(x.job.subject) === name(s) && x.job.labelled.config === config).map((x) => x.result);
const cleanOf = (config: string) => resultsOf({ kind: 'clean' }, config)[0];
/** Messages compared without the run's ids (run id, task and VM ids); `loose` also without numbers (timings, polls). */
const shape = (m: string, loose: boolean) => {
  // Which task states a poll happened to see depends on timing, not on the target's choices.
  const ids = m
    .replace(/[0-9a-f]{8,}/gi, 'ID')
    .replace(/\b(vm|task|bk|evt|req)[-_][0-9a-z]+/gi, '$1-ID')
    .replace(/ \(states seen: [^)]*\)/g, '');
  return loose ? ids.replace(/\d+(\.\d+)?/g, '#') : ids;
};
/** Checks whose message differs between two clean runs of a configuration, ids aside: their numbers are noise. */
const noisy = (config: string) => {
  const reps = resultsOf({ kind: 'clean' }, config);
  return new Set(
    reps[0]?.checks
      .filter((c) =>
        reps.some((r) => shape(r.checks.find((x) => x.id === c.id)?.message ?? '', false) !== shape(c.message, false))
      )
      .map((c) => c.id)
  );
};
/** An observation as compared: of the task states, the field and the last state (the ones seen before depend on timing). */
const observed = (key: string, value: unknown): unknown => {
  if (key !== 'taskStates' || !value || typeof value !== 'object') return value;
  const { field, seen } = value as { field?: string; seen?: string[] };
  return { field, last: seen?.[seen.length - 1] };
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
      problems.push(
        `${label}${at}: verdict ${r.verdict}; ${failed.map((c) => `${c.id} ${c.status}: ${c.message.slice(0, 240)}`).join('; ') || 'no failed check'}`
      );
    }
    for (const w of r.checks.filter((c) => c.status === 'warning' && !cleanWarnings.has(c.id))) {
      problems.push(`${label}${at}: new warning ${w.id}: ${w.message.slice(0, 240)}`);
    }
  }
  if (new Set(reps.map(statuses)).size > 1) {
    const ids = [...new Set(reps.flatMap((r) => r.checks.map((c) => c.id)))];
    const unstable = ids.filter(
      (id) => new Set(reps.map((r) => r.checks.find((c) => c.id === id)?.status ?? 'absent')).size > 1
    );
    problems.push(`${label}: not repeatable: ${unstable.join(', ')}`);
  }
  const first = reps[0];
  if (!first || !clean || s.kind === 'clean')
    return { observations: [], checks: [], verdicts: reps.map((r) => r.verdict) };
  const keys = [...new Set([...Object.keys(first.observations), ...Object.keys(clean.observations)])];
  const observations = keys.filter(
    (k) => JSON.stringify(observed(k, first.observations[k])) !== JSON.stringify(observed(k, clean.observations[k]))
  );
  const loose = noisy(config);
  // A status that differs, a message that says something else, or (marked #) the same message with other numbers.
  const checks = first.checks.flatMap((c) => {
    const base = clean.checks.find((x) => x.id === c.id);
    if (!base) return [];
    if (base.status !== c.status) return [`${c.id} (${c.status})`];
    if (shape(base.message, true) !== shape(c.message, true)) return [c.id];
    return !loose.has(c.id) && !reviewers.has(c.id) && shape(base.message, false) !== shape(c.message, false)
      ? [`${c.id}#`]
      : [];
  });
  return { observations, checks, verdicts: reps.map((r) => r.verdict) };
}

// ---- the clean reference ------------------------------------------------------------------------------------------
console.log('\n== clean reference target ==');
for (const { config } of cleanRuns) {
  judge({ kind: 'clean' }, config);
  const reps = resultsOf({ kind: 'clean' }, config);
  const noisy = reps.flatMap((r) =>
    r.checks
      .filter((c) => c.status === 'failed' || c.status === 'warning' || c.status === 'error')
      .map((c) => `${c.id} ${c.status}`)
  );
  console.log(
    `${config.padEnd(24)} ${reps.length} runs, ${reps[0]?.checks.length ?? 0} checks: ${noisy.length ? `NOT CLEAN: ${[...new Set(noisy)].join(', ')}` : 'no failure, no warning'}`
  );
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
  console.log(
    `\n== ${title} ==  (per configuration: verdicts; observations that differ from the clean run; checks whose status or message differs, # only in its numbers)`
  );
  for (const { subject, runs } of list) {
    const row: Row = {
      subject: name(subject),
      variants: subject.kind === 'variant' ? [subject.name] : subject.kind === 'combination' ? subject.names : [],
      configs: [],
    };
    for (const { config } of runs) row.configs.push({ config, ...judge(subject, config) });
    matrix.push(row);
    const head =
      subject.kind === 'combination' ? `#${String(subject.n).padEnd(3)} ${subject.names.join(' + ')}` : row.subject;
    console.log(head);
    for (const c of row.configs) {
      const verdict = [...new Set(c.verdicts)].join('/');
      console.log(
        `    ${c.config.padEnd(24)} ${verdict.padEnd(13)} observed: ${c.observations.join(', ') || '-'}; checks: ${c.checks.join(', ') || '-'}`
      );
    }
  }
};
print(
  'each variant alone',
  subjects.filter((s) => s.subject.kind === 'variant')
);
if (combos.length)
  print(
    `seeded combinations (seed ${SEED})`,
    subjects.filter((s) => s.subject.kind === 'combination')
  );

const untouched = matrix
  .filter(
    (r) => r.variants.length === 1 && r.configs.every((c) => c.observations.length === 0 && c.checks.length === 0)
  )
  .map((r) => r.subject);
console.log(
  `\nvariants no observation or check noticed (${untouched.length} of ${singles.length + s3Singles.length}): ${untouched.join(', ') || 'none'}`
);
console.log(`wall time: ${wallSeconds.toFixed(1)} s for ${jobs.length} runs, ${CONCURRENCY} at a time`);

if (JSON_OUT)
  writeFileSync(
    JSON_OUT,
    JSON.stringify({ wallSeconds, concurrency: CONCURRENCY, repeat: REPEAT, seed: SEED, matrix, problems }, null, 2) +
      '\n'
  );

if (problems.length) {
  console.log(`\nGATE FAILED (${problems.length}):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('\ngate passed');
