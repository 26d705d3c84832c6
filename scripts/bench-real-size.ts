// npm run bench, real-size rows: the quick profile against the reference as a deployment would hold it (in a
// process of its own, with 20,000 or 2,500 pre-existing VMs) and through a proxy that adds 50 or 100 ms of round trip,
// and certify against 20,000 VMs. Each row: wall time, requests, clauses verified, and the read-budget wait the pacer
// had to make; then the goals, each met or missed by how much.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReferenceProcess } from '../fixtures/reference/process.ts';
import { startDelayProxy } from '../fixtures/net/delay-proxy.ts';

const BIN = path.resolve('bin/cloud-conformance.js');

interface RealSizeRow {
  run: string;
  wallSeconds: number;
  requests: number;
  verified: number;
  verdict: string;
  pacedWaitMs: number;
  /** Peak resident set of the run's process (KiB), where /usr/bin/time measured it. */
  peakRssKb?: number;
  /** Waits of a Retry-After outside the probes: a run inside the documented limits has none. */
  retryAfterWaits: number;
  note: string;
}

interface Setup {
  label: string;
  /** The README's first command: the embedded reference, no target flags. */
  embedded?: boolean;
  population?: number;
  rttMs?: number;
  profile?: 'quick' | 'certify';
  timeScale?: number;
  /** --dry-run: the plan only; its requests read from what it prints. */
  dryRun?: boolean;
  note?: string;
}

/** One run of the CLI against a reference process (and, with rttMs, through a delaying proxy), keys, image and subnet only. */
async function measureAgainstProcess(s: Setup): Promise<RealSizeRow> {
  const scale = s.timeScale ?? 1;
  const ref = s.embedded ? undefined : await startReferenceProcess({ population: s.population, timeScale: scale });
  const proxy = ref && s.rttMs ? await startDelayProxy(ref.settings.baseUrl, s.rttMs) : undefined;
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-bench-')), 'r.json');
  const target = ref
    ? [
        '--base-url',
        proxy?.url ?? ref.settings.baseUrl,
        '--api-key',
        ref.settings.apiKey,
        '--api-key-b',
        ref.settings.apiKeyB,
        '--api-key-readonly',
        ref.settings.apiKeyReadonly,
        '--image',
        ref.settings.image,
        '--subnet-id',
        ref.settings.subnetId,
      ]
    : [];
  const args = s.dryRun
    ? [BIN, 'run', '--dry-run', '--profile', s.profile ?? 'quick', ...target]
    : [
        BIN,
        'run',
        '--quiet',
        '--profile',
        s.profile ?? 'quick',
        '--time-scale',
        String(scale),
        '--seed',
        '1',
        ...target,
        '--report',
        `json:${out}`,
      ];
  const [cmd, cmdArgs] = TIME ? [TIME, ['-f', '%M', process.execPath, ...args]] : [process.execPath, args];
  const started = Date.now();
  let stderr = '';
  let stdout = '';
  // Asynchronously: the proxy lives in this process and must go on forwarding while the run goes.
  await new Promise<void>((resolve) => {
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', () => resolve());
  });
  const wall = (Date.now() - started) / 1000;
  await proxy?.close();
  await ref?.close();
  const last = stderr.trim().split('\n').pop() ?? '';
  const report = existsSync(out)
    ? (JSON.parse(readFileSync(out, 'utf8')) as {
        verdict: string;
        traffic: { requests: number; pacedWaitMs: number; waits?: Record<string, { count: number }> };
        coverage?: { verified: string[] };
        checks: Array<{ id: string; message: string }>;
      })
    : undefined;
  return {
    run: s.label,
    wallSeconds: wall,
    requests: report?.traffic.requests ?? Number(/requests: (\d+)/.exec(stdout)?.[1] ?? 0),
    verified: report?.coverage?.verified.length ?? 0,
    verdict: report?.verdict ?? (s.dryRun && /^dry run: nothing was sent/.test(stdout) ? 'plan printed' : 'no report'),
    pacedWaitMs: report?.traffic.pacedWaitMs ?? 0,
    peakRssKb: TIME && /^\d+$/.test(last) ? Number(last) : undefined,
    retryAfterWaits: report?.traffic.waits?.['retry-after']?.count ?? 0,
    note: s.note ?? '',
  };
}

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** A goal of the bench, judged on the rows: met, or missed and by how much. */
interface Goal {
  row: string;
  what: string;
  judge(row: RealSizeRow, rows: RealSizeRow[]): { met: boolean; detail: string };
}

const rowOf = (rows: RealSizeRow[], label: string) => rows.find((r) => r.run === label)!;

export const GOALS: Goal[] = [
  {
    row: 'quick, embedded default (README)',
    what: 'at most 10 s',
    judge: (r) => ({
      met: r.wallSeconds <= 10,
      detail: `${r.wallSeconds.toFixed(1)} s${r.wallSeconds > 10 ? `, ${(r.wallSeconds - 10).toFixed(1)} s over` : ''}`,
    }),
  },
  {
    row: 'quick, embedded default (README)',
    what: 'at least 48 clauses verified',
    judge: (r) => ({ met: r.verified >= 48, detail: `${r.verified} verified` }),
  },
  {
    row: 'quick, embedded default (README)',
    what: 'peak RSS at most 150 MB',
    judge: (r) =>
      r.peakRssKb === undefined
        ? { met: false, detail: 'not measured (no /usr/bin/time)' }
        : { met: r.peakRssKb <= 150 * 1024, detail: `${Math.round(r.peakRssKb / 1024)} MB` },
  },
  {
    row: 'quick, 20,000 pre-existing VMs',
    what: "the same clauses in at most twice the default's time",
    judge: (r, rows) => {
      const d = rowOf(rows, 'quick, reference process, 130 VMs');
      return {
        met: r.verified >= d.verified && r.wallSeconds <= 2 * d.wallSeconds,
        detail: `${r.verified} of ${d.verified} clauses, ${r.wallSeconds.toFixed(1)} s against ${d.wallSeconds.toFixed(1)} s (${(r.wallSeconds / d.wallSeconds).toFixed(2)}x)`,
      };
    },
  },
  {
    row: 'quick, 130 VMs, 100 ms round trip',
    what: 'at most 15 s, verdict unchanged',
    judge: (r, rows) => {
      const d = rowOf(rows, 'quick, reference process, 130 VMs');
      return {
        met: r.wallSeconds <= 15 && r.verdict === d.verdict,
        detail: `${r.wallSeconds.toFixed(1)} s${r.wallSeconds > 15 ? ` (${(r.wallSeconds - 15).toFixed(1)} s over)` : ''}, ${r.verdict}`,
      };
    },
  },
  {
    row: 'dry run, embedded default',
    what: 'at most 5 s, the plan printed',
    judge: (r) => ({
      met: r.wallSeconds <= 5 && r.verdict === 'plan printed',
      detail: `${r.wallSeconds.toFixed(1)} s${r.wallSeconds > 5 ? ` (${(r.wallSeconds - 5).toFixed(1)} s over)` : ''}, ${r.requests} requests planned`,
    }),
  },
  {
    row: 'certify, 20,000 VMs, scale 60',
    what: 'completes inside the documented limits',
    judge: (r) => ({
      met: r.verdict !== 'error' && r.verdict !== 'no report' && r.retryAfterWaits === 0,
      detail: `${r.verdict}, ${r.retryAfterWaits} Retry-After waits outside the probes`,
    }),
  },
];

export const REAL_SIZE_SETUPS: Setup[] = [
  { label: 'quick, embedded default (README)', embedded: true, note: "the README's first command" },
  { label: 'dry run, embedded default', embedded: true, dryRun: true, note: 'goal: at most 5 s' },
  { label: 'quick, reference process, 130 VMs', note: 'the default organization' },
  { label: 'quick, 2,500 pre-existing VMs', population: 2500, note: 'goal: the same clauses' },
  {
    label: 'quick, 20,000 pre-existing VMs',
    population: 20000,
    note: 'goal: the same clauses in at most twice the time',
  },
  { label: 'quick, 130 VMs, 50 ms round trip', rttMs: 50, note: 'through a delaying proxy' },
  { label: 'quick, 130 VMs, 100 ms round trip', rttMs: 100, note: 'goal: at most 15 s' },
  {
    label: 'certify, 20,000 VMs, scale 60',
    population: 20000,
    profile: 'certify',
    timeScale: 60,
    note: 'walks the whole list; no overlay',
  },
];

export async function realSizeRows(setups: Setup[] = REAL_SIZE_SETUPS): Promise<void> {
  const rows: RealSizeRow[] = [];
  for (const s of setups) rows.push(await measureAgainstProcess(s));
  console.log(
    'real size: the reference in a process of its own; the run with --api-key, --api-key-b, --api-key-readonly, --image, --subnet-id (no overlay)'
  );
  console.log(
    'run'.padEnd(40),
    'wall s'.padStart(7),
    'requests'.padStart(9),
    'verified'.padStart(9),
    'paced ms'.padStart(9),
    ' verdict        note'
  );
  for (const r of rows)
    console.log(
      r.run.padEnd(40),
      r.wallSeconds.toFixed(1).padStart(7),
      String(r.requests).padStart(9),
      String(r.verified).padStart(9),
      String(r.pacedWaitMs).padStart(9),
      ` ${r.verdict.padEnd(14)} ${r.note}`
    );
  console.log('\ngoals:');
  for (const g of GOALS) {
    const row = rows.find((r) => r.run === g.row);
    if (!row) continue;
    const { met, detail } = g.judge(row, rows);
    console.log(`  ${met ? 'met   ' : 'MISSED'} ${g.row}: ${g.what} (${detail})`);
  }
  console.log();
}
