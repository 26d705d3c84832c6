// Evidence a user can paste as it is: the token line and a failure's curl line, pasted into a shell with the key in
// CONFORMANCE_API_KEY, get the answer the run got; the `reproduce` line, pasted with the keys in the environment, runs
// the same run again (every input carried, secrets as environment references) and gets the same statuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';

const BIN = path.resolve('bin/cloud-conformance.js');
const dir = mkdtempSync(path.join(tmpdir(), 'cc-reproduce-'));
let target: ReferenceTarget;

interface Report {
  checks: Array<{
    id: string;
    status: string;
    evidence?: { exchanges: Array<{ curl: string; response?: { status: number } }> };
  }>;
  reproduce: string;
  tokenCommand: string;
}

beforeAll(async () => {
  target = await startReference({ port: 0, timeScale: 60, faults: ['malformed-json-500'] });
});
afterAll(() => target.close());

function env(): NodeJS.ProcessEnv {
  const s = target.settings;
  return {
    ...process.env,
    CONFORMANCE_API_KEY: s.apiKey,
    CONFORMANCE_API_KEY_B: s.apiKeyB,
    CONFORMANCE_API_KEY_READONLY: s.apiKeyReadonly,
  };
}

/** The CLI in a child process, without blocking this one (the reference target answers from here). */
async function run(args: string[], out: string): Promise<Report> {
  const child = spawn(process.execPath, [BIN, ...args, '--report', `json:${out}`], {
    env: env(),
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code, stderr).toBe(1);
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

/** A shell line run in bash, without blocking this process. */
async function shell(line: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', line], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  return { stdout, stderr };
}

describe('pasteable evidence', () => {
  let first: Report;
  beforeAll(async () => {
    const s = target.settings;
    first = await run(
      [
        'run',
        '--only',
        'errors,security',
        '--time-scale',
        '60',
        '--base-url',
        s.baseUrl,
        '--image',
        s.image,
        '--subnet-id',
        s.subnetId,
        '--subnet-id-b',
        s.subnetIdB,
      ],
      path.join(dir, 'first.json')
    );
  }, 200_000);

  it("the token line and a failure's curl line, pasted into a shell, get the answer the run got", async () => {
    const failed = first.checks.find((c) => c.id === 'errors.malformed-json' && c.status === 'failed')!;
    // An authenticated one (token issuance, also in the evidence, carries no token).
    const evidence = failed.evidence!.exchanges.find(
      (x) => x.response?.status === 500 && x.curl.includes('authorization')
    )!;
    expect(evidence.curl).toContain('-H "authorization: Bearer $CONFORMANCE_TOKEN"');
    const pasted = await shell(`${first.tokenCommand} && ${evidence.curl}`);
    expect(pasted.stdout.split('\n')[0], pasted.stderr).toMatch(/^HTTP\/1\.1 500/);
  });

  it('the reproduce line carries every input (keys as environment references) and gets the same statuses', async () => {
    expect(first.reproduce).toContain('--api-key-b "$CONFORMANCE_API_KEY_B"');
    expect(first.reproduce).toContain('--api-key-readonly "$CONFORMANCE_API_KEY_READONLY"');
    expect(first.reproduce).toContain(`--subnet-id-b ${target.settings.subnetIdB}`);
    const args = spawnSync('bash', ['-c', `printf '%s\\n' ${first.reproduce.replace(/^npx cloud-conformance /, '')}`], {
      encoding: 'utf8',
      env: env(),
    })
      .stdout.trim()
      .split('\n');
    const again = await run(args, path.join(dir, 'again.json'));
    const statuses = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
    expect(statuses(again)).toEqual(statuses(first));
  }, 200_000);
});
