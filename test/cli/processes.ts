// The CLI as a user starts it, for tests that need something in their own process to keep answering while it runs (a
// forward proxy): `reference` in a child process, read from its settings line, and `run` awaited without blocking.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const BIN = path.resolve('bin/cloud-conformance.js');

/** What `cloud-conformance reference` prints on its first line. */
export interface ReferenceSettingsLine {
  baseUrl: string;
  apiKey: string;
  apiKeyB: string;
  apiKeyReadonly: string;
  image: string;
  subnetId: string;
  s3Url: string;
  s3AccessKey: string;
  s3SecretKey: string;
  s3Region: string;
  caFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
}

export interface ReferenceChild {
  settings: ReferenceSettingsLine;
  /** What it wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Variables of the machine that would change how a test's run connects: left out, so only what a test sets counts. */
const CONNECTION_VARIABLES = [
  'HTTP_PROXY',
  'http_proxy',
  'HTTPS_PROXY',
  'https_proxy',
  'NO_PROXY',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
];

/** This process's environment without the connection variables, with `env` on top. */
function environment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of CONNECTION_VARIABLES) delete base[name];
  return { ...base, ...env };
}

export async function startReferenceChild(args: string[]): Promise<ReferenceChild> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'reference', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: environment(),
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`reference exited ${code}: ${stderr}`)));
  });
  return {
    settings: JSON.parse(line) as ReferenceSettingsLine,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The JSON report, when one was asked for and written. */
  report?: Record<string, unknown> & { verdict: string; checks: Array<{ id: string; status: string }> };
  /** Every file the run wrote (reports), as text: to look for secrets in. */
  written: string;
}

/** `cloud-conformance ARGS` as a user starts it, awaited without blocking this process (a reference in it can answer). */
export function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d) => (stdout += d));
    p.stderr!.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** `cloud-conformance run ARGS --report json:… --report html:…`, awaited without blocking this process. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-cli-'));
  const json = path.join(dir, 'report.json');
  const html = path.join(dir, 'report.html');
  const child = spawn(process.execPath, [BIN, 'run', ...args, '--report', `json:${json}`, '--report', `html:${html}`], {
    cwd: dir,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((resolve) => {
    child.once('exit', (status) => {
      clearTimeout(timer);
      const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
      const report = read(json);
      resolve({
        status,
        stdout,
        stderr,
        report: report ? JSON.parse(report) : undefined,
        written: report + read(html),
      });
    });
  });
}

/** The flags that point a run at a reference child's API and S3 endpoint. */
export function targetFlags(s: ReferenceSettingsLine, opts: { s3?: boolean } = {}): string[] {
  const flags = ['--base-url', s.baseUrl, '--api-key', s.apiKey, '--time-scale', '60'];
  if (opts.s3) flags.push('--s3-url', s.s3Url, '--s3-access-key', s.s3AccessKey, `--s3-secret-key=${s.s3SecretKey}`);
  return flags;
}
