import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startReference, type ReferenceSettings } from '../../fixtures/reference/server.ts';
import { TEST_TIME_SCALE } from '../helpers.ts';

const BIN = path.resolve('bin/cloud-conformance.js');
const GITHUB = path.resolve('ci-templates/github-actions.yml');
const GITLAB = path.resolve('ci-templates/gitlab-ci.yml');

/** The settings a template must take from secrets (GitHub) or masked CI/CD variables (GitLab). */
const REQUIRED = ['CONFORMANCE_BASE_URL', 'CONFORMANCE_API_KEY'];
const SECRET = [
  'CONFORMANCE_BASE_URL',
  'CONFORMANCE_API_KEY',
  'CONFORMANCE_API_KEY_B',
  'CONFORMANCE_API_KEY_READONLY',
  'CONFORMANCE_S3_ACCESS_KEY',
  'CONFORMANCE_S3_SECRET_KEY',
];

interface Template {
  name: string;
  /** The shell the CI runs for the suite, as the template writes it. */
  script: string;
  /** GitHub: the diff step's shell, run after the suite's step in the same checkout (GitLab has it in script). */
  diffScript?: string;
  /** GitHub: the diff step's own env, with the template's values. */
  diffEnv?: Record<string, string>;
  /** Paths the CI keeps as artifacts. */
  artifacts: string[];
  /** The path the CI reads as a JUnit report, where it has such a notion (GitLab). */
  junitReport?: string;
  /** The variables the job declares (GitHub: job env; GitLab: job variables), with the template's values. */
  env: Record<string, string>;
}

/** --report FORMAT:PATH pairs of a script, in order. */
function reportsOf(script: string): Array<{ format: string; path: string }> {
  return [...script.matchAll(/--report\s+(json|junit|html):(\S+)/g)].map((m) => ({ format: m[1]!, path: m[2]! }));
}

type Step = {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};

function github(): Template & { doc: Record<string, unknown>; steps: Step[] } {
  const doc = parseYaml(readFileSync(GITHUB, 'utf8')) as {
    jobs: Record<string, { env: Record<string, string>; steps: Step[] }>;
  };
  const job = doc.jobs['conformance']!;
  const run = job.steps.find((s) => s.id === 'conformance')!;
  const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
  const diff = job.steps.find((s) => s.id === 'diff')!;
  return {
    name: 'github-actions',
    doc: doc as unknown as Record<string, unknown>,
    steps: job.steps,
    script: run.run!,
    diffScript: diff.run!,
    diffEnv: (diff as { env?: Record<string, string> }).env ?? {},
    artifacts: String(upload.with!['path'])
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    env: job.env,
  };
}

function gitlab(): Template & { job: Record<string, unknown> } {
  const doc = parseYaml(readFileSync(GITLAB, 'utf8')) as Record<
    string,
    {
      script: string[];
      before_script?: string[];
      variables?: Record<string, string>;
      artifacts: { when: string; paths: string[]; reports: { junit: string } };
    }
  >;
  const job = doc['conformance']!;
  return {
    name: 'gitlab-ci',
    job: job as unknown as Record<string, unknown>,
    script: job.script.join('\n'),
    artifacts: job.artifacts.paths,
    junitReport: job.artifacts.reports.junit,
    env: job.variables ?? {},
  };
}

/** What the CI hands the job: the reference target's settings under the names the templates read; unset ones empty. */
function ciEnvironment(t: Template, s: Partial<ReferenceSettings>, args: string): Record<string, string> {
  const given = {
    CONFORMANCE_BASE_URL: s.baseUrl,
    CONFORMANCE_API_KEY: s.apiKey,
    CONFORMANCE_API_KEY_B: s.apiKeyB,
    CONFORMANCE_API_KEY_READONLY: s.apiKeyReadonly,
    CONFORMANCE_IMAGE: s.image,
    CONFORMANCE_SUBNET_ID: s.subnetId,
  };
  const values = Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
  // Every variable the job declares is set, as CI sets it: to the secret's value, or empty when it has none
  // (GitHub); a GitLab job variable keeps its default unless the project overrides it.
  const declared = Object.fromEntries(
    Object.entries(t.env).map(([k, v]) => [k, /^\$\{\{.*\}\}$/.test(v) ? '' : String(v)])
  );
  return { PATH: process.env['PATH']!, HOME: tmpdir(), ...declared, ...values, CONFORMANCE_ARGS: args };
}

/** Runs the template's shell as the CI would (bash, -e, pipefail) in a fresh checkout directory, the tool run offline. */
function runScript(
  t: Template,
  env: Record<string, string>,
  opts: { cwd?: string; script?: string } = {}
): Promise<{ code: number | null; stdout: string; stderr: string; cwd: string }> {
  const cwd = opts.cwd ?? mkdtempSync(path.join(tmpdir(), `cc-${t.name}-`));
  const script = (opts.script ?? t.script).replace(/\bnpx cloud-conformance\b/g, `node ${JSON.stringify(BIN)}`);
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr, cwd }));
  });
}

/** A few fast groups at the tests' time scale keep each run to seconds; the templates pass CONFORMANCE_ARGS through. */
const FAST = `--only versioning,pagination --time-scale ${TEST_TIME_SCALE} --seed 1`;
const DIFF_MD = 'conformance-reports/diff.md';

describe('the GitHub Actions template', () => {
  const t = github();

  it('is a workflow with one job that installs, runs the suite with the reports, and keeps them whatever happened', () => {
    const on = t.doc['on'] as Record<string, unknown>;
    expect(Object.keys(on)).toEqual(expect.arrayContaining(['workflow_dispatch', 'schedule']));
    // Secrets must never reach code from forks.
    expect(Object.keys(on)).not.toContain('pull_request_target');
    expect(t.doc['permissions']).toEqual({ contents: 'read', actions: 'read' });
    expect(t.steps.map((s) => s.uses?.split('@')[0] ?? s.id ?? s.run?.trim().split(/\s/)[0])).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'npm',
      'conformance',
      'diff',
      'actions/upload-artifact',
    ]);
    expect(t.steps.find((s) => s.id === 'diff')!.if).toBe('always()');
    // Node 20 and the current LTS, one job each.
    expect(t.steps.find((s) => s.uses?.startsWith('actions/setup-node'))!.with!['node-version']).toBe(
      '${{ matrix.node }}'
    );
    expect(
      (t.doc['jobs'] as Record<string, { strategy: { matrix: { node: number[] } } }>)['conformance']!.strategy.matrix
        .node
    ).toEqual([20, 24]);
    expect(t.steps.find((s) => s.id === 'conformance')!.shell).toBe('bash');
    const upload = t.steps.at(-1)!;
    expect(upload.if).toBe('always()');
    expect(upload.with!['name']).toBe('conformance-reports-node${{ matrix.node }}');
  });

  it('reads the keys and the base URL from secrets, the rest from variables', () => {
    for (const name of SECRET) expect(t.env[name], name).toBe(`\${{ secrets.${name} }}`);
    for (const name of [
      'CONFORMANCE_IMAGE',
      'CONFORMANCE_SUBNET_ID',
      'CONFORMANCE_OVERLAY',
      'CONFORMANCE_PROFILE',
      'CONFORMANCE_ARGS',
      'CONFORMANCE_EXPECT',
    ])
      expect(t.env[name], name).toBe(`\${{ vars.${name} }}`);
    expect(t.script).toContain('--base-url "$CONFORMANCE_BASE_URL"');
  });

  it('keeps exactly the reports the run writes: JUnit, HTML and JSON, and the diff', () => {
    const reports = reportsOf(t.script);
    expect(reports.map((r) => r.format).sort()).toEqual(['html', 'json', 'junit']);
    expect([...t.artifacts].sort()).toEqual([...reports.map((r) => r.path), DIFF_MD].sort());
  });
});

describe('the GitLab CI template', () => {
  const t = gitlab();

  it('is one job that installs, runs the suite with the reports, and keeps them whatever happened', () => {
    // Node 20 and the current LTS; merge request pipelines, the default branch and schedules.
    expect(t.job['image']).toBe('node:${NODE_VERSION}');
    expect(t.job['parallel']).toEqual({ matrix: [{ NODE_VERSION: ['20', '24'] }] });
    expect((t.job['rules'] as Array<{ if: string }>).map((r) => r.if)).toEqual([
      '$CI_PIPELINE_SOURCE == "merge_request_event"',
      '$CI_PIPELINE_SOURCE == "schedule" || $CI_PIPELINE_SOURCE == "web"',
      '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
    ]);
    expect((t.job['before_script'] as string[]).join('\n')).toMatch(/^npm ci\b/);
    const artifacts = t.job['artifacts'] as { when: string };
    expect(artifacts.when).toBe('always');
  });

  it('reads every setting from CI/CD variables, and only the profile has a default', () => {
    expect(t.env).toEqual({ CONFORMANCE_PROFILE: 'quick' });
    expect(t.script).toContain('--base-url "$CONFORMANCE_BASE_URL"');
    expect(t.script).toContain('$CONFORMANCE_ARGS');
  });

  it('keeps exactly the reports the run writes and the diff, and hands GitLab the JUnit one', () => {
    const reports = reportsOf(t.script);
    expect(reports.map((r) => r.format).sort()).toEqual(['html', 'json', 'junit']);
    expect([...t.artifacts].sort()).toEqual([...reports.map((r) => r.path), DIFF_MD].sort());
    expect(t.junitReport).toBe(reports.find((r) => r.format === 'junit')!.path);
  });
});

// Each template's shell, run offline against the reference target: the exit code is the gate, the reports are where
// the artifact step looks for them.
describe.concurrent('each template runs against the reference target', () => {
  for (const t of [github(), gitlab()]) {
    it(`${t.name}: conformant → exit 0, every artifact written`, async () => {
      const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE });
      try {
        const r = await runScript(t, ciEnvironment(t, target.settings, FAST));
        expect(r.code, r.stderr).toBe(0);
        for (const artifact of t.artifacts.filter((a) => a !== DIFF_MD))
          expect(existsSync(path.join(r.cwd, artifact)), artifact).toBe(true);
        const json = reportsOf(t.script).find((x) => x.format === 'json')!.path;
        const report = JSON.parse(readFileSync(path.join(r.cwd, json), 'utf8'));
        expect(report.verdict).toBe('conformant');
        expect(report.target.baseUrl).toBe(target.settings.baseUrl);
        expect(new Set(report.checks.map((c: { group: string }) => c.group))).toEqual(
          new Set(['versioning', 'pagination'])
        );
        const junit = readFileSync(
          path.join(r.cwd, reportsOf(t.script).find((x) => x.format === 'junit')!.path),
          'utf8'
        );
        expect(junit).toMatch(/<testsuites name="cloud-conformance" tests="\d+" failures="0"/);
        // The progress lines are the CI log; no key appears in it.
        expect(r.stdout).toMatch(/verdict: conformant/);
        expect(r.stdout + r.stderr).not.toContain(target.settings.apiKey);
      } finally {
        await target.close();
      }
    });

    it(`${t.name}: nonconformant → exit 1, the reports still written for the artifact step`, async () => {
      const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
      try {
        const r = await runScript(t, ciEnvironment(t, target.settings, FAST));
        expect(r.code, r.stderr).toBe(1);
        for (const artifact of t.artifacts.filter((a) => a !== DIFF_MD))
          expect(existsSync(path.join(r.cwd, artifact)), artifact).toBe(true);
        const junit = readFileSync(
          path.join(r.cwd, reportsOf(t.script).find((x) => x.format === 'junit')!.path),
          'utf8'
        );
        expect(junit).toMatch(/name="versioning.unknown-version [^"]*"[^>]*><failure/);
      } finally {
        await target.close();
      }
    });

    it(`${t.name}: without the base URL or key secrets → exit 2 and says which, never the embedded target`, async () => {
      for (const missing of REQUIRED) {
        const env = ciEnvironment(t, { baseUrl: 'http://127.0.0.1:9', apiKey: 'k'.repeat(20) }, FAST);
        env[missing] = '';
        const r = await runScript(t, env);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/CONFORMANCE_BASE_URL and CONFORMANCE_API_KEY/);
        expect(r.stdout).not.toMatch(/embedded reference target/);
      }
    });
  }
});

// Adopting the gate: the expectations file in the checkout lets a known failure pass the job, and the job
// compares its report with the default branch's last one, published where the CI system shows it.
describe.concurrent(
  'each template gates on expectations and publishes the diff against the last default-branch run',
  () => {
    const KNOWN =
      '- check: versioning.unknown-version\n  reason: the router serves any version prefix\n  reference: https://tracker.example/API-7\n';

    /** The default branch's last report: a clean run of the same selection, as an earlier job left it. */
    async function lastMainReport(t: Template): Promise<string> {
      const clean = await startReference({ port: 0, timeScale: TEST_TIME_SCALE });
      try {
        const r = await runScript(t, ciEnvironment(t, clean.settings, FAST));
        expect(r.code, r.stderr).toBe(0);
        return path.join(r.cwd, reportsOf(t.script).find((x) => x.format === 'json')!.path);
      } finally {
        await clean.close();
      }
    }

    it('github-actions: a listed failure passes the job; the diff goes to the step summary and the artifact', async () => {
      const t = github();
      const previous = await lastMainReport(t);
      // gh as the runner has it, answering from the earlier job: the run list, then the artifact download.
      const stubs = mkdtempSync(path.join(tmpdir(), 'cc-gh-'));
      const calls = path.join(stubs, 'calls.log');
      writeFileSync(
        path.join(stubs, 'gh'),
        `#!/bin/bash\necho "$*" >> ${JSON.stringify(calls)}\nif [ "$1 $2" = "run list" ]; then echo 4242; exit 0; fi\nif [ "$1 $2" = "run download" ]; then while [ $# -gt 0 ]; do if [ "$1" = "--dir" ]; then mkdir -p "$2"; cp ${JSON.stringify(previous)} "$2/report.json"; fi; shift; done; exit 0; fi\nexit 1\n`
      );
      chmodSync(path.join(stubs, 'gh'), 0o755);
      const faulty = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
      try {
        const cwd = mkdtempSync(path.join(tmpdir(), 'cc-github-expect-'));
        writeFileSync(path.join(cwd, 'conformance-expectations.yaml'), KNOWN);
        const env = ciEnvironment(t, faulty.settings, FAST);
        const run = await runScript(t, env, { cwd });
        expect(run.code, run.stderr + run.stdout).toBe(0);
        const report = JSON.parse(readFileSync(path.join(cwd, 'conformance-reports/report.json'), 'utf8'));
        expect(report.verdict).toBe('nonconformant');
        expect(report.expectations.expected).toEqual(['versioning.unknown-version']);
        const summary = path.join(cwd, 'step-summary.md');
        const stepEnv = {
          ...env,
          PATH: `${stubs}:${env['PATH']}`,
          GITHUB_STEP_SUMMARY: summary,
          GH_TOKEN: 'ghs_stub',
          WORKFLOW: 'conformance',
          DEFAULT_BRANCH: 'main',
          NODE_VERSION: '24',
        };
        expect(Object.keys(t.diffEnv!).sort()).toEqual(['DEFAULT_BRANCH', 'GH_TOKEN', 'NODE_VERSION', 'WORKFLOW']);
        // On a schedule the event has no repository: the default branch falls back to the ref the workflow runs on.
        expect(t.diffEnv!['DEFAULT_BRANCH']).toBe('${{ github.event.repository.default_branch || github.ref_name }}');
        const diff = await runScript(t, stepEnv, { cwd, script: t.diffScript });
        expect(diff.code, diff.stderr).toBe(0);
        expect(readFileSync(calls, 'utf8')).toMatch(
          /^run list --workflow conformance --branch main --status completed .*\nrun download 4242 --name conformance-reports-node24 --dir previous-run\n$/
        );
        expect(readFileSync(summary, 'utf8')).toContain('| `versioning.unknown-version` | passed | failed |');
        expect(readFileSync(path.join(cwd, DIFF_MD), 'utf8')).toContain('### Conformance: ❌ regression');
        expect(diff.stdout).toContain('checks newly failing (1):\n  versioning.unknown-version  passed → failed');
        // No earlier run (the first on the branch): said, and the step passes.
        writeFileSync(path.join(stubs, 'gh'), '#!/bin/bash\nexit 1\n');
        const first = await runScript(t, stepEnv, {
          cwd: mkdtempSync(path.join(tmpdir(), 'cc-github-first-')),
          script: `mkdir -p conformance-reports && cp ${JSON.stringify(path.join(cwd, 'conformance-reports/report.json'))} conformance-reports/\n${t.diffScript}`,
        });
        expect(first.code, first.stderr).toBe(0);
        expect(first.stdout).toContain('No earlier conformance report on main to compare with.');
      } finally {
        await faulty.close();
      }
    });

    it('gitlab-ci: a listed failure passes the job; the diff is kept, logged, and posted to the merge request', async () => {
      const t = gitlab();
      const previous = readFileSync(await lastMainReport(t));
      // GitLab's API as the job reaches it: the default branch's artifact by job name, and merge request notes.
      const seen: Array<{ method: string; url: string; token?: string; body: string }> = [];
      const api = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          seen.push({
            method: req.method!,
            url: req.url!,
            token: (req.headers['job-token'] ?? req.headers['private-token']) as string | undefined,
            body,
          });
          if (
            req.method === 'GET' &&
            req.url === '/api/v4/projects/42/jobs/artifacts/main/raw/conformance-reports/report.json?job=conformance'
          )
            res.end(previous);
          else if (req.method === 'POST' && req.url === '/api/v4/projects/42/merge_requests/7/notes')
            res.writeHead(201).end('{}');
          else res.writeHead(404).end();
        });
      });
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
      const faulty = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
      try {
        const cwd = mkdtempSync(path.join(tmpdir(), 'cc-gitlab-expect-'));
        writeFileSync(path.join(cwd, 'conformance-expectations.yaml'), KNOWN);
        const gitlabEnv = {
          CI_API_V4_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v4`,
          CI_PROJECT_ID: '42',
          CI_DEFAULT_BRANCH: 'main',
          CI_JOB_NAME: 'conformance',
          CI_JOB_TOKEN: 'job-token-stub',
          CI_MERGE_REQUEST_IID: '7',
          CONFORMANCE_GITLAB_TOKEN: 'glpat-stub',
        };
        const r = await runScript(t, { ...ciEnvironment(t, faulty.settings, FAST), ...gitlabEnv }, { cwd });
        expect(r.code, r.stderr + r.stdout).toBe(0);
        expect(JSON.parse(readFileSync(path.join(cwd, 'conformance-reports/report.json'), 'utf8')).verdict).toBe(
          'nonconformant'
        );
        expect(readFileSync(path.join(cwd, DIFF_MD), 'utf8')).toContain(
          '| `versioning.unknown-version` | passed | failed |'
        );
        expect(r.stdout).toContain('checks newly failing (1):\n  versioning.unknown-version  passed → failed');
        expect(seen.map((s) => `${s.method} ${s.url} ${s.token}`)).toEqual([
          'GET /api/v4/projects/42/jobs/artifacts/main/raw/conformance-reports/report.json?job=conformance job-token-stub',
          'POST /api/v4/projects/42/merge_requests/7/notes glpat-stub',
        ]);
        expect(JSON.parse(seen[1]!.body).body).toContain('### Conformance: ❌ regression');
        // A failure the file does not list still fails the job, after the diff.
        writeFileSync(
          path.join(cwd, 'conformance-expectations.yaml'),
          '- check: pagination.walk\n  reason: another one\n'
        );
        const unlisted = await runScript(
          t,
          { ...ciEnvironment(t, faulty.settings, FAST), ...gitlabEnv, CI_MERGE_REQUEST_IID: '' },
          { cwd }
        );
        expect(unlisted.code).toBe(1);
        expect(unlisted.stdout).toContain('checks newly failing (1)');
      } finally {
        await faulty.close();
        api.close();
      }
    });
  }
);

describe('the install path the templates name without a registry entry', () => {
  it('a tarball made with npm pack holds a CLI that runs the suite against the embedded reference', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-pack-'));
    const run = (cmd: string, args: string[], cwd: string) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1' } });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--silent'], path.resolve('.'));
    expect(packed.code, packed.out).toBe(0);
    const tarball = packed.out.trim().split('\n').at(-1)!;
    expect((await run('tar', ['-xzf', path.join(dir, tarball), '-C', dir], dir)).code).toBe(0);
    // The packed files, with this checkout's installed dependencies (what npm install adds from the registry).
    const pkg = path.join(dir, 'package');
    symlinkSync(path.resolve('node_modules'), path.join(pkg, 'node_modules'), 'dir');
    const report = path.join(dir, 'out.json');
    try {
      const ran = await run(
        process.execPath,
        [
          path.join(pkg, 'bin/cloud-conformance.js'),
          'run',
          '--profile',
          'quick',
          '--only',
          'versioning',
          '--quiet',
          '--report',
          `json:${report}`,
        ],
        dir
      );
      expect(ran.code, ran.out).toBe(0);
      expect(JSON.parse(readFileSync(report, 'utf8')).verdict).toBe('conformant');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
