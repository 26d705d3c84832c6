// npm run mutants: self-validation as a CI gate. Runs the suite against the clean embedded reference target and
// against every fault of the reference catalogue (fixtures/reference/faults.ts), each run exactly as
// test/suite/faults.test.ts runs it (test/fault-runs.ts), each in a child process of its own, a few at a time.
// Prints the matrix fault × checks that caught it, the kill rates (MUST and SHOULD apart; declared counts with must),
// the kills per clause of the fault model (spec/clauses.yaml faults:), the checks no fault ever fails, and exits
// non-zero unless:
//   - the clean reference gets no failure and no warning, in every run configuration the faults use;
//   - every must or declared fault is killed (its run's verdict is nonconformant);
//   - every should fault is warned (its run has a warning);
//   - the clean runs, repeated (5 times by default), give the same status per check every time.
// The S3 faults (fixtures/s3/faults.ts) are left out: the embedded s3rver warns on two gaps of its own even when
// clean, and they are tested in test/s3.
//
// Options: --concurrency N (default 3), --repeat N (clean repetitions, default 5), --faults a,b (a subset, with only
//          the clean configurations that subset uses),
//          --clean-only (the clean configurations of every fault, repeated, and no fault run: what CI adds to
//          test/suite/faults.test.ts, which runs every fault in the same configurations and asserts more of each),
//          --json PATH (the matrix as JSON).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAULTS, type FaultDef } from '../fixtures/reference/faults.ts';
import { runFor, RANDOM_PHASE } from './gates/fault-runs.ts';
import { TEST_TIME_SCALE, type ReferenceRun } from './gates/reference-run.ts';
import { loadClauses } from '../src/spec/clauses.ts';
import { S3_FAULTS } from '../fixtures/s3/faults.ts';

const RESULT = '@@mutants-result ';

interface CheckStatus {
  id: string;
  level: string;
  status: string;
}

interface RunResult {
  verdict: string;
  checks: CheckStatus[];
  wallMs: number;
  error?: string;
}

// ---- child: one run, its result on stdout ------------------------------------------------------------------------
if (process.argv[2] === '--child') {
  const run = JSON.parse(process.argv[3]!) as ReferenceRun;
  const { runAgainstReference } = await import('./gates/reference-run.ts');
  const started = Date.now();
  const report = await runAgainstReference(run);
  const result: RunResult = {
    verdict: report.verdict,
    checks: report.checks.map((c) => ({ id: c.id, level: c.level, status: c.status })),
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
const REPEAT = Number(arg('--repeat') ?? 5);
const SUBSET = arg('--faults')?.split(',');
const CLEAN_ONLY = process.argv.includes('--clean-only');
const JSON_OUT = arg('--json');
const SELF = fileURLToPath(import.meta.url);
const CHILD_TIMEOUT_MS = 15 * 60_000;

function runChild(run: ReferenceRun): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    // process.execArgv carries tsx's loader, so the child runs this same file under tsx.
    const child = spawn(process.execPath, [...process.execArgv, SELF, '--child', JSON.stringify(run)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (line) resolve(JSON.parse(line.slice(RESULT.length)) as RunResult);
      else
        resolve({
          verdict: 'error',
          checks: [],
          wallMs: Date.now() - started,
          error: `child exited ${signal ?? code}: ${err.trim().split('\n').slice(-3).join(' | ')}`,
        });
    });
  });
}

/** Runs jobs CONCURRENCY at a time, longest-expected first. */
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

const faults = SUBSET ? FAULTS.filter((f) => SUBSET.includes(f.name)) : FAULTS;
if (SUBSET && faults.length !== SUBSET.length) {
  console.error(`unknown fault in --faults: ${SUBSET.filter((n) => !FAULTS.some((f) => f.name === n)).join(', ')}`);
  process.exit(2);
}

/** The clean baseline: every distinct run configuration the faults use, without the fault. */
const cleanConfigs = new Map<string, ReferenceRun>();
for (const f of faults) {
  const { faults: _omit, ...run } = runFor(f);
  cleanConfigs.set(JSON.stringify(run), run);
}
const describeRun = (r: ReferenceRun) =>
  [
    r.only?.includes('limits') ? 'limits' : 'all but limits',
    r.profile ?? 'quick',
    `scale ${r.timeScale ?? TEST_TIME_SCALE}`,
    r.overlay ? `overlay ${r.overlay.replace(/^.*\//, '')}` : 'no overlay',
    r.variants?.length ? `${r.variants.length} variants` : '',
    r.allowWrites ? `allow-writes ${r.allowWrites}` : '',
  ]
    .filter(Boolean)
    .join(', ');

// Full-profile limit runs wait out whole windows: start them first so the pool's tail is short.
const weight = (r: ReferenceRun) => (r.profile === 'full' ? 3 : r.only?.includes('limits') ? 2 : 1);
type Job =
  | { kind: 'clean'; key: string; rep: number; run: ReferenceRun }
  | { kind: 'fault'; fault: FaultDef; run: ReferenceRun };
const jobs: Job[] = [
  ...[...cleanConfigs].flatMap(([key, run]) =>
    Array.from({ length: REPEAT }, (_, rep) => ({ kind: 'clean' as const, key, rep, run }))
  ),
  ...(CLEAN_ONLY ? [] : faults.map((fault) => ({ kind: 'fault' as const, fault, run: runFor(fault) }))),
].sort((a, b) => weight(b.run) - weight(a.run));

const started = Date.now();
let done = 0;
console.error(
  `mutants: ${cleanConfigs.size} clean configurations × ${REPEAT}, ${CLEAN_ONLY ? 'no fault (--clean-only: npm test runs each)' : `${faults.length} faults`}; ${jobs.length} runs, ${CONCURRENCY} at a time`
);
const results = await pool(
  jobs.map((job) => async () => {
    const r = await runChild(job.run);
    done++;
    console.error(
      `  [${String(done).padStart(3)}/${jobs.length}] ${job.kind === 'clean' ? `clean (${describeRun(job.run)}) #${job.rep + 1}` : job.fault.name}: ${r.verdict} in ${(r.wallMs / 1000).toFixed(1)} s${r.error ? ` (${r.error})` : ''}`
    );
    return { job, result: r };
  }),
  CONCURRENCY
);
const wallSeconds = (Date.now() - started) / 1000;

const problems: string[] = [];
const notPassing = (r: RunResult) => r.checks.filter((c) => c.status === 'failed' || c.status === 'warning');

// ---- the clean reference ------------------------------------------------------------------------------------------
console.log('\n== clean reference target ==');
for (const [key, run] of cleanConfigs) {
  const reps = results.filter((x) => x.job.kind === 'clean' && x.job.key === key).map((x) => x.result);
  const bad = reps.flatMap((r, i) =>
    r.error ? [`#${i + 1}: ${r.error}`] : notPassing(r).map((c) => `#${i + 1}: ${c.id} ${c.status}`)
  );
  const signature = (r: RunResult) => JSON.stringify(r.checks.map((c) => [c.id, c.status]));
  const distinct = new Set(reps.map(signature));
  let unstable: string[] = [];
  if (distinct.size > 1) {
    const ids = [...new Set(reps.flatMap((r) => r.checks.map((c) => c.id)))];
    unstable = ids.filter(
      (id) => new Set(reps.map((r) => r.checks.find((c) => c.id === id)?.status ?? 'absent')).size > 1
    );
  }
  const checks = reps[0]?.checks.length ?? 0;
  const skipped = reps[0]?.checks.filter((c) => c.status === 'skipped').length ?? 0;
  console.log(
    `${describeRun(run).padEnd(48)} ${reps.length} runs, ${checks} checks (${skipped} skipped): ${bad.length ? `NOT CLEAN: ${bad.join('; ')}` : 'no failure, no warning'}; ${distinct.size === 1 ? 'same status per check every run' : `UNSTABLE: ${unstable.join(', ')}`}`
  );
  if (bad.length) problems.push(`clean reference (${describeRun(run)}): ${bad.join('; ')}`);
  if (distinct.size > 1) problems.push(`clean reference (${describeRun(run)}) not repeatable: ${unstable.join(', ')}`);
}

// ---- the matrix ---------------------------------------------------------------------------------------------------
console.log(
  "\n== fault × checks that caught it ==  (* the catalogue's check, + named in alsoCaughtBy or timingCaughtBy, ~ random phase, ! unexpected)"
);
const faultRows = results.filter(
  (x): x is { job: Extract<Job, { kind: 'fault' }>; result: RunResult } => x.job.kind === 'fault'
);
const matrix: Array<{
  fault: string;
  level: string;
  check: string;
  verdict: string;
  killed: boolean;
  caughtBy: Array<{ id: string; status: string }>;
}> = [];
for (const { job, result } of faultRows.sort((a, b) => FAULTS.indexOf(a.job.fault) - FAULTS.indexOf(b.job.fault))) {
  const f = job.fault;
  const caught = notPassing(result);
  const killed = result.error
    ? false
    : f.level === 'should'
      ? result.checks.some((c) => c.status === 'warning')
      : result.verdict === 'nonconformant';
  const mark = (id: string) =>
    id === f.check
      ? '*'
      : f.alsoCaughtBy?.includes(id) || f.timingCaughtBy?.includes(id)
        ? '+'
        : RANDOM_PHASE.includes(id)
          ? '~'
          : '!';
  const cells = caught
    .sort((a, b) => (a.id === f.check ? -1 : b.id === f.check ? 1 : 0))
    .map((c) => `${mark(c.id)}${c.id}${c.status === 'warning' ? ' (warn)' : ''}`);
  console.log(
    `${killed ? 'KILLED ' : 'SURVIVED'} ${f.name.padEnd(30)} ${f.level.padEnd(8)} ${(result.error ? 'error' : result.verdict).padEnd(14)} ${cells.join(', ') || result.error || '-'}`
  );
  matrix.push({
    fault: f.name,
    level: f.level,
    check: f.check,
    verdict: result.verdict,
    killed,
    caughtBy: caught.map((c) => ({ id: c.id, status: c.status })),
  });
  if (!killed)
    problems.push(
      `${f.level} fault ${f.name} survived (${f.level === 'should' ? 'no warning' : `verdict ${result.verdict}`}${result.error ? `; ${result.error}` : ''})`
    );
}

// ---- kill rates and checks no fault fails -------------------------------------------------------------------------
const rate = (rows: typeof matrix) =>
  `${rows.filter((r) => r.killed).length}/${rows.length}${rows.length ? ` (${((100 * rows.filter((r) => r.killed).length) / rows.length).toFixed(0)}%)` : ''}`;
const mustRows = matrix.filter((r) => r.level !== 'should');
const shouldRows = matrix.filter((r) => r.level === 'should');
console.log(
  `\nkill rate: MUST (must + declared) ${rate(mustRows)} killed (verdict nonconformant); SHOULD ${rate(shouldRows)} warned`
);
// ---- kills per clause of the fault model ---------------------------------------------------------------------------
console.log(
  '\n== kills per clause (fault model, spec/clauses.yaml) ==  (killed/modelled; s3: faults tested in test/s3; dimensions of the model)'
);
const { clauses, unshown } = await loadClauses();
const killedBy = new Map(matrix.map((r) => [r.fault, r.killed]));
const s3Names = new Set(S3_FAULTS.map((f) => f.name));
const perClause: Array<{
  clause: string;
  must: boolean;
  modelled: number;
  run: number;
  killed: number;
  s3: number;
  dimensions: Record<string, number>;
}> = [];
for (const c of [
  ...clauses.map((c) => ({ ...c, must: c.checkable !== false && !c.deferred })),
  ...unshown.map((u) => ({ ...u, must: false })),
]) {
  const entries = c.faults ?? [];
  if (entries.length === 0) continue;
  const names = [...new Set(entries.map((e) => e.fault))];
  const run = names.filter((n) => killedBy.has(n));
  const killed = run.filter((n) => killedBy.get(n));
  const s3 = names.filter((n) => s3Names.has(n)).length;
  const dimensions: Record<string, number> = {};
  for (const e of entries) dimensions[e.dimension] = (dimensions[e.dimension] ?? 0) + 1;
  perClause.push({
    clause: c.id,
    must: c.must,
    modelled: names.length,
    run: run.length,
    killed: killed.length,
    s3,
    dimensions,
  });
  const survivors = run.filter((n) => !killedBy.get(n));
  const count =
    s3 === names.length
      ? `s3 ${s3}`
      : `${killed.length}/${run.length}${run.length < names.length - s3 ? ` (${names.length - s3 - run.length} not run)` : ''}${s3 ? ` + s3 ${s3}` : ''}`;
  const dims = Object.entries(dimensions)
    .map(([d, n]) => `${d} ${n}`)
    .join(', ');
  console.log(
    `${survivors.length ? 'SURVIVED' : '        '} ${c.id.padEnd(26)} ${c.must ? 'MUST    ' : 'unshown '} ${count.padEnd(22)} ${dims}${survivors.length ? `  survived: ${survivors.join(', ')}` : ''}`
  );
}
const modelEntries = [...clauses, ...unshown].reduce((n, c) => n + (c.faults?.length ?? 0), 0);
const modelled = new Set([...clauses, ...unshown].flatMap((c) => (c.faults ?? []).map((e) => e.fault)));
const modelledRun = [...modelled].filter((n) => killedBy.has(n));
const mustClauses = perClause.filter((c) => c.must);
console.log(
  `fault model: ${modelEntries} entries over ${perClause.length} clauses and unshown items (${mustClauses.length} MUST clauses), ${modelled.size} distinct faults ` +
    `(${[...modelled].filter((n) => s3Names.has(n)).length} of them S3, tested in test/s3); killed here ${modelledRun.filter((n) => killedBy.get(n)).length}/${modelledRun.length}` +
    `${modelledRun.length ? ` (${((100 * modelledRun.filter((n) => killedBy.get(n)).length) / modelledRun.length).toFixed(0)}%)` : ''}; MUST clauses with every modelled fault killed: ${mustClauses.filter((c) => c.run > 0 && c.killed === c.run).length}/${mustClauses.filter((c) => c.run > 0).length}`
);

const allChecks = [...new Set(results.flatMap((x) => x.result.checks.map((c) => c.id)))];
const everFailed = new Set(matrix.flatMap((r) => r.caughtBy.map((c) => c.id)));
const neverFailed = allChecks.filter((id) => !everFailed.has(id));
console.log(
  `checks no fault ever fails or warns (${neverFailed.length} of ${allChecks.length}): ${neverFailed.join(', ') || 'none'}`
);
console.log(`\nwall time: ${wallSeconds.toFixed(1)} s for ${jobs.length} runs, ${CONCURRENCY} at a time`);

if (JSON_OUT)
  writeFileSync(
    JSON_OUT,
    JSON.stringify(
      {
        wallSeconds,
        concurrency: CONCURRENCY,
        repeat: REPEAT,
        clean: [...cleanConfigs.values()].map(describeRun),
        matrix,
        perClause,
        neverFailed,
        problems,
      },
      null,
      2
    ) + '\n'
  );

if (problems.length) {
  console.log(`\nGATE FAILED (${problems.length}):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('\ngate passed');
