// npm run bench: wall time per profile against the embedded reference target, the limit probes' request rate,
// and peak RSS. Prints a table; no assertion anywhere (performance is measured here, never in tests).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface Row {
  run: string;
  wallSeconds: number;
  peakRssMb: number;
  requests: number;
  verdict: string;
  note: string;
}

const BIN = path.resolve('bin/cloud-conformance.js');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function measure(label: string, args: string[], note = ''): Row {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-bench-')), 'r.json');
  const cmd = TIME ? TIME : process.execPath;
  const cmdArgs = TIME ? ['-f', '%e %M', process.execPath, BIN, 'run', '--quiet', ...args, '--report', `json:${out}`] : [BIN, 'run', '--quiet', ...args, '--report', `json:${out}`];
  const started = Date.now();
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', timeout: 30 * 60_000 });
  const wall = (Date.now() - started) / 1000;
  const timeLine = r.stderr.trim().split('\n').pop() ?? '';
  const [, rssKb] = timeLine.split(' ').map(Number);
  const report = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { verdict: string; traffic: { requests: number } }) : { verdict: `exit ${r.status}`, traffic: { requests: 0 } };
  return { run: label, wallSeconds: wall, peakRssMb: rssKb ? Math.round(rssKb / 1024) : NaN, requests: report.traffic.requests, verdict: report.verdict, note };
}

const rows: Row[] = [
  measure('quick, whole suite, scale 1', ['--profile', 'quick', '--time-scale', '1', '--seed', '1']),
  measure('quick, whole suite, scale 60', ['--profile', 'quick', '--time-scale', '60', '--seed', '1']),
  measure('full, limits group, scale 1', ['--profile', 'full', '--only', 'limits', '--time-scale', '1', '--seed', '1'], 'waits one window'),
  measure('full, limits group, scale 60', ['--profile', 'full', '--only', 'limits', '--time-scale', '60', '--seed', '1'], 'windows of 1 s: probes may be inconclusive'),
  measure('full, whole suite, scale 60', ['--profile', 'full', '--time-scale', '60', '--seed', '1'], 'includes the 60 s token-expiry wait'),
  measure('quick, limits group, scale 1', ['--profile', 'quick', '--only', 'limits', '--time-scale', '1', '--seed', '1'], 'probe phase only'),
];

const probes = rows[rows.length - 1]!;
console.log('run'.padEnd(34), 'wall s'.padStart(8), 'peak RSS MB'.padStart(12), 'requests'.padStart(9), ' verdict        note');
for (const r of rows) {
  console.log(r.run.padEnd(34), r.wallSeconds.toFixed(1).padStart(8), String(r.peakRssMb).padStart(12), String(r.requests).padStart(9), ` ${r.verdict.padEnd(14)} ${r.note}`);
}
console.log(`\nlimit probes: ${probes.requests} requests in ${probes.wallSeconds.toFixed(1)} s = ${(probes.requests / probes.wallSeconds).toFixed(0)} requests/s (process start included)`);
