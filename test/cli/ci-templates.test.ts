// The CI templates as the CI systems run them: each template's shell steps, taken from its YAML, run in bash with the
// variables GitHub and GitLab really set (the event name, the pipeline source, a matrix job's name), with npx, npm and gh
// as stubs on PATH that record what they were given (npx runs the real CLI, or plays a run that ended with a given
// exit code) and GitLab's API as a stub on 127.0.0.1 that real curl talks to, so a malformed URL fails here as it
// fails in CI.
import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startReference, type ReferenceSettings } from '../../fixtures/reference/server.ts';
import { ENV_OF } from '../../src/cli/options.ts';
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
  'CONFORMANCE_API_KEY_REVOCABLE',
  'CONFORMANCE_S3_ACCESS_KEY',
  'CONFORMANCE_S3_SECRET_KEY',
  'CONFORMANCE_CLIENT_KEY_PASSPHRASE',
];
/** The group both templates (and the k6 examples) serialize on: one job at a time against one deployment. */
const DEPLOYMENT_GROUP = 'conformance-deployment';
/** A few fast groups at the tests' time scale keep each run to seconds; the templates pass CONFORMANCE_ARGS through. */
const FAST = `--only versioning,pagination --time-scale ${TEST_TIME_SCALE} --seed 1`;
const REPORT_JSON = 'conformance-reports/report.json';
const DIFF_MD = 'conformance-reports/diff.md';

/** --report FORMAT:PATH pairs of a script, in order. */
function reportsOf(script: string): Array<{ format: string; path: string }> {
  return [...script.matchAll(/--report\s+(json|junit|html):(\S+)/g)].map((m) => ({ format: m[1]!, path: m[2]! }));
}

// ---------------------------------------------------------------------------------------------------------------
// Stubs on PATH

interface Stubs {
  dir: string;
  /** Every npx call, its arguments in order. */
  npx(): string[][];
  /** Every gh call, its arguments joined by spaces. */
  gh(): string[];
}

/**
 * npx: records its arguments; `npx cloud-conformance …` runs the real CLI, except `run` when CC_FAKE_RUN says how the run
 * ends ({exit, report}: the report is copied where --report json: asks). gh: answers `run list` and `run download` from
 * CC_GH_RUNS ({ids, artifacts: {"<id>/<name>": file}}). npm: does nothing (the checkout has its dependencies).
 */
function makeStubs(): Stubs {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-ci-stubs-'));
  const npxLog = path.join(dir, 'npx.log');
  const ghLog = path.join(dir, 'gh.log');
  const node = `#!${process.execPath}\nconst fs = require('fs');\nconst path = require('path');\nconst args = process.argv.slice(2);\n`;
  writeFileSync(
    path.join(dir, 'npx'),
    `${node}fs.appendFileSync(${JSON.stringify(npxLog)}, JSON.stringify(args) + '\\n');
if (args[0] !== 'cloud-conformance') process.exit(127);
const fake = process.env.CC_FAKE_RUN;
if (args[1] === 'run' && fake) {
  const { exit, report } = JSON.parse(fake);
  const json = args.find((a) => a.startsWith('json:'));
  if (report && json) fs.copyFileSync(report, json.slice(5));
  process.exit(exit);
}
const r = require('child_process').spawnSync(process.execPath, [${JSON.stringify(BIN)}, ...args.slice(1)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
`
  );
  writeFileSync(
    path.join(dir, 'gh'),
    `${node}fs.appendFileSync(${JSON.stringify(ghLog)}, args.join(' ') + '\\n');
const runs = JSON.parse(process.env.CC_GH_RUNS || '{"ids":[],"artifacts":{}}');
if (args[0] === 'run' && args[1] === 'list') { process.stdout.write(runs.ids.map((id) => id + '\\n').join('')); process.exit(0); }
if (args[0] === 'run' && args[1] === 'download') {
  const file = runs.artifacts[args[2] + '/' + args[args.indexOf('--name') + 1]];
  if (!file) { console.error('no valid artifacts found to download'); process.exit(1); }
  const dir = args[args.indexOf('--dir') + 1];
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(file, path.join(dir, 'report.json'));
  process.exit(0);
}
process.exit(1);
`
  );
  writeFileSync(path.join(dir, 'npm'), '#!/bin/bash\nexit 0\n');
  for (const f of ['npx', 'gh', 'npm']) chmodSync(path.join(dir, f), 0o755);
  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  return {
    dir,
    npx: () => lines(npxLog).map((l) => JSON.parse(l) as string[]),
    gh: () => lines(ghLog),
  };
}

interface Shell {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A step's shell as the runner runs it: bash without profile, -e and pipefail (GitHub's `shell: bash`, GitLab's bash). */
function bash(script: string, env: Record<string, string>, cwd: string): Promise<Shell> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const checkout = (name: string) => mkdtempSync(path.join(tmpdir(), `cc-${name}-`));

/** The run the npx stub plays instead of the CLI: it exits with `exit`, leaving `report` as the JSON report. */
const fakeRun = (exit: number, report?: string) => JSON.stringify({ exit, report });

/** What the reference target's settings give, under the names the templates read (unset ones left out). */
function settingsOf(s: Partial<ReferenceSettings>): Record<string, string> {
  const given = {
    CONFORMANCE_BASE_URL: s.baseUrl,
    CONFORMANCE_API_KEY: s.apiKey,
    CONFORMANCE_API_KEY_B: s.apiKeyB,
    CONFORMANCE_API_KEY_READONLY: s.apiKeyReadonly,
    CONFORMANCE_IMAGE: s.image,
    CONFORMANCE_SUBNET_ID: s.subnetId,
  };
  return Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
}

// ---------------------------------------------------------------------------------------------------------------
// GitHub Actions: the workflow's job, its steps run in order as the runner runs them

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
interface GithubJob {
  env: Record<string, string>;
  steps: Step[];
  strategy?: unknown;
  concurrency?: unknown;
  'timeout-minutes': number;
}

function githubDoc(): Record<string, unknown> & { jobs: Record<string, GithubJob> } {
  return parseYaml(readFileSync(GITHUB, 'utf8')) as Record<string, unknown> & { jobs: Record<string, GithubJob> };
}
const githubJob = () => githubDoc().jobs['conformance']!;
const githubStep = (id: string) => githubJob().steps.find((s) => s.id === id)!;

/** What GitHub would hand the workflow: the event, its inputs, the repository's secrets and variables. */
interface GithubEvent {
  event: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';
  inputs?: Record<string, string>;
  secrets: Record<string, string>;
  vars?: Record<string, string>;
}

/**
 * `${{ … }}` as GitHub evaluates the forms the template uses: context paths and `a || b` (the first non-empty); an
 * unset secret, variable or input is empty. A form this does not know fails the test rather than guessing.
 */
function githubExpression(value: string, e: GithubEvent, outputs: Record<string, Record<string, string>>): string {
  const lookup = (p: string): string => {
    const [head, ...rest] = p.split('.');
    if (head === 'secrets') return e.secrets[rest[0]!] ?? '';
    if (head === 'vars') return e.vars?.[rest[0]!] ?? '';
    if (head === 'inputs') return e.inputs?.[rest[0]!] ?? '';
    if (head === 'steps' && rest[1] === 'outputs') return outputs[rest[0]!]?.[rest[2]!] ?? '';
    const github: Record<string, string> = {
      'github.token': 'ghs_stub',
      'github.repository': 'acme/deployment',
      'github.workflow': 'conformance',
      'github.ref_name': e.event === 'pull_request' ? '7/merge' : 'main',
      // Only some events carry the repository: a schedule's does not.
      'github.event.repository.default_branch': e.event === 'schedule' ? '' : 'main',
    };
    if (p in github) return github[p]!;
    throw new Error(`the test does not know the expression ${p}`);
  };
  return value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, inner: string) => {
    for (const operand of inner.split('||').map((o) => o.trim())) {
      const v = /^'(.*)'$/.exec(operand)?.[1] ?? lookup(operand);
      if (v !== '') return v;
    }
    return '';
  });
}

interface GithubRun {
  /** Each step the runner ran, by id (or name), with its outcome. */
  steps: Record<string, Shell>;
  /** The job's outcome: failed when a step failed. */
  failed: boolean;
  /** The artifact's name and which of its paths existed when the upload step ran. */
  artifact: { name: string; files: string[] };
  summary: string;
}

/** Runs the job's steps in order: a step without `if` only while every earlier one succeeded; `always()` whatever. */
async function runGithub(e: GithubEvent, stubs: Stubs, cwd: string, extraEnv: Record<string, string> = {}) {
  const job = githubJob();
  const outputs: Record<string, Record<string, string>> = {};
  const summary = path.join(cwd, '.step-summary.md');
  const resolve = (env: Record<string, string> = {}) =>
    Object.fromEntries(Object.entries(env).map(([k, v]) => [k, githubExpression(String(v), e, outputs)]));
  const run: GithubRun = { steps: {}, failed: false, artifact: { name: '', files: [] }, summary: '' };
  for (const step of job.steps) {
    if (run.failed && step.if !== 'always()') continue;
    if (step.if !== undefined && step.if !== 'always()')
      throw new Error(`the test does not know the condition ${step.if}`);
    if (step.uses?.startsWith('actions/upload-artifact@')) {
      const w = resolve(step.with as Record<string, string>);
      const files = w['path']!.split('\n').map((l) => l.trim());
      run.artifact = { name: w['name']!, files: files.filter((f) => f && existsSync(path.join(cwd, f))) };
    }
    if (step.run === undefined) continue;
    const output = path.join(cwd, `.output-${step.id ?? 'step'}`);
    writeFileSync(output, '');
    const env = {
      PATH: `${stubs.dir}:${process.env['PATH']}`,
      HOME: tmpdir(),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: e.event,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      ...resolve(job.env),
      ...resolve(step.env),
      ...extraEnv,
    };
    const r = await bash(step.run, env, cwd);
    run.steps[step.id ?? step.name ?? step.run.trim()] = r;
    outputs[step.id ?? ''] = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
    );
    if (r.code !== 0) run.failed = true;
  }
  run.summary = existsSync(summary) ? readFileSync(summary, 'utf8') : '';
  return run;
}

// ---------------------------------------------------------------------------------------------------------------
// GitLab CI: the job's before_script and script in one shell, with GitLab's predefined variables

interface GitlabJob {
  script: string[];
  before_script?: string[];
  variables?: Record<string, string>;
  parallel?: number | { matrix: Array<Record<string, string | string[]>> };
  artifacts: { when: string; paths: string[]; reports: { junit: string } };
  [key: string]: unknown;
}
const gitlabJob = () => (parseYaml(readFileSync(GITLAB, 'utf8')) as Record<string, GitlabJob>)['conformance']!;

/**
 * The names GitLab gives the jobs of one job entry, as GitLab's own code does: a `parallel: matrix` job becomes one job
 * per combination named `<name>: [<values, comma separated>]` (lib/gitlab/ci/config/normalizer/matrix_strategy.rb),
 * `parallel: N` becomes `<name> i/N`, any other keeps its key.
 */
function gitlabJobNames(key: string, job: Pick<GitlabJob, 'parallel'>): string[] {
  const p = job.parallel;
  if (typeof p === 'number') return Array.from({ length: p }, (_, i) => `${key} ${i + 1}/${p}`);
  if (!p) return [key];
  return p.matrix.flatMap((entry) => {
    const values = Object.values(entry).map((v) => (Array.isArray(v) ? v : [v]));
    const combos = values.reduce<string[][]>((acc, vs) => acc.flatMap((a) => vs.map((v) => [...a, v])), [[]]);
    return combos.map((c) => `${key}: [${c.join(', ')}]`);
  });
}

interface GitlabPipeline {
  source: 'merge_request_event' | 'push' | 'schedule' | 'web' | 'api' | 'trigger';
  /** CI_JOB_NAME: the job's name as GitLab gives it (gitlabJobNames). */
  jobName: string;
  /** The project's CI/CD variables. */
  variables: Record<string, string>;
  /** CI_API_V4_URL, when the API is played by a stub. */
  api?: string;
}

/** The predefined variables GitLab sets for this job (those the template reads), then the project's variables. */
function gitlabEnvironment(p: GitlabPipeline, stubs: Stubs): Record<string, string> {
  const mr = p.source === 'merge_request_event';
  return {
    PATH: `${stubs.dir}:${process.env['PATH']}`,
    HOME: tmpdir(),
    CI: 'true',
    GITLAB_CI: 'true',
    CI_JOB_NAME: p.jobName,
    CI_JOB_NAME_SLUG: p.jobName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    CI_PIPELINE_SOURCE: p.source,
    CI_DEFAULT_BRANCH: 'main',
    CI_PROJECT_ID: '42',
    CI_JOB_TOKEN: 'job-token-stub',
    ...(mr ? { CI_MERGE_REQUEST_IID: '7' } : { CI_COMMIT_BRANCH: 'main' }),
    ...(p.api ? { CI_API_V4_URL: p.api } : {}),
    ...gitlabJob().variables,
    ...p.variables,
  };
}

function runGitlab(p: GitlabPipeline, stubs: Stubs, cwd: string): Promise<Shell> {
  const job = gitlabJob();
  return bash([...(job.before_script ?? []), ...job.script].join('\n'), gitlabEnvironment(p, stubs), cwd);
}

/**
 * GitLab's artifact endpoint as it answers the job token: the file of the job of that exact name in the branch's
 * latest successful pipeline (Project#latest_successful_build_for_ref: `find_by(name: job_name)`), else 404; and merge
 * request notes. Real curl sends the requests, so a URL curl cannot parse never gets here.
 */
async function gitlabApi(artifacts: Record<string, Buffer>, status = 200) {
  const seen: Array<{ method: string; url: string; job: string | null; token?: string; body: string }> = [];
  const api: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://gitlab.test');
      seen.push({
        method: req.method!,
        url: req.url!,
        job: url.searchParams.get('job'),
        token: (req.headers['job-token'] ?? req.headers['private-token']) as string | undefined,
        body,
      });
      const artifact = /^\/api\/v4\/projects\/42\/jobs\/artifacts\/(.+)\/raw\/(.+)$/.exec(url.pathname);
      if (req.method === 'GET' && artifact && status !== 200) res.writeHead(status).end('{"message":"403 Forbidden"}');
      else if (req.method === 'GET' && artifact) {
        const file = artifacts[`${decodeURIComponent(artifact[1]!)} ${url.searchParams.get('job')} ${artifact[2]}`];
        if (file) res.end(file);
        else res.writeHead(404).end('{"message":"404 Not found"}');
      } else if (req.method === 'POST' && url.pathname === '/api/v4/projects/42/merge_requests/7/notes')
        res.writeHead(201).end('{}');
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v4`,
    seen,
    close: () => new Promise<void>((resolve) => api.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reports to play with: a run of the fast selection against the reference target

/** One clean run's JSON report (the same selection the tests run), made once through the CLI and shared. */
let clean: Promise<string> | undefined;
function cleanRun(): Promise<string> {
  clean ??= (async () => {
    const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE });
    try {
      const out = path.join(checkout('clean-report'), 'report.json');
      const r = await bash(
        `node ${JSON.stringify(BIN)} run --base-url "$CONFORMANCE_BASE_URL" --image "$CONFORMANCE_IMAGE" --subnet-id "$CONFORMANCE_SUBNET_ID" ${FAST} --quiet --report json:${out}`,
        { PATH: process.env['PATH']!, HOME: tmpdir(), ...settingsOf(target.settings) },
        path.dirname(out)
      );
      if (r.code !== 0) throw new Error(`the clean run exited ${r.code}: ${r.stderr}`);
      return out;
    } finally {
      await target.close();
    }
  })();
  return clean;
}

/** The clean report, as a run of `profile` would have left it (another profile: the same report under its name). */
async function cleanReport(profile = 'quick'): Promise<string> {
  const quick = await cleanRun();
  if (profile === 'quick') return quick;
  const out = path.join(checkout(`${profile}-report`), 'report.json');
  writeFileSync(out, JSON.stringify({ ...JSON.parse(readFileSync(quick, 'utf8')), profile }));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

describe('the GitHub Actions template', () => {
  const doc = githubDoc();
  const job = githubJob();

  it('runs on pull requests, pushes to the default branch, a schedule and by hand with a profile to pick; never on pull_request_target', () => {
    const on = doc['on'] as Record<string, { inputs?: Record<string, { options: string[]; default: string }> }>;
    expect(Object.keys(on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
    expect(on['workflow_dispatch']!.inputs!['profile']).toMatchObject({
      options: ['quick', 'full', 'certify'],
      default: 'quick',
    });
    expect(doc['permissions']).toEqual({ contents: 'read', actions: 'read' });
  });

  it('runs one job at a time against the deployment, on one Node, never cancelling a run in progress', () => {
    expect(doc['concurrency']).toEqual({ group: DEPLOYMENT_GROUP, 'cancel-in-progress': false });
    expect(job.strategy).toBeUndefined();
    expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node'))!.with!['node-version']).toBe(24);
    expect(job['timeout-minutes']).toBeGreaterThanOrEqual(120);
  });

  it('installs, chooses the profile, runs the suite, compares, and keeps the reports whatever happened', () => {
    expect(job.steps.map((s) => s.uses?.split('@')[0] ?? s.id ?? s.run?.trim().split(/\s/)[0])).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'npm',
      'profile',
      'conformance',
      'diff',
      'actions/upload-artifact',
    ]);
    expect(githubStep('diff').if).toBe('always()');
    expect(job.steps.at(-1)!.if).toBe('always()');
    for (const id of ['profile', 'conformance', 'diff']) expect(githubStep(id).shell).toBe('bash');
  });

  it('hands the job every setting the CLI reads from the environment: keys from secrets, the rest from variables; the profile from the trigger alone', () => {
    // GitHub hands a job only what it names (GitLab hands it every CI/CD variable).
    const settings = [...Object.values(ENV_OF), 'CONFORMANCE_CLIENT_KEY_PASSPHRASE'].filter(
      (n) => n !== 'CONFORMANCE_PROFILE'
    );
    for (const name of SECRET) expect(job.env[name], name).toBe(`\${{ secrets.${name} }}`);
    for (const name of [...settings.filter((n) => !SECRET.includes(n)), 'CONFORMANCE_ARGS', 'CONFORMANCE_EXPECT'])
      expect(job.env[name], name).toMatch(new RegExp(`^\\$\\{\\{ (vars|secrets)\\.${name} \\}\\}$`));
    expect(Object.keys(job.env).sort()).toEqual([...settings, 'CONFORMANCE_ARGS', 'CONFORMANCE_EXPECT'].sort());
    expect(job.env['CONFORMANCE_PROFILE']).toBeUndefined();
    expect(githubStep('conformance').run).toContain('--base-url "$CONFORMANCE_BASE_URL"');
  });

  it('keeps exactly the reports the run writes: JUnit, HTML and JSON, and the diff', () => {
    const reports = reportsOf(githubStep('conformance').run!);
    expect(reports.map((r) => r.format).sort()).toEqual(['html', 'json', 'junit']);
    const upload = job.steps.at(-1)!;
    const paths = String(upload.with!['path'])
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(paths.sort()).toEqual([...reports.map((r) => r.path), DIFF_MD].sort());
  });
});

describe('both templates', () => {
  it("hold a run to its profile's reach with the same code", () => {
    const snippet = (script: string) => {
      const m = /node -e '\n([\s\S]*?)\n\s*' \|\| status=\$\?/.exec(script);
      return m![1]!.split('\n').map((l) => l.trim());
    };
    expect(snippet(gitlabJob().script.join('\n'))).toEqual(snippet(githubStep('conformance').run!));
    expect(snippet(gitlabJob().script.join('\n')).length).toBeGreaterThan(8);
  });
});

describe('the GitLab CI template', () => {
  const job = gitlabJob();

  it('is one job on one Node, in merge request pipelines, on the default branch and on schedules', () => {
    expect(job['image']).toBe('node:24');
    expect(job.parallel).toBeUndefined();
    expect((job['rules'] as Array<{ if: string }>).map((r) => r.if)).toEqual([
      '$CI_PIPELINE_SOURCE == "merge_request_event"',
      '$CI_PIPELINE_SOURCE == "schedule" || $CI_PIPELINE_SOURCE == "web"',
      '$CI_PIPELINE_SOURCE == "api" || $CI_PIPELINE_SOURCE == "trigger"',
      '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
    ]);
    expect(job.before_script!.join('\n')).toMatch(/^npm ci\b/);
    expect(job.artifacts.when).toBe('always');
  });

  it('runs in every pipeline its script gives a profile of its own: the ones run by hand, by the API or a trigger too', () => {
    // The rules' `$A == "v" || …` and `$A == $B` forms, evaluated as GitLab does for a pipeline's variables.
    const admits = (vars: Record<string, string>) =>
      (job['rules'] as Array<{ if: string }>).some((r) =>
        r.if.split('||').some((term) => {
          const [a, b] = term.split('==').map((s) => s.trim());
          const value = (s: string) => (s.startsWith('$') ? (vars[s.slice(1)] ?? '') : (JSON.parse(s) as string));
          return value(a!) === value(b!);
        })
      );
    const sources = ['merge_request_event', 'push', 'schedule', 'web', 'api', 'trigger', 'pipeline', 'chat'];
    const branch = { CI_COMMIT_BRANCH: 'feature', CI_DEFAULT_BRANCH: 'main' };
    expect(sources.filter((s) => admits({ ...branch, CI_PIPELINE_SOURCE: s }))).toEqual([
      'merge_request_event',
      'schedule',
      'web',
      'api',
      'trigger',
    ]);
    expect(admits({ CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'main', CI_DEFAULT_BRANCH: 'main' })).toBe(true);
    // Each source the script's case names by hand is one the rules admit.
    const byHand = /\n\s*([a-z_ |]+)\) profile="\$\{CONFORMANCE_PROFILE/.exec(job.script.join('\n'))![1]!;
    for (const s of byHand.split('|').map((x) => x.trim())) expect(admits({ CI_PIPELINE_SOURCE: s }), s).toBe(true);
  });

  it('runs one such job at a time across pipelines, and a newer pipeline never cancels it', () => {
    expect(job['resource_group']).toBe(DEPLOYMENT_GROUP);
    expect(job['interruptible']).toBe(false);
    expect(job['timeout']).toBe('3h');
  });

  it('reads every setting from CI/CD variables and declares none itself (a project-wide profile would override it)', () => {
    expect(job.variables).toBeUndefined();
    expect(job.script.join('\n')).toContain('--base-url "$CONFORMANCE_BASE_URL"');
    expect(job.script.join('\n')).toContain('$CONFORMANCE_ARGS');
  });

  it('keeps exactly the reports the run writes and the diff, and hands GitLab the JUnit one', () => {
    const reports = reportsOf(job.script.join('\n'));
    expect(reports.map((r) => r.format).sort()).toEqual(['html', 'json', 'junit']);
    expect([...job.artifacts.paths].sort()).toEqual([...reports.map((r) => r.path), DIFF_MD].sort());
    expect(job.artifacts.reports.junit).toBe(reports.find((r) => r.format === 'junit')!.path);
  });

  it('names its jobs as GitLab does: the key, or "<key>: [values]" for each combination of a parallel matrix', () => {
    expect(gitlabJobNames('conformance', job)).toEqual(['conformance']);
    expect(gitlabJobNames('conformance', { parallel: { matrix: [{ NODE_VERSION: ['20', '24'] }] } })).toEqual([
      'conformance: [20]',
      'conformance: [24]',
    ]);
    expect(gitlabJobNames('conformance', { parallel: 2 })).toEqual(['conformance 1/2', 'conformance 2/2']);
  });
});

// The profile of each trigger, the flags it runs with, and the gate's exit code: the run is played by the npx stub, so
// these take no target.
describe.concurrent('each trigger runs its own profile, and any nonzero exit fails the job', () => {
  const key = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k'.repeat(20) };
  const runArgs = (stubs: Stubs) => stubs.npx().find((a) => a[1] === 'run')!;
  const valueOf = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

  const github: Array<[GithubEvent['event'], Record<string, string> | undefined, string]> = [
    ['pull_request', undefined, 'quick'],
    ['push', undefined, 'quick'],
    ['schedule', undefined, 'certify'],
    ['workflow_dispatch', { profile: 'full' }, 'full'],
    ['workflow_dispatch', {}, 'quick'],
  ];
  for (const [event, inputs, profile] of github)
    it(`github-actions: ${event}${inputs ? ` ${JSON.stringify(inputs)}` : ''} → --profile ${profile}`, async () => {
      const stubs = makeStubs();
      const cwd = checkout('github-trigger');
      const r = await runGithub({ event, inputs, secrets: key }, stubs, cwd, { CC_FAKE_RUN: fakeRun(1) });
      const args = runArgs(stubs);
      expect(args.slice(0, 2)).toEqual(['cloud-conformance', 'run']);
      expect(valueOf(args, '--profile')).toBe(profile);
      // certify must verify every MUST clause; the others are held to their profile's reach by the step itself.
      expect(args.includes('--require-complete')).toBe(profile === 'certify');
      expect(args.filter((a) => a === '')).toEqual([]);
      expect(r.artifact.name).toBe(`conformance-reports-${profile}`);
      expect(r.steps['profile']!.stdout).toContain(`profile: ${profile} (${event})`);
    });

  const gitlab: Array<[GitlabPipeline['source'], Record<string, string>, string]> = [
    ['merge_request_event', {}, 'quick'],
    ['push', {}, 'quick'],
    // A project-wide CONFORMANCE_PROFILE does not change the gate's profile, only that of a pipeline run by hand.
    ['push', { CONFORMANCE_PROFILE: 'certify' }, 'quick'],
    ['schedule', {}, 'certify'],
    ['web', { CONFORMANCE_PROFILE: 'full' }, 'full'],
    ['web', {}, 'quick'],
    ['api', { CONFORMANCE_PROFILE: 'certify' }, 'certify'],
    ['trigger', {}, 'quick'],
  ];
  for (const [source, variables, profile] of gitlab)
    it(`gitlab-ci: ${source}${Object.keys(variables).length ? ` ${JSON.stringify(variables)}` : ''} → --profile ${profile}`, async () => {
      const stubs = makeStubs();
      const cwd = checkout('gitlab-trigger');
      const r = await runGitlab(
        { source, jobName: 'conformance', variables: { ...key, ...variables, CC_FAKE_RUN: fakeRun(1) } },
        stubs,
        cwd
      );
      expect(r.code).toBe(1);
      const args = runArgs(stubs);
      expect(valueOf(args, '--profile')).toBe(profile);
      expect(args.includes('--require-complete')).toBe(profile === 'certify');
      expect(args.filter((a) => a === '')).toEqual([]);
    });

  // 4 is "resources left behind", which another version of the tool adds; 5 stands for any code not yet defined.
  for (const exit of [1, 2, 3, 4, 5]) {
    it(`github-actions: the run exits ${exit} → the job fails, the comparison and the upload still run`, async () => {
      const stubs = makeStubs();
      const cwd = checkout('github-exit');
      const r = await runGithub({ event: 'pull_request', secrets: key }, stubs, cwd, { CC_FAKE_RUN: fakeRun(exit) });
      expect(r.steps['conformance']!.code).toBe(exit);
      expect(r.failed).toBe(true);
      expect(Object.keys(r.steps)).toEqual(['npm ci', 'profile', 'conformance', 'diff']);
      expect(r.artifact.name).toBe('conformance-reports-quick');
    });

    it(`gitlab-ci: the run exits ${exit} → the job exits ${exit}, after the comparison`, async () => {
      const stubs = makeStubs();
      const report = await writeReport({ profile: 'quick' });
      const api = await gitlabApi({});
      try {
        const r = await runGitlab(
          {
            source: 'merge_request_event',
            jobName: 'conformance',
            api: api.url,
            variables: { ...key, CC_FAKE_RUN: fakeRun(exit, report) },
          },
          stubs,
          checkout('gitlab-exit')
        );
        expect(r.code, r.stderr).toBe(exit);
        expect(api.seen.map((s) => s.job)).toEqual(['conformance']);
        expect(r.stdout).toContain('No earlier report of job "conformance" on main to compare with');
      } finally {
        await api.close();
      }
    });
  }
});

// The gate's completeness rule over the report's coverage (docs/report.md: coverage.notVerified, partlyVerified): a run
// that exits 0 still fails the job (3) when a MUST clause is not verified for a reason its profile could have overcome.
describe.concurrent("a quick or full run that exits 0 passes only when complete within its profile's reach", () => {
  const key = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k'.repeat(20) };
  const check = (id: string) => ({ id, group: id.split('.')[0], status: 'skipped' });
  const open = (clause: string, id: string, howToVerify: string, blocking = true) => ({
    clause,
    check: id,
    reason: 'skipped',
    howToVerify,
    blocking,
  });
  // A clause's domain with one point the run could have exercised, and how (coverage.domains).
  const missing = (clause: string, howToVerify: string) => ({
    clause,
    domain: {},
    exercised: {},
    missing: [{ dimension: 'values', point: 'x', possible: true, reason: 'not sent', howToVerify }],
  });
  const cases: Array<[string, Record<string, unknown>, number, RegExp?]> = [
    [
      'only clauses a longer profile verifies',
      {
        checks: [check('auth.token-expiry'), check('limits.window-resets')],
        coverage: {
          notVerified: [
            open('AUTH-TOKEN-TTL', 'auth.token-expiry', '--profile full (or certify), or --expired-token TOKEN'),
            open('LIMIT-READ-300', 'limits.window-resets', '--profile full (or certify)'),
          ],
          partlyVerified: [],
        },
      },
      0,
    ],
    [
      'only clauses of groups --only left out, and a clause partly exercised by the groups it kept',
      {
        checks: [check('pagination.walk')],
        coverage: {
          notVerified: [open('S3-ENDPOINT', 's3.endpoint', 'add s3 to --only')],
          partlyVerified: ['VERSION-PATH-PREFIX'],
        },
      },
      0,
    ],
    [
      'a clause that is not blocking',
      {
        checks: [check('vms.quota')],
        coverage: {
          notVerified: [open('ERROR-QUOTA-EXCEEDED', 'vms.quota', 'an organization closer to its quota', false)],
        },
      },
      0,
    ],
    [
      'a clause an empty setting left unverified',
      {
        checks: [check('vms.create')],
        coverage: {
          notVerified: [open('VM-CREATE', 'vms.create', '--image NAME --subnet-id ID (values valid on the target)')],
        },
      },
      3,
      /^ {2}VM-CREATE {2}vms\.create: skipped; to verify: --image NAME --subnet-id ID/m,
    ],
    [
      'a clause partly exercised by a run of every group',
      {
        checks: [check('auth.token-shape')],
        coverage: {
          notVerified: [],
          partlyVerified: ['AUTH-TOKEN-SIGNED'],
          domains: [missing('AUTH-TOKEN-SIGNED', 'set --api-key-b')],
        },
      },
      3,
      /^ {2}AUTH-TOKEN-SIGNED {2}partly verified/m,
    ],
    [
      'a clause partly exercised, whose missing part only a longer profile exercises (pairs of classes in certify)',
      {
        checks: [check('vms.tag-filter')],
        coverage: {
          notVerified: [],
          partlyVerified: ['TAG-FILTER'],
          domains: [missing('TAG-FILTER', '--profile certify')],
        },
      },
      0,
    ],
  ];
  for (const [what, fields, exit, said] of cases)
    for (const template of ['github-actions', 'gitlab-ci']) {
      it(`${template}: ${what} → exit ${exit}`, async () => {
        const report = await writeReport({ profile: 'quick', ...fields });
        const env = { ...key, CC_FAKE_RUN: fakeRun(0, report) };
        const cwd = checkout('complete');
        const r =
          template === 'github-actions'
            ? (await runGithub({ event: 'push', secrets: key }, makeStubs(), cwd, env)).steps['conformance']!
            : await runGitlab({ source: 'push', jobName: 'conformance', variables: env }, makeStubs(), cwd);
        expect(r.code, r.stderr).toBe(exit);
        if (said) expect(r.stderr).toMatch(said);
        if (exit)
          expect(r.stderr).toMatch(/^incomplete: 1 MUST clauses the quick profile can verify were not verified:$/m);
      });
    }
});

/** A minimal JSON report for the stub's runs: what the comparison reads. */
async function writeReport(fields: Record<string, unknown>): Promise<string> {
  const file = path.join(checkout('report'), 'report.json');
  writeFileSync(file, JSON.stringify({ checks: [], coverage: { verified: [], notVerified: [] }, ...fields }));
  return file;
}

// Each template's shell against the reference target through the real CLI: the exit code is the gate, the reports are
// where the artifact step looks for them.
describe.concurrent('each template runs against the reference target', () => {
  type Runner = (s: Record<string, string>, cwd: string, stubs: Stubs, args?: string) => Promise<Shell>;
  const runners: Array<[string, Runner]> = [
    [
      'github-actions',
      async (s, cwd, stubs, args = FAST) => {
        const { CONFORMANCE_IMAGE, CONFORMANCE_SUBNET_ID, ...secrets } = s;
        const vars = {
          CONFORMANCE_ARGS: args,
          CONFORMANCE_IMAGE: CONFORMANCE_IMAGE ?? '',
          CONFORMANCE_SUBNET_ID: CONFORMANCE_SUBNET_ID ?? '',
        };
        const r = await runGithub({ event: 'pull_request', secrets, vars }, stubs, cwd);
        return r.steps['conformance']!;
      },
    ],
    [
      'gitlab-ci',
      (s, cwd, stubs, args = FAST) =>
        runGitlab(
          { source: 'merge_request_event', jobName: 'conformance', variables: { ...s, CONFORMANCE_ARGS: args } },
          stubs,
          cwd
        ),
    ],
  ];
  for (const [name, run] of runners) {
    it(`${name}: conformant → exit 0, every report written`, async () => {
      const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE });
      try {
        const cwd = checkout(name);
        const r = await run(settingsOf(target.settings), cwd, makeStubs());
        expect(r.code, r.stderr).toBe(0);
        for (const report of ['junit.xml', 'report.html', 'report.json'])
          expect(existsSync(path.join(cwd, 'conformance-reports', report)), report).toBe(true);
        const report = JSON.parse(readFileSync(path.join(cwd, REPORT_JSON), 'utf8'));
        expect(report.verdict).toBe('conformant');
        expect(report.profile).toBe('quick');
        expect(report.target.baseUrl).toBe(target.settings.baseUrl);
        expect(new Set(report.checks.map((c: { group: string }) => c.group))).toEqual(
          new Set(['versioning', 'pagination'])
        );
        expect(readFileSync(path.join(cwd, 'conformance-reports/junit.xml'), 'utf8')).toMatch(
          /<testsuites name="cloud-conformance" tests="\d+" failures="0"/
        );
        // The progress lines are the CI log; no key appears in it.
        expect(r.stdout).toMatch(/verdict: conformant/);
        expect(r.stdout + r.stderr).not.toContain(target.settings.apiKey);
      } finally {
        await target.close();
      }
    });

    it(`${name}: nonconformant → exit 1, the reports still written`, async () => {
      const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
      try {
        const cwd = checkout(name);
        const r = await run(settingsOf(target.settings), cwd, makeStubs());
        expect(r.code, r.stderr).toBe(1);
        expect(readFileSync(path.join(cwd, 'conformance-reports/junit.xml'), 'utf8')).toMatch(
          /name="versioning.unknown-version [^"]*"[^>]*><failure/
        );
      } finally {
        await target.close();
      }
    });

    // The trial's first push: settings left empty, the suite conformant with most clauses skipped, exit 0. The gate
    // holds a quick run to what quick can verify, so the job fails and names what would verify them.
    it(`${name}: empty image and subnet variables → the run says conformant, the job exits 3 and names them`, async () => {
      const target = await startReference({ port: 0, timeScale: TEST_TIME_SCALE });
      try {
        const cwd = checkout(name);
        const s = settingsOf(target.settings);
        const vms = `--only vms --time-scale ${TEST_TIME_SCALE} --seed 1`;
        const r = await run({ ...s, CONFORMANCE_IMAGE: '', CONFORMANCE_SUBNET_ID: '' }, cwd, makeStubs(), vms);
        expect(JSON.parse(readFileSync(path.join(cwd, REPORT_JSON), 'utf8')).verdict).toBe('conformant');
        expect(r.code, r.stdout + r.stderr).toBe(3);
        expect(r.stderr).toMatch(/^incomplete: \d+ MUST clauses the quick profile can verify were not verified:$/m);
        expect(r.stderr).toMatch(/^ {2}VM-CREATE {2}vms\.\S+: .*; to verify: --image NAME --subnet-id ID/m);
      } finally {
        await target.close();
      }
    });

    it(`${name}: without the base URL or key → exit 2 and says which, never the embedded target`, async () => {
      for (const missing of REQUIRED) {
        const s = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k'.repeat(20), [missing]: '' };
        const stubs = makeStubs();
        const r = await run(s, checkout(name), stubs);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/CONFORMANCE_BASE_URL and CONFORMANCE_API_KEY/);
        expect(stubs.npx()).toEqual([]);
      }
    });
  }
});

// A deployment that gives every setting passes the quick gate: what quick cannot verify is only what a longer profile
// would. The reference runs as `cloud-conformance reference` (its own process, with its object storage), in real time
// so the limit probes fit their windows, and the workflow hands the job every setting from secrets and variables.
describe('a deployment with every setting', () => {
  it('github-actions: passes the quick gate; the clauses left are those the full profile verifies', async () => {
    const reference = spawn(process.execPath, [BIN, 'reference'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const line = await new Promise<string>((resolve) => {
      let out = '';
      reference.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
    });
    const t = JSON.parse(line) as ReferenceSettings &
      Record<'apiKeyRevocable' | 's3Url' | 's3AccessKey' | 's3SecretKey', string>;
    try {
      const cwd = checkout('github-complete');
      const secrets = {
        ...settingsOf(t),
        CONFORMANCE_API_KEY_REVOCABLE: t.apiKeyRevocable,
        CONFORMANCE_S3_URL: t.s3Url,
        CONFORMANCE_S3_ACCESS_KEY: t.s3AccessKey,
        CONFORMANCE_S3_SECRET_KEY: t.s3SecretKey,
      };
      const vars = {
        CONFORMANCE_IMAGE: t.image,
        CONFORMANCE_SUBNET_ID: t.subnetId,
        CONFORMANCE_SUBNET_ID_B: t.subnetIdB,
        CONFORMANCE_OVERLAY: path.resolve('spec/overlays/reference.yaml'),
        CONFORMANCE_ARGS: '--seed 1',
      };
      const r = await runGithub({ event: 'pull_request', secrets, vars }, makeStubs(), cwd);
      const step = r.steps['conformance']!;
      expect(step.code, step.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(cwd, REPORT_JSON), 'utf8'));
      expect(report.verdict).toBe('conformant');
      const blocking = report.coverage.notVerified.filter((n: { blocking: boolean }) => n.blocking);
      expect(blocking.length).toBeGreaterThan(0);
      for (const n of blocking) expect(n.howToVerify, n.clause).toMatch(/^--profile full/);
    } finally {
      reference.kill();
    }
  });
});

// Adopting the gate: the expectations file lets a known failure pass the job, and the job compares its report with the
// default branch's last one of the same profile, published where the CI system shows it.
describe.concurrent('each template gates on expectations and compares with the default branch', () => {
  const KNOWN =
    '- check: versioning.unknown-version\n  reason: the router serves any version prefix\n  reference: https://tracker.example/API-7\n';

  it('github-actions: a listed failure passes the job; the diff is with the last run that has a report of the same profile', async () => {
    const quick = await cleanReport();
    const certify = await cleanReport('certify');
    const stubs = makeStubs();
    const faulty = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
    try {
      const cwd = checkout('github-expect');
      writeFileSync(path.join(cwd, 'conformance-expectations.yaml'), KNOWN);
      const { CONFORMANCE_IMAGE, CONFORMANCE_SUBNET_ID, ...secrets } = settingsOf(faulty.settings);
      // The latest completed run on main was the nightly certify; the quick one before it is the baseline.
      const runs = {
        ids: [9001, 4242],
        artifacts: { '9001/conformance-reports-certify': certify, '4242/conformance-reports-quick': quick },
      };
      const r = await runGithub(
        {
          event: 'pull_request',
          secrets,
          vars: {
            CONFORMANCE_ARGS: FAST,
            CONFORMANCE_IMAGE: CONFORMANCE_IMAGE!,
            CONFORMANCE_SUBNET_ID: CONFORMANCE_SUBNET_ID!,
          },
        },
        stubs,
        cwd,
        { CC_GH_RUNS: JSON.stringify(runs) }
      );
      expect(r.failed, JSON.stringify(r.steps, null, 1)).toBe(false);
      const report = JSON.parse(readFileSync(path.join(cwd, REPORT_JSON), 'utf8'));
      expect(report.verdict).toBe('nonconformant');
      expect(report.expectations.expected).toEqual(['versioning.unknown-version']);
      expect(stubs.gh()).toEqual([
        'run list --workflow conformance --branch main --status completed --limit 20 --json databaseId --jq .[].databaseId',
        'run download 9001 --name conformance-reports-quick --dir previous-run',
        'run download 4242 --name conformance-reports-quick --dir previous-run',
      ]);
      expect(r.steps['diff']!.stdout).toContain('comparing with the quick report of run 4242 on main');
      expect(r.summary).toContain('| `versioning.unknown-version` | passed | failed |');
      expect(readFileSync(path.join(cwd, DIFF_MD), 'utf8')).toContain('### Conformance: ❌ regression');
      expect(r.steps['diff']!.stdout).toContain(
        'checks newly failing (1):\n  versioning.unknown-version  passed → failed'
      );
      expect(r.artifact).toEqual({
        name: 'conformance-reports-quick',
        files: [`conformance-reports/junit.xml`, 'conformance-reports/report.html', REPORT_JSON, DIFF_MD],
      });
      // The first run on a branch, and a scheduled run (its event names no repository: the ref is the default branch).
      const first = checkout('github-first');
      const s = await runGithub({ event: 'schedule', secrets: {} }, makeStubs(), first, {});
      expect(s.steps['diff']!.stdout).toContain('no report from this run');
      const stepEnv = {
        GITHUB_STEP_SUMMARY: path.join(first, 'summary.md'),
        GH_TOKEN: 'x',
        GH_REPO: 'acme/deployment',
        WORKFLOW: 'conformance',
        DEFAULT_BRANCH: 'main',
        PROFILE: 'certify',
        PATH: `${stubs.dir}:${process.env['PATH']}`,
      };
      const none = await bash(
        `mkdir -p conformance-reports && cp ${JSON.stringify(quick)} conformance-reports/\n${githubStep('diff').run}`,
        stepEnv,
        first
      );
      expect(none.code, none.stderr).toBe(0);
      expect(none.stdout).toContain('No earlier certify conformance report on main to compare with.');
      expect(githubStep('diff').env!['DEFAULT_BRANCH']).toBe(
        '${{ github.event.repository.default_branch || github.ref_name }}'
      );
    } finally {
      await faulty.close();
    }
  });

  // GitLab finds the previous report by the job's name; a matrix job's name has a colon, a space and brackets, which a
  // URL cannot carry as they are (curl: "bad range" on the brackets): the name must reach the API encoded, and whole.
  for (const jobName of [...gitlabJobNames('conformance', gitlabJob()), 'conformance: [20]']) {
    it(`gitlab-ci, job "${jobName}": a listed failure passes the job; the diff is kept, logged, and posted to the merge request`, async () => {
      const previous = readFileSync(await cleanReport());
      const api = await gitlabApi({ [`main ${jobName} conformance-reports/report.json`]: previous });
      const faulty = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
      try {
        const cwd = checkout('gitlab-expect');
        writeFileSync(path.join(cwd, 'conformance-expectations.yaml'), KNOWN);
        const variables = {
          ...settingsOf(faulty.settings),
          CONFORMANCE_ARGS: FAST,
          CONFORMANCE_GITLAB_TOKEN: 'glpat-stub',
        };
        const r = await runGitlab(
          { source: 'merge_request_event', jobName, api: api.url, variables },
          makeStubs(),
          cwd
        );
        expect(r.code, r.stderr + r.stdout).toBe(0);
        expect(JSON.parse(readFileSync(path.join(cwd, REPORT_JSON), 'utf8')).verdict).toBe('nonconformant');
        expect(readFileSync(path.join(cwd, DIFF_MD), 'utf8')).toContain(
          '| `versioning.unknown-version` | passed | failed |'
        );
        expect(r.stdout).toContain('checks newly failing (1):\n  versioning.unknown-version  passed → failed');
        expect(api.seen.map((s) => `${s.method} ${s.job} ${s.token}`)).toEqual([
          `GET ${jobName} job-token-stub`,
          'POST null glpat-stub',
        ]);
        // What went over the wire is a URL: the fixed artifact path, the name form-encoded in the query (no space, no
        // bracket), which GitLab decodes as the server above does.
        const [pathname, query] = api.seen[0]!.url.split('?');
        expect(pathname).toBe('/api/v4/projects/42/jobs/artifacts/main/raw/conformance-reports/report.json');
        expect(query).toMatch(/^job=[A-Za-z0-9%+._~-]+$/);
        expect(JSON.parse(api.seen[1]!.body).body).toContain('### Conformance: ❌ regression');
        expect(r.stderr).not.toMatch(/curl: \(\d+\)/);
        // The name as it was put in the URL before: curl refuses it (a bracket opens a glob range; a space is no URL).
        if (jobName.includes('['))
          expect(
            (
              await bash(
                `curl --silent --show-error "${api.url}/x?job=${jobName}"`,
                { PATH: process.env['PATH']! },
                cwd
              )
            ).stderr
          ).toMatch(/^curl: \(3\)/);
      } finally {
        await faulty.close();
        await api.close();
      }
    });
  }

  it("gitlab-ci: a baseline of another profile, none yet, or an API that refuses: said, not compared, the outcome is the run's", async () => {
    const certify = readFileSync(await cleanReport('certify'));
    const quick = await cleanReport();
    const key = {
      CONFORMANCE_BASE_URL: 'http://127.0.0.1:9',
      CONFORMANCE_API_KEY: 'k'.repeat(20),
      CC_FAKE_RUN: fakeRun(0, quick),
    };
    const file = 'conformance-reports/report.json';
    const cases: Array<{
      artifacts: Record<string, Buffer>;
      status?: number;
      branch?: string;
      said: RegExp;
      compared: boolean;
    }> = [
      {
        artifacts: { [`main conformance ${file}`]: certify },
        said: /is of profile certify, this run's is quick: not compared/,
        compared: false,
      },
      { artifacts: {}, said: /No earlier report of job "conformance" on main to compare with/, compared: false },
      {
        artifacts: {},
        status: 403,
        said: /could not fetch the last report of job "conformance" on main \(HTTP status or error: 403\): not compared/,
        compared: false,
      },
      // A default branch whose name has a slash reaches the API whole.
      {
        artifacts: { [`team/main conformance ${file}`]: readFileSync(quick) },
        branch: 'team/main',
        said: /^no regression: verdict conformant → conformant; no check or clause changed$/m,
        compared: true,
      },
    ];
    for (const c of cases) {
      const api = await gitlabApi(c.artifacts, c.status);
      try {
        const cwd = checkout('gitlab-baseline');
        const variables = { ...key, ...(c.branch ? { CI_DEFAULT_BRANCH: c.branch } : {}) };
        const r = await runGitlab(
          { source: 'merge_request_event', jobName: 'conformance', api: api.url, variables },
          makeStubs(),
          cwd
        );
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout + r.stderr).toMatch(c.said);
        expect(existsSync(path.join(cwd, DIFF_MD))).toBe(c.compared);
      } finally {
        await api.close();
      }
    }
  });

  it('gitlab-ci: a failure the expectations file does not list fails the job, after the diff', async () => {
    const previous = readFileSync(await cleanReport());
    const api = await gitlabApi({ 'main conformance conformance-reports/report.json': previous });
    const faulty = await startReference({ port: 0, timeScale: TEST_TIME_SCALE, faults: ['any-version-served'] });
    try {
      const cwd = checkout('gitlab-unlisted');
      writeFileSync(
        path.join(cwd, 'conformance-expectations.yaml'),
        '- check: pagination.walk\n  reason: another one\n'
      );
      const variables = { ...settingsOf(faulty.settings), CONFORMANCE_ARGS: FAST };
      const r = await runGitlab({ source: 'push', jobName: 'conformance', api: api.url, variables }, makeStubs(), cwd);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('checks newly failing (1)');
    } finally {
      await faulty.close();
      await api.close();
    }
  });
});

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
