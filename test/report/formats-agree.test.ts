// One report model rendered in all four formats (terminal, JSON, JUnit, HTML): each says the same findings, at the same
// levels, with the same counts. The model is built by hand through the engine's own functions (no suite run), with
// every case a format could decide differently: a failAt('declared') inside a must check, a failure carrying a should
// finding beside it, a warning, an expected failure, a failed clause, and clauses not verified by several checks.
import { describe, expect, it } from 'vitest';
import type { Check, CheckOutcome } from '../../src/engine/run/check.ts';
import { fail, failAt, finding, judge, pass, skip, warn } from '../../src/engine/run/check.ts';
import { computeCoverage } from '../../src/engine/run/coverage.ts';
import {
  clauseCounts,
  levelShown,
  overviewOf,
  summarize,
  verdictOf,
  type RunReport,
} from '../../src/engine/run/report.ts';
import { toReport } from '../../src/engine/run/runner.ts';
import type { ClauseList } from '../../src/spec/clauses.ts';
import { renderHtml } from '../../src/report/html.ts';
import { renderJson } from '../../src/report/json.ts';
import { renderJunit } from '../../src/report/junit.ts';
import { checkLine, summaryLines } from '../../src/report/terminal.ts';
import { applyExpectations } from '../../src/cli/expect.ts';
import { probeStats, trafficStats } from '../../src/engine/limits/stats.ts';
import type { LimitProbe } from '../../src/engine/limits/limit-probes.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { all, parseXml } from './xml.ts';

const check = (id: string, clauses: string[], level: Check['level'] = 'must'): Check => ({
  id,
  group: id.split('.')[0]!,
  clauses,
  level,
  why: { [level]: 'test' },
  title: `title of ${id}`,
  run: async () => pass('ok'),
});

const clauses: ClauseList = {
  seed: 'seed',
  clauses: ['A', 'B', 'C', 'D', 'S3-PUT', 'S3-GET'].map((id) => ({ id, section: '1', text: `clause ${id}` })),
  unshown: [],
};

const cases: Array<[Check, CheckOutcome]> = [
  [check('vms.create', ['A']), pass('created')],
  // A declared assertion inside a must check: declared everywhere, never must.
  [check('vms.task-link', ['B']), failAt('declared', 'the declared task link is missing', [])],
  // A must failure with a convention finding beside it: the secondary finding travels in every format.
  [
    check('errors.malformed', ['C']),
    judge([finding('must', '500 on a body that is not JSON'), finding('should', 'no problem+json type')], 'fine'),
  ],
  [check('errors.content-type', ['C'], 'should'), warn('answered text/plain to a JSON request', [])],
  [check('auth.expired', ['D']), fail('an expired token was accepted', [])],
  [check('s3.put', ['S3-PUT', 'S3-GET']), skip('no S3 endpoint', '--s3-url URL')],
  [check('s3.get', ['S3-PUT', 'S3-GET']), skip('no S3 endpoint', '--s3-url URL')],
];

/** A read probe of three requests, the last refused with Retry-After, its budget back after it. */
const ex = (status: number, atMs: number, headers: Record<string, string> = {}) =>
  ({
    startedAt: new Date(Date.UTC(2026, 0, 1) + atMs).toISOString(),
    durationMs: 20,
    request: { method: 'GET', url: 'http://t/v1/vms', headers: {} },
    response: { status, headers, body: '' },
  }) as Exchange;
const readBurst = () => [ex(200, 0), ex(200, 1), ex(429, 2, { 'retry-after': '30' })];

function readProbe(): LimitProbe {
  const burst = readBurst();
  return {
    limit: 2,
    what: 'reads',
    verdict: { kind: 'exact' },
    bursts: [{ exchanges: burst, accepted: 2, rejections: [burst[2]!], others: [], spanMs: 22 }],
    reset: { rejection: burst[2]!, retryAfter: 30, afterRetryAfter: ex(200, 522), backAfter: 'retry-after' },
  } as LimitProbe;
}

function model(): RunReport {
  const checks = cases.map(([c]) => c);
  const reports = cases.map(([c, o]) => toReport(c, o, 5, 1));
  const coverage = computeCoverage(clauses, checks, reports, { overlay: false });
  coverage.counts = clauseCounts(coverage);
  const report = {
    tool: { name: 'cloud-api-conformance', version: '0.0.0' },
    target: { baseUrl: 'http://127.0.0.1:1', embedded: false },
    profile: 'quick',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    verdict: verdictOf(reports, { incompleteCoverage: true, requireComplete: false }),
    summary: summarize(reports),
    coverage,
    checks: reports,
    seed: 1,
    timeScale: 1,
    observations: {},
    ledger: { entries: [], leftBehind: [] },
    traffic: { requests: 7, writes: 1, tokensIssued: {}, pacedWaitMs: 0 },
    safety: { readOnly: false, insecure: false },
    reproduce: 'cloud-conformance run --profile quick',
    limitProbes: [
      {
        what: 'reads',
        limit: 2,
        verdict: 'exact',
        points: [{ tMs: 0, outcome: 'accepted' }],
        stats: probeStats(readProbe(), 60),
      },
    ],
    limitChecks: [{ check: 'limits.window-resets', stats: trafficStats('limits.window-resets', readBurst(), 60) }],
  } as RunReport;
  // The auth failure is listed in an expectations file: expected in every format, the verdict unchanged.
  return applyExpectations(report, 'expect.yaml', [{ check: 'auth.expired', reason: 'known', line: 1 }], false).report;
}

/** What one format says: each failing or warning check at its level, its secondary findings, and the counts. */
interface Said {
  levels: Record<string, string>;
  secondary: Record<string, string[]>;
  expected: string[];
  clauseWords: string;
  expectedWords: string;
  summary: string;
}

const unique = (xs: string[]) => [...new Set(xs)].sort();

function fromModel(r: RunReport): Said {
  const o = overviewOf(r);
  return {
    levels: Object.fromEntries(o.findings.map((f) => [f.check, f.level])),
    secondary: Object.fromEntries(
      r.checks
        .filter((c) => c.findings && c.findings.length > 1)
        .map((c) => [c.id, c.findings!.slice(1).map((f) => f.level)])
    ),
    expected: unique(o.findings.filter((f) => f.expected).map((f) => f.check)),
    clauseWords: o.clauses!.words,
    expectedWords: o.expected!,
    summary: `${r.summary.passed}/${r.summary.failed}/${r.summary.warnings}/${r.summary.skipped}`,
  };
}

function fromJson(text: string): Said {
  const r = JSON.parse(text) as RunReport;
  const failing = r.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  return {
    levels: Object.fromEntries(failing.map((c) => [c.id, c.failedAt!])),
    secondary: Object.fromEntries(
      failing.filter((c) => (c.findings?.length ?? 0) > 1).map((c) => [c.id, c.findings!.slice(1).map((f) => f.level)])
    ),
    expected: unique(failing.filter((c) => c.expected).map((c) => c.id)),
    clauseWords: r.coverage!.counts!.words,
    expectedWords: overviewOf(r).expected!,
    summary: `${r.summary.passed}/${r.summary.failed}/${r.summary.warnings}/${r.summary.skipped}`,
  };
}

function fromTerminal(r: RunReport): Said {
  const lines = [...r.checks.map(checkLine), ...summaryLines(r)];
  const levels: Record<string, string> = {};
  for (const l of lines) {
    const m = /^(FAIL|WARN) {2}(\S+) +(\S+) /.exec(l);
    if (m) levels[m[2]!] = m[3]!;
  }
  const secondary: Record<string, string[]> = {};
  let current = '';
  const expected: string[] = [];
  for (const l of lines) {
    const head = /^FAIL (\S+) \[(\S+)\]/.exec(l);
    if (head) {
      current = head[1]!;
      expect(head[2], `${current}: its FAIL line and its check line say one level`).toBe(levels[current]);
      if (l.includes(' EXPECTED')) expected.push(current);
    }
    const also = /^ {2}also \[(\S+)\]: /.exec(l);
    if (also) (secondary[current] ??= []).push(also[1]!);
  }
  const verdict = lines.find((l) => l.startsWith('verdict: '))!;
  const [, p, f, w, s] = /\((\d+) passed, (\d+) failed, (\d+) warnings, (\d+) skipped/.exec(verdict)!;
  return {
    levels,
    secondary,
    expected: unique(expected),
    clauseWords: /^(\d+ of \d+ clauses verified.*?)(;|$)/.exec(lines.find((l) => /^\d+ of \d+ clauses /.test(l))!)![1]!,
    expectedWords: lines.find((l) => l.startsWith('expectations: '))!.slice('expectations: '.length),
    summary: `${p}/${f}/${w}/${s}`,
  };
}

function fromJunit(xml: string): Said {
  const doc = parseXml(xml);
  const levels: Record<string, string> = {};
  const secondary: Record<string, string[]> = {};
  const expected: string[] = [];
  const counts = { passed: 0, failed: 0, warnings: 0, skipped: 0 };
  for (const tc of all(doc, 'testcase')) {
    const id = tc.attrs['name']!.split(' ')[0]!;
    const failure = tc.children.find((c) => c.name === 'failure');
    const skipped = tc.children.find((c) => c.name === 'skipped');
    const out = tc.children.find((c) => c.name === 'system-out')?.text ?? '';
    if (failure) {
      levels[id] = failure.attrs['type']!;
      const body = JSON.parse(failure.text) as { findings?: Array<{ level: string }> };
      if ((body.findings?.length ?? 0) > 1) secondary[id] = body.findings!.slice(1).map((f) => f.level);
      counts.failed++;
    } else if (skipped?.attrs['message']!.startsWith('expected')) {
      levels[id] = /FAILED \((\S+)\)/.exec(skipped.attrs['message']!)![1]!;
      expected.push(id);
      counts.failed++;
    } else if (skipped) counts.skipped++;
    else if (out.startsWith('WARNING (')) {
      levels[id] = /^WARNING \((\S+)\)/.exec(out)![1]!;
      counts.warnings++;
    } else counts.passed++;
  }
  const prop = (name: string) => all(doc, 'property').find((p) => p.attrs['name'] === name)!.attrs['value']!;
  return {
    levels,
    secondary,
    expected: unique(expected),
    clauseWords: prop('clauses'),
    expectedWords: prop('expectations'),
    summary: `${counts.passed}/${counts.failed}/${counts.warnings}/${counts.skipped}`,
  };
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function fromHtml(html: string): Said {
  const levels: Record<string, string> = {};
  const expected: string[] = [];
  // The opening list: one line per failure and warning.
  for (const m of html.matchAll(/<li data-check="([^"]+)" data-level="([^"]+)">(.*?)<\/li>/g)) {
    levels[m[1]!] = m[2]!;
    if (m[3]!.includes('>expected</span>')) expected.push(m[1]!);
  }
  // Each finding in full says the same level in its badge, and carries its secondary findings.
  const secondary: Record<string, string[]> = {};
  for (const m of html.matchAll(/<article class="finding [a-z]+" id="f-([^"]+)">([^]*?)<\/article>/g)) {
    const badge = /<span class="badge [a-z]+">(?:failed|warning) \(([a-z]+)\)<\/span>/.exec(m[2]!)![1]!;
    expect(badge, `${m[1]}: its line at the top and its finding say one level`).toBe(levels[m[1]!]);
    const more = [...m[2]!.matchAll(/<div class="secondary" data-level="([a-z]+)">/g)].map((x) => x[1]!);
    if (more.length) secondary[m[1]!] = more;
  }
  const verdict = text(/<section class="verdict[^]*?<\/section>/.exec(html)![0]);
  const n = (what: string) => new RegExp(`(\\d+) ${what}`).exec(verdict)![1]!;
  const clauseWords = /<div class="clauses">([^<]*)<\/div>/.exec(html)![1]!;
  // The same words wherever the HTML counts clauses.
  expect(text(/<nav class="toc">[^]*?<\/nav>/.exec(html)![0])).toContain(text(clauseWords));
  expect(text(/<section class="banner not-verified"[^]*?<\/strong>/.exec(html)![0])).toContain(text(clauseWords));
  expect(text(/<p class="clause-summary">[^]*?<\/p>/.exec(html)![0])).toContain(text(clauseWords));
  return {
    levels,
    secondary,
    expected: unique(expected),
    clauseWords: text(clauseWords),
    expectedWords: text(/<p class="expected-line"><strong>([^<]*)<\/strong>/.exec(html)![1]!),
    summary: `${n('passed')}/${n('failed')}/${n('warnings')}/${n('skipped')}`,
  };
}

describe('one report model, four formats', () => {
  const report = model();
  const said = fromModel(report);

  it('the model itself: the declared failure inside a must check is declared, the clause it failed is not verified', () => {
    expect(said.levels).toEqual({
      'vms.task-link': 'declared',
      'errors.malformed': 'must',
      'auth.expired': 'must',
      'errors.content-type': 'should',
    });
    expect(report.checks.find((c) => c.id === 'vms.task-link')).toMatchObject({ level: 'must', failedAt: 'declared' });
    expect(levelShown(report.checks.find((c) => c.id === 'vms.task-link')!)).toBe('declared');
    expect(said.secondary).toEqual({ 'errors.malformed': ['should'] });
    expect(said.expected).toEqual(['auth.expired']);
    expect(report.coverage!.failed!.sort()).toEqual(['B', 'C', 'D']);
    expect(report.coverage!.counts).toMatchObject({ total: 6, verified: 1, failed: 3, notVerified: 2 });
    expect(said.expectedWords).toBe(
      '1 of 3 failures expected, 2 not: vms.task-link, errors.malformed; 0 of 1 warning expected, 1 not: errors.content-type (expectations: expect.yaml)'
    );
  });

  it.each([
    ['terminal', () => fromTerminal(report)],
    ['JSON', () => fromJson(renderJson(report))],
    ['JUnit', () => fromJunit(renderJunit(report))],
    ['HTML', () => fromHtml(renderHtml(report, clauses))],
  ])('%s says the same findings, levels and counts as the model', (_, read) => {
    expect(read()).toEqual(said);
  });

  it('says "all N failures expected" when the file lists every failure', () => {
    const judged = model();
    const before = JSON.stringify(judged);
    const { report: listed, exitCode } = applyExpectations(
      judged,
      'expect.yaml',
      judged.checks.filter((c) => c.status === 'failed').map((c, i) => ({ check: c.id, line: i + 1 })),
      false
    );
    // A new report: the one it was given is as it was.
    expect(JSON.stringify(judged)).toBe(before);
    // Every failure expected: 0 (the clauses not verified count only under --require-complete).
    expect(exitCode).toBe(0);
    expect(overviewOf(listed).expected).toBe(
      'all 3 failures expected; 0 of 1 warning expected, 1 not: errors.content-type (expectations: expect.yaml)'
    );
    expect(renderHtml(listed, clauses)).toContain('all 3 failures expected');
    expect(summaryLines(listed)).toContain(`expectations: ${overviewOf(listed).expected}`);
  });

  it('says each limit probe in the same words, every duration in target seconds, in the terminal, JSON and HTML', () => {
    const words = report.limitProbes!.map((p) => p.stats!.words);
    expect(words).toEqual([
      'reads: requests sent 4; answered 429 1 (25%); latency, target s p50 1.2, p95 1.2, max 1.2; Retry-After received, target s 30 (1 answer); waits after a refusal, target s 30 after Retry-After: served (time scale 60)',
    ]);
    const lines = summaryLines(report);
    const at = lines.indexOf('limit probes (every duration in target seconds):');
    expect(lines.slice(at + 1, at + 1 + words.length)).toEqual(words.map((w) => `  ${w}`));
    const json = JSON.parse(renderJson(report)) as RunReport;
    expect(json.limitProbes!.map((p) => p.stats!.words)).toEqual(words);
    const html = renderHtml(report, clauses);
    expect([...html.matchAll(/<table class="probe-stats" data-words="([^"]*)">/g)].map((m) => text(m[1]!))).toEqual(
      words
    );
    const rows = [...html.matchAll(/<tr><th>([^<]*)<\/th><td>([^<]*)<\/td><\/tr>/g)].map((m) => [
      text(m[1]!),
      text(m[2]!),
    ]);
    expect(rows).toEqual(report.limitProbes![0]!.stats!.parts);
  });

  it("says each limit check's own requests in the same words in the terminal, JSON and HTML", () => {
    const words = report.limitChecks!.map((c) => c.stats.words);
    expect(words).toEqual([
      'limits.window-resets: requests sent 3; answered 429 1 (33.3%); latency, target s p50 1.2, p95 1.2, max 1.2; Retry-After received, target s 30 (1 answer); waits after a refusal, target s none watched (time scale 60)',
    ]);
    const lines = summaryLines(report);
    const at = lines.indexOf("limit checks, each one's own requests (target seconds):");
    expect(lines.slice(at + 1, at + 1 + words.length)).toEqual(words.map((w) => `  ${w}`));
    expect((JSON.parse(renderJson(report)) as RunReport).limitChecks!.map((c) => c.stats.words)).toEqual(words);
    const html = renderHtml(report, clauses);
    expect([...html.matchAll(/<tr data-limit-check="[^"]*" data-words="([^"]*)">/g)].map((m) => text(m[1]!))).toEqual(
      words
    );
  });

  it('lists each clause not verified once in the HTML and the terminal, whatever number of checks left it open', () => {
    const html = renderHtml(report, clauses);
    const listed = [...html.matchAll(/<li data-clause="([^"]+)">/g)].map((m) => m[1]!);
    expect(listed.sort()).toEqual(['S3-GET', 'S3-PUT']);
    const lines = summaryLines(report).filter((l) => /^ {2}S3-/.test(l));
    expect(lines).toEqual([
      expect.stringMatching(/^ {2}S3-PUT +s3\.put, s3\.get: no S3 endpoint$/),
      expect.stringMatching(/^ {2}S3-GET +s3\.put, s3\.get: no S3 endpoint$/),
    ]);
  });
});
