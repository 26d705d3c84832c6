// Evidence a user can paste as it is, right after the run, with the keys in .env only: the token
// line waits out the issuance budget the run spent and sets CONFORMANCE_TOKEN, a failure's curl line then gets the
// answer the run got, and the rerun line runs the same run again to the same statuses. None of the lines puts a key
// on a command line (where `ps` shows it); the rerun line names the variables it reads them from once, above it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';

const BIN = path.resolve('bin/cloud-conformance.js');
let target: ReferenceTarget;
/** A window lasts 10 real seconds: longer than the token line takes to start, so the budget it meets is still spent. */
const SCALE = 6;

interface Report {
  checks: Array<{
    id: string;
    status: string;
    evidence?: { exchanges: Array<{ curl: string; response?: { status: number } }> };
  }>;
  reproduce: string;
  reproduceReads?: string[];
  tokenCommand: string;
}

/**
 * A project directory as a user's: the suite installed (so the printed `npx cloud-conformance` resolves, offline), and
 * the keys in its .env, nowhere else.
 */
function project(keys: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-reproduce-'));
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "adopter", "private": true }\n');
  mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(BIN, path.join(dir, 'node_modules', '.bin', 'cloud-conformance'));
  writeFileSync(
    path.join(dir, '.env'),
    Object.entries(keys)
      .map(([k, v]) => `${k}=${v}\n`)
      .join('')
  );
  return dir;
}

/** This process's environment without any CONFORMANCE_ variable: the keys are in .env only. */
function env(): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));
  return { ...clean, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
}

/** A shell line run in bash in the project, without blocking this process (the reference target answers from here). */
async function shell(line: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', line], { env: env(), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/** Token issuances for the primary key until the target refuses one: the budget spent, as the run leaves it. */
async function spendIssuances(): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const res = await fetch(`${target.settings.baseUrl}/v1/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: target.settings.apiKey }),
    });
    await res.arrayBuffer();
    if (res.status === 429) return;
  }
  throw new Error('the issuance budget was never spent');
}

beforeAll(async () => {
  target = await startReference({ port: 0, timeScale: SCALE, faults: ['malformed-json-500'] });
});
afterAll(() => target.close());

describe('pasteable evidence, right after the run, with the keys in .env only', () => {
  let dir: string;
  let first: Report;
  let printed: string;
  const keys = () => ({
    CONFORMANCE_API_KEY: target.settings.apiKey,
    CONFORMANCE_API_KEY_B: target.settings.apiKeyB,
    CONFORMANCE_API_KEY_READONLY: target.settings.apiKeyReadonly,
  });

  beforeAll(async () => {
    dir = project(keys());
    const s = target.settings;
    const words = [
      'node',
      BIN,
      'run',
      '--only errors,security',
      `--time-scale ${SCALE}`,
      `--base-url ${s.baseUrl}`,
      `--image ${s.image}`,
      `--subnet-id ${s.subnetId}`,
      `--subnet-id-b ${s.subnetIdB}`,
      '--report json:first.json',
    ];
    const r = await shell(words.join(' '), dir);
    expect(r.code, r.stderr).toBe(1);
    printed = r.stdout;
    first = JSON.parse(readFileSync(path.join(dir, 'first.json'), 'utf8')) as Report;
  }, 200_000);

  it('no printed line carries a key or a key flag; the rerun line says once which variables it reads', () => {
    const lines = [first.reproduce, first.tokenCommand, ...first.checks.flatMap((c) => c.evidence?.exchanges ?? [])];
    for (const key of Object.values(keys())) {
      expect(printed).not.toContain(key);
      expect(JSON.stringify(lines)).not.toContain(key);
    }
    expect(first.reproduce).not.toMatch(/--api-key|\$/);
    expect(first.reproduceReads).toEqual([
      'CONFORMANCE_API_KEY',
      'CONFORMANCE_API_KEY_B',
      'CONFORMANCE_API_KEY_READONLY',
    ]);
    const shown = printed.split('\n');
    const rerun = shown.indexOf(`rerun: ${first.reproduce}`);
    expect(rerun).toBeGreaterThan(0);
    expect(shown[rerun - 1]).toBe(
      'the rerun reads CONFORMANCE_API_KEY, CONFORMANCE_API_KEY_B, CONFORMANCE_API_KEY_READONLY from the environment or .env (no key is on its line)'
    );
    expect(shown.filter((l) => l.includes('reads CONFORMANCE_'))).toHaveLength(1);
  });

  it("the token line waits out the spent issuance budget, and a failure's curl line then gets the answer the run got", async () => {
    const failed = first.checks.find((c) => c.id === 'errors.malformed-json' && c.status === 'failed')!;
    // An authenticated one (the token issuance, also in the evidence, carries no token).
    const evidence = failed.evidence!.exchanges.find(
      (x) => x.response?.status === 500 && x.curl.includes('$CONFORMANCE_TOKEN')
    )!;
    // The token goes to curl on its standard input: the curl command's own arguments hold no secret and no variable.
    const curlArgs = evidence.curl.slice(evidence.curl.indexOf('| curl '));
    expect(curlArgs).not.toContain('$');
    await spendIssuances();
    const pasted = await shell(`${first.tokenCommand} && ${evidence.curl}`, dir);
    expect(pasted.stderr).toMatch(/^token: waiting [\d.]+ s for the Retry-After of a refused token issuance/m);
    expect(pasted.stdout.split('\n')[0], pasted.stderr).toMatch(/^HTTP\/1\.1 500/);
  }, 60_000);

  it('a token line that gets no token exports nothing: no "undefined", no empty token', async () => {
    const wrong = project({ CONFORMANCE_API_KEY: 'not-a-key-of-this-target' });
    const pasted = await shell(
      `${first.tokenCommand}; echo "status $?"; printenv CONFORMANCE_TOKEN || echo unset`,
      wrong
    );
    expect(pasted.stdout.trim().split('\n')).toEqual(['status 2', 'unset']);
    expect(pasted.stderr).toMatch(/cloud-conformance: the target refused to issue a token for --api-key \(401/);
  }, 60_000);

  it('the rerun line, pasted as printed, gets the same statuses', async () => {
    const again = await shell(`${first.reproduce} --report json:again.json`, dir);
    expect(again.code, again.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(dir, 'again.json'), 'utf8')) as Report;
    const statuses = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
    expect(statuses(report)).toEqual(statuses(first));
    expect(report.reproduce).toBe(first.reproduce);
  }, 200_000);
});
