import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const BIN = path.resolve('bin/cloud-conformance.js');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    cwd: mkdtempSync(path.join(tmpdir(), 'cc-cwd-')),
    timeout: 120_000,
  });

describe('cloud-conformance run (CLI contract)', () => {
  it("exits 0 with a conformant JSON report against the embedded default (the README's first command, as typed)", () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-')), 'out.json');
    const r = cli(['run', '--profile', 'quick', '--report', `json:${out}`]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(['tool', 'target', 'profile', 'startedAt', 'finishedAt', 'verdict', 'summary', 'checks'])
    );
    expect(report.tool).toEqual({ name: 'cloud-api-conformance', version: expect.any(String) });
    expect(report.verdict).toBe('conformant');
    // The embedded reference's own clock, said in the report; and the clauses the README promises.
    expect(report.timeScale).toBe(10);
    expect(report.coverage.verified.length).toBeGreaterThanOrEqual(48);
    expect(Object.keys(report.summary).sort()).toEqual(['failed', 'passed', 'skipped', 'warnings']);
    for (const c of report.checks) {
      expect(c).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          group: expect.any(String),
          clauses: expect.any(Array),
          message: expect.any(String),
        })
      );
      expect(['must', 'should', 'declared']).toContain(c.level);
      expect(['passed', 'failed', 'skipped', 'warning', 'error']).toContain(c.status);
    }
  });

  it('--quiet keeps the verdict line, each failure and where the report went, and nothing else', () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-')), 'out.json');
    const started = cli(['run', '--quiet', '--only', 'errors', '--time-scale', '60', '--report', `json:${out}`]);
    const lines = started.stdout.trim().split('\n');
    expect(started.status, started.stderr).toBe(0);
    expect(lines).toEqual([
      expect.stringMatching(/^verdict: conformant  \(\d+ passed, 0 failed, 0 warnings, \d+ skipped\)$/),
      `report: json written to ${out}`,
    ]);
  });

  it('exits 1 when the target is nonconformant, and writes junit and html', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-'));
    const ref = spawn(process.execPath, [BIN, 'reference', '--fault', 'tag-filter-ignored', '--time-scale', '60'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new Promise<void>((resolve, reject) => {
      createInterface({ input: ref.stdout! }).once('line', (line) => {
        try {
          const s = JSON.parse(line);
          const r = cli([
            'run',
            '--base-url',
            s.baseUrl,
            '--api-key',
            s.apiKey,
            '--image',
            s.image,
            '--subnet-id',
            s.subnetId,
            '--time-scale',
            '60',
            '--report',
            `junit:${dir}/j.xml`,
            '--report',
            `html:${dir}/r.html`,
          ]);
          expect(r.status, r.stderr).toBe(1);
          const junit = readFileSync(`${dir}/j.xml`, 'utf8');
          expect(junit).toMatch(
            /<testcase classname="cloud-conformance.vms" name="vms.tag-filter \[MUST\] \(TAG-FILTER, PAGE-TOTAL\)"[^>]*><failure/
          );
          expect(readFileSync(`${dir}/r.html`, 'utf8')).toContain('nonconformant');
          resolve();
        } catch (err) {
          reject(err);
        } finally {
          ref.kill('SIGTERM');
        }
      });
    });
  });

  it('exits 2 with a one-line reason when the target is unreachable', () => {
    const r = cli(['run', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k'.repeat(20)]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unreachable.*127\.0\.0\.1:9/);
  });

  it('exits 2 when credentials are missing for a --base-url target', () => {
    const r = cli(['run', '--base-url', 'http://127.0.0.1:9']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/missing credentials: --api-key/);
  });

  it('takes settings from the environment (CONFORMANCE_BASE_URL)', () => {
    const r = cli(['run'], { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k'.repeat(20) });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unreachable/);
  });

  it.each([
    [['run', '--bogus'], /Unknown option '--bogus'/],
    [['run', '--profile', 'slow'], /--profile must be quick, full or certify/],
    [['run', '--report', 'pdf:x.pdf'], /--report expects FORMAT:PATH/],
    [['run', '--only', 'nosuch'], /--only: unknown group nosuch/],
    [['run', '--overlay', '/nonexistent/overlay.yaml'], /cannot read overlay \/nonexistent\/overlay.yaml/],
    [['frobnicate'], /unknown command/],
  ])('exits 2 on bad usage: %j', (args, message) => {
    const r = cli(args as string[]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('cloud-conformance reference', () => {
  it('lists faults as name, level, clauses, description separated by tabs', () => {
    const r = cli(['reference', '--list-faults']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      const [name, level, clauses, description, ...rest] = line.split('\t');
      expect(rest).toEqual([]);
      expect(name).toMatch(/^[a-z0-9-]+$/);
      expect(['must', 'should']).toContain(level);
      expect(clauses).toMatch(/^[A-Z0-9-]+(,[A-Z0-9-]+)*$/);
      expect(description!.length).toBeGreaterThan(5);
    }
  });

  it('prints exactly one JSON line with the settings, then serves until SIGTERM', async () => {
    const ref = spawn(process.execPath, [BIN, 'reference', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise<string>((resolve) => createInterface({ input: ref.stdout! }).once('line', resolve));
    const s = JSON.parse(line);
    expect(Object.keys(s)).toEqual(
      expect.arrayContaining(['baseUrl', 'apiKey', 'apiKeyB', 'apiKeyReadonly', 'image', 'subnetId'])
    );
    const res = await fetch(`${s.baseUrl}/v1/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: s.apiKey }),
    });
    expect(res.status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      ref.once('exit', resolve);
      ref.kill('SIGTERM');
    });
    expect(code).toBe(0);
  });

  it('prints a ready run line (keys in the environment) that runs the suite against it, and how to stop it', async () => {
    const ref = spawn(process.execPath, [BIN, 'reference', '--port', '0', '--time-scale', '60'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    ref.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<string>((resolve) => createInterface({ input: ref.stdout! }).once('line', resolve));
    while (!stderr.includes('serving until')) await new Promise((r) => setTimeout(r, 50));
    const exportLine = stderr
      .split('\n')
      .find((l) => l.trim().startsWith('export '))!
      .trim();
    const runLine = stderr
      .split('\n')
      .find((l) => l.trim().startsWith('npx cloud-conformance run'))!
      .trim();
    expect(runLine).not.toMatch(/ck_/);
    // The reference's time scale is the run's too: its windows are 1 s, not a minute.
    expect(runLine).toMatch(/ --time-scale 60( |$)/);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'cc-')), 'r.json');
    const child = spawn(
      'bash',
      [
        '-c',
        `${exportLine} && ${runLine.replace(/^npx cloud-conformance/, `${process.execPath} ${BIN}`)} --only auth --report json:${out}`,
      ],
      { stdio: 'ignore' }
    );
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).verdict).toBe('conformant');
    ref.kill('SIGTERM');
  });

  it('stops when the command that started it is killed (npx, a shell job)', async () => {
    // A launcher in between, as npx is: killed outright, the reference must not outlive it.
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, [${JSON.stringify(BIN)}, 'reference', '--port', '0'], { stdio: 'inherit' }); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] }
    );
    const s = JSON.parse(
      await new Promise<string>((resolve) => createInterface({ input: launcher.stdout! }).once('line', resolve))
    );
    expect((await fetch(`${s.baseUrl}/v1/vms`)).status).toBe(401);
    launcher.kill('SIGKILL');
    let gone = false;
    for (let i = 0; i < 40 && !gone; i++) {
      await new Promise((r) => setTimeout(r, 250));
      gone = await fetch(`${s.baseUrl}/v1/vms`).then(
        () => false,
        () => true
      );
    }
    expect(gone).toBe(true);
  });

  it('refuses an unknown fault with exit 2', () => {
    const r = cli(['reference', '--fault', 'no-such-fault']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown fault "no-such-fault"/);
  });
});

describe('cloud-conformance overlay check (CLI contract)', () => {
  const overlayFile = (text: string) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cc-ov-')), 'o.yaml');
    writeFileSync(file, text);
    return file;
  };
  const BAD =
    'overlay: 1.0.0\ninfo: {title: t, version: "1"}\nactions:\n  - target: $.info\n    update:\n      x-error-cases: { gone: { status: 410 } }\n  - target: $.paths["/v1/nope"]\n    update: { x-cleanup-for: createVm }\n';

  it.each(['spec/overlays/reference.yaml', 'spec/overlays/reference-alt.yaml'])(
    'exits 0 with a one-line summary for %s',
    (f) => {
      const r = cli(['overlay', 'check', path.resolve(f)]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/: valid \(\d+ actions, \d+ terms of the vocabulary: /);
    }
  );

  it('exits 2 with one line per problem, each naming the file, the action, its target and the term', () => {
    const file = overlayFile(BAD);
    const r = cli(['overlay', 'check', file]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      `cloud-conformance: overlay ${file}: action #1 (target $.info): $.info['x-error-cases']: unknown error case "gone" (cases: unauthenticated, invalid-api-key, invalid-request, token-expired, key-revoked, method-not-allowed, payload-too-large, unsupported-media-type, forbidden, not-found, other-organization-object, other-organization-reference, quota-exceeded, rate-limited)`,
      `cloud-conformance: overlay ${file}: action #2 (target $.paths["/v1/nope"]): the target matches nothing in the document`,
    ]);
  });

  it('is what run --overlay applies: exit 2 with the first problem, before anything is sent', () => {
    const r = cli(['run', '--overlay', overlayFile(BAD), '--only', 'versioning']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^cloud-conformance: overlay .*: action #1 \(target \$\.info\): \$\.info\['x-error-cases'\]: unknown error case "gone" .*\(and 1 more problems; see cloud-conformance overlay check .*\)\n$/
    );
  });

  it('exits 2 with its usage when the file is missing', () => {
    const r = cli(['overlay', 'check']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: cloud-conformance overlay check FILE');
  });
});
