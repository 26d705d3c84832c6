// One run of the suite's CLI, zero-config, against a started member: exactly what a certifier types, read back from
// the JSON report.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MemberSettings } from './members.ts';

export type Profile = 'quick' | 'full' | 'certify';

export interface CheckOutcome {
  id: string;
  level: string;
  status: string;
  message: string;
}

export interface SuiteRun {
  exitCode: number | null;
  verdict: string;
  checks: CheckOutcome[];
  /** MUST clauses the report lists as not verified, with the reason. */
  notVerified: Array<{ clause: string; reason: string }>;
  wallMs: number;
  /** Why there is no report (the CLI could not start), from its stderr. */
  error?: string;
}

const BIN = path.resolve('bin/cloud-conformance.js');

function suiteArgs(s: MemberSettings, profile: Profile, timeScale: number, out: string, overlay?: string): string[] {
  return [
    'run',
    '--quiet',
    '--base-url',
    s.baseUrl,
    '--image',
    s.image,
    '--subnet-id',
    s.subnetId,
    '--subnet-id-b',
    s.subnetIdB,
    '--profile',
    profile,
    '--time-scale',
    String(timeScale),
    '--report',
    `json:${out}`,
    ...(overlay ? ['--overlay', path.resolve(overlay)] : []),
  ];
}

/** The string under a field named secret (or key), at most two objects down: where the members put a new key's secret. */
function secretIn(v: unknown, depth = 0): string | undefined {
  if (!v || typeof v !== 'object' || depth > 2) return undefined;
  for (const [k, x] of Object.entries(v))
    if ((k === 'secret' || k === 'key') && typeof x === 'string' && x.length >= 16) return x;
  for (const x of Object.values(v)) {
    const found = secretIn(x, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A key set aside for the run to revoke, as a certifier makes one in the console before a run: made through the
 * member's own key management (POST /v1/api-keys, which every member serves), else none (revocation not verified).
 */
async function revocableKey(s: MemberSettings): Promise<string | undefined> {
  try {
    const post = (p: string, body: unknown, token?: string) =>
      fetch(`${s.baseUrl}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const issued = await post('/v1/auth/tokens', { api_key: s.apiKey });
    const token = issued['token'] ?? issued['access_token'];
    if (typeof token !== 'string') return undefined;
    return secretIn(await post('/v1/api-keys', { name: 'cc-zoo-revocable' }, token));
  } catch {
    return undefined;
  }
}

/** Runs the CLI; keys go through the environment, as the docs advise (never on a command line). */
export async function runSuite(
  s: MemberSettings,
  profile: Profile,
  timeScale: number,
  overlay?: string,
  timeoutMs = 1_200_000
): Promise<SuiteRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-zoo-'));
  const out = path.join(dir, 'report.json');
  // With the member's overlay (which declares how a key is revoked), a key of its own for the run to revoke.
  const revocable = overlay ? await revocableKey(s) : undefined;
  const started = Date.now();
  const env = {
    ...process.env,
    CONFORMANCE_API_KEY: s.apiKey,
    CONFORMANCE_API_KEY_B: s.apiKeyB,
    CONFORMANCE_API_KEY_READONLY: s.apiKeyReadonly,
    ...(revocable ? { CONFORMANCE_API_KEY_REVOCABLE: revocable } : {}),
    NO_COLOR: '1',
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...suiteArgs(s, profile, timeScale, out, overlay)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
      cwd: dir,
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const wallMs = Date.now() - started;
      try {
        if (!existsSync(out))
          return resolve({
            exitCode: code,
            verdict: 'error',
            checks: [],
            notVerified: [],
            wallMs,
            error: stderr.trim().split('\n').slice(-3).join(' ') || `exit ${code}, no report`,
          });
        const report = JSON.parse(readFileSync(out, 'utf8')) as {
          verdict: string;
          checks: CheckOutcome[];
          coverage?: { notVerified?: Array<{ clause: string; reason: string }> };
        };
        resolve({
          exitCode: code,
          verdict: report.verdict,
          checks: report.checks.map((c) => ({ id: c.id, level: c.level, status: c.status, message: c.message })),
          notVerified: (report.coverage?.notVerified ?? []).map((n) => ({ clause: n.clause, reason: n.reason })),
          wallMs,
          error: report.verdict === 'error' ? stderr.trim().split('\n').slice(-3).join(' ') : undefined,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** Checks that failed, and checks that warned, in a run. */
export function findings(run: SuiteRun): { failed: string[]; warned: string[]; errored: string[] } {
  return {
    failed: run.checks.filter((c) => c.status === 'failed').map((c) => c.id),
    warned: run.checks.filter((c) => c.status === 'warning').map((c) => c.id),
    errored: run.checks.filter((c) => c.status === 'error').map((c) => c.id),
  };
}
