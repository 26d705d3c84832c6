// npm run bench: wall time per profile against the embedded reference target, the limit probes' request rate,
// peak RSS, and the engine's throughput with schema assertion on next to autocannon's on the same endpoint.
// Prints tables; no assertion anywhere (performance is measured here, never in tests).
// --throughput-only: just the throughput table; --before-after-only: just the before and after of the first command;
// --real-size-only: just the real-size rows (large populations, latency; scripts/bench-real-size.ts);
// --tls-only: just the TLS rows (a quick run against the reference over HTTP, over TLS, over TLS through a local proxy).
// Runs are spawned, not run synchronously: the TLS rows' forward proxy lives in this process and must keep answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { HttpClient } from '../src/engine/transport/http.ts';
import { Redactor } from '../src/engine/transport/redact.ts';
import { SchemaAsserter } from '../src/engine/schema/schema.ts';
import { loadSpec } from '../src/spec/load.ts';
import { realSizeRows } from './bench-real-size.ts';
import { startForwardProxy } from '../fixtures/proxy/forward-proxy.ts';

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

interface Measured extends Row {
  statuses: Record<string, string>;
}

/**
 * One run of the CLI as a user starts it. Peak RSS is /usr/bin/time's: the largest single process of the run (the CLI,
 * or the embedded S3 endpoint's child, whichever is larger).
 */
async function measure(label: string, args: string[], note = '', env: Record<string, string> = {}): Promise<Measured> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-bench-')), 'r.json');
  const cmd = TIME ? TIME : process.execPath;
  const cmdArgs = TIME
    ? ['-f', '%e %M', process.execPath, BIN, 'run', '--quiet', ...args, '--report', `json:${out}`]
    : [BIN, 'run', '--quiet', ...args, '--report', `json:${out}`];
  const started = Date.now();
  const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(cmd, cmdArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30 * 60_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
  const wall = (Date.now() - started) / 1000;
  const timeLine = r.stderr.trim().split('\n').pop() ?? '';
  const [, rssKb] = timeLine.split(' ').map(Number);
  const report = existsSync(out)
    ? (JSON.parse(readFileSync(out, 'utf8')) as {
        verdict: string;
        traffic: { requests: number };
        checks: Array<{ id: string; status: string }>;
      })
    : { verdict: `exit ${r.status}`, traffic: { requests: 0 }, checks: [] };
  const statuses = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
  return {
    run: label,
    wallSeconds: wall,
    peakRssMb: rssKb ? Math.round(rssKb / 1024) : NaN,
    requests: report.traffic.requests,
    verdict: report.verdict,
    note,
    statuses,
  };
}

const printRows = (rows: Row[]) => {
  console.log(
    'run'.padEnd(46),
    'wall s'.padStart(8),
    'peak RSS MB'.padStart(12),
    'requests'.padStart(9),
    ' verdict        note'
  );
  for (const r of rows) {
    console.log(
      r.run.padEnd(46),
      r.wallSeconds.toFixed(1).padStart(8),
      String(r.peakRssMb).padStart(12),
      String(r.requests).padStart(9),
      ` ${r.verdict.padEnd(14)} ${r.note}`
    );
  }
};

/**
 * The before and after of the first command, on the default first command (quick profile, embedded target, scale 1). "Before" runs
 * the way the CLI ran when the issue was filed: one check at a time, the sources through tsx, V8's default young
 * generation, every document derived afresh (what was measured before: 17.3 s, 221 MB). Task polling, the streamed oversized body and the lazy S3 SDK
 * cannot be switched off, so "before" here is already a little faster and smaller than it was.
 */
async function beforeAfter(): Promise<void> {
  const args = ['--profile', 'quick', '--time-scale', '1', '--seed', '1'];
  const before = await measure(
    'before: sequential, tsx, 16 MiB semi-spaces',
    [...args, '--sequential'],
    'as it was found before (17.3 s, 221 MB then)',
    { CONFORMANCE_NO_BUNDLE: '1', CONFORMANCE_NO_REEXEC: '1', CONFORMANCE_NO_CACHE: '1' }
  );
  const after = await measure('after: concurrent, bundle, cache, 4 MiB', args, 'npx cloud-conformance run');
  printRows([before, after]);
  const differ = Object.keys({ ...before.statuses, ...after.statuses }).filter(
    (id) => before.statuses[id] !== after.statuses[id]
  );
  console.log(
    `verdicts: ${before.verdict} before, ${after.verdict} after; check statuses ${differ.length ? `DIFFER: ${differ.join(', ')}` : `identical (${Object.keys(after.statuses).length} checks)`}\n`
  );
}

const THROUGHPUT_ONLY = process.argv.includes('--throughput-only');
const REAL_SIZE_ONLY = process.argv.includes('--real-size-only');

if (REAL_SIZE_ONLY) {
  await realSizeRows();
  process.exit(0);
}
const TLS_ONLY = process.argv.includes('--tls-only');

if (!THROUGHPUT_ONLY && !TLS_ONLY) await beforeAfter();

if (!THROUGHPUT_ONLY && !TLS_ONLY && !process.argv.includes('--before-after-only')) {
  const rows: Row[] = [
    await measure(
      "the README's first command (the embedded reference's clock, 10)",
      ['--profile', 'quick', '--seed', '1'],
      'goal: at most 10 s, at least 48 clauses verified'
    ),
    await measure('quick, whole suite, scale 1', ['--profile', 'quick', '--time-scale', '1', '--seed', '1']),
    await measure('quick, whole suite, scale 60', ['--profile', 'quick', '--time-scale', '60', '--seed', '1']),
    await measure(
      'full, limits group, scale 1',
      ['--profile', 'full', '--only', 'limits', '--time-scale', '1', '--seed', '1'],
      'waits one window'
    ),
    await measure(
      'full, limits group, scale 60',
      ['--profile', 'full', '--only', 'limits', '--time-scale', '60', '--seed', '1'],
      'windows of 1 s: probes may be inconclusive'
    ),
    await measure(
      'full, whole suite, scale 60',
      ['--profile', 'full', '--time-scale', '60', '--seed', '1'],
      'includes the 60 s token-expiry wait'
    ),
    await measure(
      'quick, limits group, scale 1',
      ['--profile', 'quick', '--only', 'limits', '--time-scale', '1', '--seed', '1'],
      'probe phase only'
    ),
  ];

  const probes = rows[rows.length - 1]!;
  printRows(rows);
  console.log(
    `\nlimit probes: ${probes.requests} requests in ${probes.wallSeconds.toFixed(1)} s = ${(probes.requests / probes.wallSeconds).toFixed(0)} requests/s (process start included)\n`
  );
}

// ---- TLS: a quick run against `cloud-conformance reference` in a child process (a fresh one per row), over HTTP,
// over TLS (--ca-file), and over TLS through a forward proxy in this process (HTTPS_PROXY: every API and S3 request
// tunnelled); then the embedded target over TLS (--reference-tls) beside the embedded row above. ----

interface ChildReference {
  settings: Record<string, string>;
  stop(): void;
}

async function referenceChild(args: string[]): Promise<ChildReference> {
  const child = spawn(process.execPath, [BIN, 'reference', '--time-scale', '60', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const rl = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`reference exited ${code}`)));
  });
  rl.close();
  return { settings: JSON.parse(line) as Record<string, string>, stop: () => child.kill('SIGTERM') };
}

/** A quick run against a fresh reference child, as a user points the CLI at a deployment. */
async function measureAgainstChild(
  label: string,
  referenceArgs: string[],
  extraArgs: (s: Record<string, string>) => string[],
  note: string,
  env: Record<string, string> = {}
): Promise<Measured> {
  const ref = await referenceChild(referenceArgs);
  try {
    const s = ref.settings;
    const target = [
      '--base-url',
      s['baseUrl']!,
      '--api-key',
      s['apiKey']!,
      '--api-key-b',
      s['apiKeyB']!,
      '--api-key-readonly',
      s['apiKeyReadonly']!,
      '--image',
      s['image']!,
      '--subnet-id',
      s['subnetId']!,
    ];
    const s3 = ['--s3-url', s['s3Url']!, '--s3-access-key', s['s3AccessKey']!, '--s3-secret-key', s['s3SecretKey']!];
    return await measure(
      label,
      [
        ...target,
        ...s3,
        '--overlay',
        'spec/overlays/reference.yaml',
        '--profile',
        'quick',
        '--time-scale',
        '60',
        '--seed',
        '1',
        ...extraArgs(s),
      ],
      note,
      env
    );
  } finally {
    ref.stop();
  }
}

if (!THROUGHPUT_ONLY && !process.argv.includes('--before-after-only')) {
  // Proxy variables of this shell would change what the rows measure (a lower-case one wins, even empty: set both).
  const direct = { HTTP_PROXY: '', http_proxy: '', HTTPS_PROXY: '', https_proxy: '', NO_PROXY: '', no_proxy: '' };
  const proxy = await startForwardProxy();
  try {
    const rows: Measured[] = [];
    rows.push(
      await measureAgainstChild(
        'quick, scale 60, reference child, HTTP',
        [],
        () => [],
        'the baseline of the rows below',
        direct
      )
    );
    rows.push(
      await measureAgainstChild(
        'quick, scale 60, reference child, TLS',
        ['--tls'],
        (s) => ['--ca-file', s['caFile']!],
        'reference --tls, run --ca-file',
        direct
      )
    );
    const before = proxy.records.length;
    const proxied = await measureAgainstChild(
      'quick, scale 60, TLS through a local proxy',
      ['--tls'],
      (s) => ['--ca-file', s['caFile']!],
      '',
      { ...direct, HTTPS_PROXY: proxy.url, https_proxy: proxy.url }
    );
    const tunnels = proxy.records.slice(before);
    proxied.note = `HTTPS_PROXY: ${tunnels.length} CONNECT tunnels carried its ${proxied.requests} API requests and the S3 ones`;
    rows.push(proxied);
    rows.push(
      await measure(
        'quick, scale 60, embedded, --reference-tls',
        ['--reference-tls', '--profile', 'quick', '--time-scale', '60', '--seed', '1'],
        'beside "quick, whole suite, scale 60"',
        direct
      )
    );
    printRows(rows);
    // The two runs against a TLS child are the same run as the HTTP one but for the connection. The limit probes at
    // time scale 60 must fit a burst into half a 1 s window, which a loaded machine sometimes does not (skipped,
    // inconclusive): their statuses are listed apart.
    const changes = rows.slice(1, 3).flatMap((r) =>
      Object.keys({ ...r.statuses, ...rows[0]!.statuses })
        .filter((id) => r.statuses[id] !== rows[0]!.statuses[id])
        .map((id) => ({ id, line: `${r.run}: ${id} ${rows[0]!.statuses[id]} → ${r.statuses[id]}` }))
    );
    const differ = changes.filter((c) => !c.id.startsWith('limits.')).map((c) => c.line);
    const timing = changes.filter((c) => c.id.startsWith('limits.')).map((c) => c.line);
    console.log(
      `TLS rows: check statuses over TLS and through the proxy ${differ.length ? `DIFFER from the HTTP row: ${differ.join(', ')}` : `identical to the HTTP row outside the limits group (${Object.keys(rows[0]!.statuses).length} checks)`}`
    );
    if (timing.length) console.log(`  limit probes at time scale 60 (timing-bound): ${timing.join(', ')}`);
    console.log('');
  } finally {
    await proxy.close();
  }
}

// ---- throughput: the engine (HttpClient + SchemaAsserter.assert) next to autocannon, same endpoint, same run ----
// The reference runs in a child process (so this process's CPU time is the client's alone), at time scale 1 with the
// fault read-limit-missing: reads are never limited and the token lives an hour, so neither the read limit nor
// token expiry interferes. Endpoint: GET /v1/vms?per_page=1 with a valid bearer token.
const REQUESTS = 2000;
const WARMUP = 200;
const AUTOCANNON_SECONDS = 3;

async function startChildReference(): Promise<{ child: ChildProcess; baseUrl: string; apiKey: string }> {
  const child = spawn(process.execPath, [BIN, 'reference', '--fault', 'read-limit-missing'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`reference exited ${code}`)));
  });
  rl.close();
  const settings = JSON.parse(line) as { baseUrl: string; apiKey: string };
  return { child, baseUrl: settings.baseUrl, apiKey: settings.apiKey };
}

interface ThroughputRow {
  client: string;
  connections: number;
  requests: number;
  rps: number;
  cpuMsPerRequest: number;
  note: string;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function engineRun(
  baseUrl: string,
  token: string,
  connections: number,
  withSchema: boolean,
  asserter: SchemaAsserter
): Promise<ThroughputRow> {
  const http = new HttpClient(baseUrl, { timeoutSeconds: 15, maxBodyBytes: 8 * 1024 * 1024 }, new Redactor());
  const one = async () => {
    const ex = await http.send({
      method: 'GET',
      path: '/v1/vms',
      query: { per_page: 1 },
      headers: { authorization: `Bearer ${token}` },
      sentBy: 'bench',
    });
    if (ex.response?.status !== 200)
      throw new Error(`GET /v1/vms answered ${ex.response?.status ?? ex.transportError}`);
    if (withSchema) {
      const v = asserter.assert(ex);
      if (!v || v.baseErrors.length) throw new Error(`schema assertion: ${JSON.stringify(v)}`);
    }
  };
  const drive = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next++ < n) await one();
      })
    );
  };
  await drive(WARMUP);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await drive(REQUESTS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = cpuMs(process.cpuUsage(cpu));
  await http.close();
  return {
    client: withSchema ? 'engine: HttpClient + schema assertion' : 'engine: HttpClient only',
    connections,
    requests: REQUESTS,
    rps: REQUESTS / seconds,
    cpuMsPerRequest: used / REQUESTS,
    note: 'exchange recorded and redacted',
  };
}

async function autocannonRun(baseUrl: string, token: string, connections: number): Promise<ThroughputRow> {
  const opts = {
    url: `${baseUrl}/v1/vms?per_page=1`,
    connections,
    pipelining: 1,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  };
  await autocannon({ ...opts, duration: 1 });
  // autocannon checks for its end once per sample interval (1 s), so a fixed amount would be timed to the next whole
  // second: it runs for a fixed duration instead, and its own figure is requests completed / duration.
  const cpu = process.cpuUsage();
  const result = await autocannon({ ...opts, duration: AUTOCANNON_SECONDS });
  const used = cpuMs(process.cpuUsage(cpu));
  const done = result.requests.total;
  if (result.non2xx || result.errors)
    throw new Error(`autocannon: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors`);
  // autocannon runs in this process, so its CPU is measured the same way as the engine's.
  return {
    client: `autocannon ${autocannonVersion()}`,
    connections,
    requests: done,
    rps: done / result.duration,
    cpuMsPerRequest: used / done,
    note: `${AUTOCANNON_SECONDS} s run; response read, not parsed (mean of per-second samples ${result.requests.mean.toFixed(0)})`,
  };
}

function autocannonVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(path.resolve('node_modules/autocannon/package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '';
  }
}

if (process.argv.includes('--before-after-only') || TLS_ONLY) process.exit(0);

if (!THROUGHPUT_ONLY && !TLS_ONLY) await realSizeRows();

const ref = await startChildReference();
try {
  const tokenAnswer = await fetch(`${ref.baseUrl}/v1/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: ref.apiKey }),
  });
  const { token } = (await tokenAnswer.json()) as { token: string };
  const asserter = new SchemaAsserter(await loadSpec());
  asserter.compileAll();
  const rows: ThroughputRow[] = [];
  for (const connections of [1, 8]) {
    rows.push(await engineRun(ref.baseUrl, token, connections, true, asserter));
    rows.push(await engineRun(ref.baseUrl, token, connections, false, asserter));
    rows.push(await autocannonRun(ref.baseUrl, token, connections));
  }
  console.log(
    `throughput: GET /v1/vms?per_page=1; engine ${REQUESTS} requests after ${WARMUP} warm-up, autocannon ${AUTOCANNON_SECONDS} s after 1 s warm-up; reference in a child process (read limit off), CPU = this process's user+system time`
  );
  console.log(
    'client'.padEnd(40),
    'conns'.padStart(5),
    'requests'.padStart(9),
    'requests/s'.padStart(11),
    'CPU ms/req'.padStart(11),
    ' note'
  );
  for (const r of rows)
    console.log(
      r.client.padEnd(40),
      String(r.connections).padStart(5),
      String(r.requests).padStart(9),
      r.rps.toFixed(0).padStart(11),
      r.cpuMsPerRequest.toFixed(3).padStart(11),
      ` ${r.note}`
    );
} finally {
  ref.child.kill('SIGTERM');
}
