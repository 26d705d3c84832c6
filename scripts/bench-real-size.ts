// npm run bench, real-size rows (issue 23): the quick profile against the reference as a deployment would hold it (in a
// process of its own, with 20,000 or 2,500 pre-existing VMs) and through a proxy that adds 50 or 100 ms of round trip,
// and certify against 20,000 VMs. Each row: wall time, requests, clauses verified, and the read-budget wait the pacer
// had to make (a run inside the documented limits never sees a 429 outside the probes). No assertion: measured here.
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
  note: string;
}

interface Setup {
  label: string;
  population?: number;
  rttMs?: number;
  profile?: 'quick' | 'certify';
  timeScale?: number;
  note?: string;
}

/** One run of the CLI against a reference process (and, with rttMs, through a delaying proxy), keys, image and subnet only. */
async function measureAgainstProcess(s: Setup): Promise<RealSizeRow> {
  const scale = s.timeScale ?? 1;
  const ref = await startReferenceProcess({ population: s.population, timeScale: scale });
  const proxy = s.rttMs ? await startDelayProxy(ref.settings.baseUrl, s.rttMs) : undefined;
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-bench-')), 'r.json');
  const t = ref.settings;
  const args = [BIN, 'run', '--quiet', '--profile', s.profile ?? 'quick', '--time-scale', String(scale), '--seed', '1', '--base-url', proxy?.url ?? t.baseUrl, '--api-key', t.apiKey, '--api-key-b', t.apiKeyB, '--api-key-readonly', t.apiKeyReadonly, '--image', t.image, '--subnet-id', t.subnetId, '--report', `json:${out}`];
  const started = Date.now();
  // Asynchronously: the proxy lives in this process and must go on forwarding while the run goes.
  await new Promise<void>((resolve) => spawn(process.execPath, args, { stdio: 'ignore' }).on('exit', () => resolve()));
  const wall = (Date.now() - started) / 1000;
  await proxy?.close();
  await ref.close();
  const report = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { verdict: string; traffic: { requests: number; pacedWaitMs: number }; coverage?: { verified: string[] }; checks: Array<{ id: string; message: string }> }) : undefined;
  return {
    run: s.label,
    wallSeconds: wall,
    requests: report?.traffic.requests ?? 0,
    verified: report?.coverage?.verified.length ?? 0,
    verdict: report?.verdict ?? 'no report',
    pacedWaitMs: report?.traffic.pacedWaitMs ?? 0,
    note: s.note ?? '',
  };
}

export const REAL_SIZE_SETUPS: Setup[] = [
  { label: 'quick, reference process, 130 VMs', note: 'the default organization' },
  { label: 'quick, 2,500 pre-existing VMs', population: 2500, note: 'goal: the same clauses' },
  { label: 'quick, 20,000 pre-existing VMs', population: 20000, note: 'goal: the same clauses in at most twice the time' },
  { label: 'quick, 130 VMs, 50 ms round trip', rttMs: 50, note: 'through a delaying proxy' },
  { label: 'quick, 130 VMs, 100 ms round trip', rttMs: 100, note: 'goal: at most 15 s' },
  { label: 'certify, 20,000 VMs, scale 60', population: 20000, profile: 'certify', timeScale: 60, note: 'walks the whole list; no overlay' },
];

export async function realSizeRows(setups: Setup[] = REAL_SIZE_SETUPS): Promise<void> {
  const rows: RealSizeRow[] = [];
  for (const s of setups) rows.push(await measureAgainstProcess(s));
  console.log('real size: the reference in a process of its own; the run with --api-key, --api-key-b, --api-key-readonly, --image, --subnet-id (no overlay)');
  console.log('run'.padEnd(40), 'wall s'.padStart(7), 'requests'.padStart(9), 'verified'.padStart(9), 'paced ms'.padStart(9), ' verdict        note');
  for (const r of rows) console.log(r.run.padEnd(40), r.wallSeconds.toFixed(1).padStart(7), String(r.requests).padStart(9), String(r.verified).padStart(9), String(r.pacedWaitMs).padStart(9), ` ${r.verdict.padEnd(14)} ${r.note}`);
  console.log();
}
