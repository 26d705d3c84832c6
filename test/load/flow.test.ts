// The k6 scripts' glue (load/lib/flow.js) against the reference target, through the Io that k6common.js binds to
// k6: the same code, with only the calls into k6/* replaced. Requests are synchronous, as in k6.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PAGINATION_SCENARIO,
  RATE_LIMIT_SCENARIOS,
  paginate,
  paginationOptions,
  probeIteration,
  probeSpec,
  probeStarts,
  rateLimitOptions,
  rateLimitResults,
  reportChecks,
  setupGuard,
  setupTokens,
  bearer,
  summarize,
  type Io,
  type ProbeSpec,
  type SetupData,
} from '../../load/lib/flow.js';
import { judgeProbe, judgeScope, type WindowCounts } from '../../src/engine/documented-limits/verdicts.js';
import { probePlan } from '../../src/engine/documented-limits/windows.js';
import {
  LATENCY_PERCENTILES,
  SETUP_INCOMPLETE,
  checkResultsFromK6,
  parseSegment,
  readConfig,
  trafficMetricNames,
  windowMetricNames,
  type LoadConfig,
} from '../../load/lib/decisions.js';
import type { LoadSummary } from '../../load/lib/report.js';
import { k6RootGroup, k6SummaryMetrics, type K6Sample } from './support/k6-summary.ts';
import { startSyncReference, sleepUntil, type Recorded, type SyncReference } from './support/sync-reference.ts';
import { FixedWindowLimiter } from '../../fixtures/reference/limits.ts';
import type { VirtualClock } from '../../fixtures/reference/clock.ts';

function configFor(ref: SyncReference, extra: Record<string, string> = {}): LoadConfig {
  return readConfig({
    CONFORMANCE_BASE_URL: ref.settings.baseUrl,
    CONFORMANCE_API_KEY: ref.settings.apiKey,
    CONFORMANCE_API_KEY_B: ref.settings.apiKeyB,
    ...extra,
  });
}

// ---------------------------------------------------------------- setup(): token issuance

describe('setup() issues its tokens on a target that answers issuance 200 or 201', () => {
  for (const issuanceStatus of [undefined, 201]) {
    const label = issuanceStatus === undefined ? '200 (the reference)' : `${issuanceStatus} (a front on the reference)`;
    describe(`issuance answered ${label}`, () => {
      let ref: SyncReference;
      beforeAll(async () => {
        ref = await startSyncReference({ issuanceStatus });
      });
      afterAll(() => ref.close());

      it('rate-limits.js setup: one token per probe, each one works', () => {
        const cfg = configFor(ref);
        const { io, recorded } = ref.io();
        const data = setupTokens(io, cfg, ['reads', 'writes'], { enforceSegments: true });
        expect(Object.keys(data.tokens)).toEqual(['reads', 'writes']);
        expect(data.tokens['reads']).not.toBe(data.tokens['writes']);
        const issued = recorded.requests.filter((r) => r.url.endsWith('/v1/auth/tokens'));
        expect(issued.map((r) => r.status)).toEqual([issuanceStatus ?? 200, issuanceStatus ?? 200]);
        for (const purpose of ['reads', 'writes']) {
          const answer = io.request({
            method: 'GET',
            url: `${cfg.baseUrl}/v1/vms?per_page=1`,
            body: null,
            headers: bearer(io, data, purpose),
            tags: {},
            timeout: '10s',
            readBody: false,
            expect: 'ok',
          });
          expect(answer.status).toBe(200);
        }
        expect(recorded.aborted).toEqual([]);
      });

      it('pagination.js runs to its checks', () => {
        const cfg = configFor(ref);
        const { io } = ref.io();
        const data = setupTokens(io, cfg, ['pagination'], { enforceSegments: false });
        const results = paginate(io, cfg, bearer(io, data, 'pagination'));
        expect(results.map((r) => [r.id, r.status])).toEqual([
          ['pagination.per-page-100', 'passed'],
          ['pagination.per-page-101', 'passed'],
          ['pagination.per-page-1000', 'passed'],
          ['pagination.walk', 'passed'],
          ['pagination.total', 'passed'],
        ]);
      });
    });
  }

  describe('what setup() refuses', () => {
    let ref: SyncReference;
    beforeAll(async () => {
      ref = await startSyncReference();
    });
    afterAll(() => ref.close());

    it('a wrong API key: one line naming the status, never the key', () => {
      const cfg = readConfig({ CONFORMANCE_BASE_URL: ref.settings.baseUrl, CONFORMANCE_API_KEY: 'ck_not-a-key' });
      const { io } = ref.io();
      expect(() => setupTokens(io, cfg, ['reads'], { enforceSegments: false })).toThrow(
        /^token issuance for reads failed with status 401$/
      );
    });

    it('a segment that does not match CONFORMANCE_SEGMENTS aborts before any token is issued', () => {
      const cfg = configFor(ref);
      const { io, recorded } = ref.io({ segment: '1/3:2/3', sequence: '0,1/3,2/3,1' });
      expect(() => setupTokens(io, cfg, ['reads'], { enforceSegments: true })).toThrow(
        /CONFORMANCE_SEGMENTS=1 expects 1 equal segments/
      );
      expect(recorded.aborted).toHaveLength(1);
      expect(recorded.requests).toEqual([]);
    });

    it('a VU refuses setup data made for another segment, and checks only once', () => {
      const cfg = configFor(ref, { CONFORMANCE_SEGMENTS: '3' });
      const mine = { segment: '1/3:2/3', sequence: '0,1/3,2/3,1' };
      const data = setupTokens(ref.io(mine).io, cfg, ['reads'], { enforceSegments: true });
      expect(data.segment).toMatchObject({ index: 1, count: 3 });
      const same = ref.io(mine);
      expect(setupGuard(same.io)(data)).toBe(data);
      const other = ref.io({ segment: '0:1/3', sequence: '0,1/3,2/3,1' });
      expect(() => setupGuard(other.io)(data)).toThrow(
        /made for execution segment 1\/3:2\/3 but this instance runs 0:1\/3/
      );
    });
  });
});

// ---------------------------------------------------------------- pagination.js

describe('pagination against the reference target', () => {
  const refs: SyncReference[] = [];
  afterAll(() => Promise.all(refs.map((r) => r.close())));
  async function run(
    opts: { faults?: string[]; key?: 'apiKey' | 'apiKeyB' } = {}
  ): Promise<{ results: ReturnType<typeof paginate>; recorded: Recorded }> {
    const ref = await startSyncReference({ faults: opts.faults });
    refs.push(ref);
    const cfg = readConfig({
      CONFORMANCE_BASE_URL: ref.settings.baseUrl,
      CONFORMANCE_API_KEY: ref.settings[opts.key ?? 'apiKey'],
    });
    const { io, recorded } = ref.io();
    const data = setupTokens(io, cfg, ['pagination'], { enforceSegments: false });
    const results = paginate(io, cfg, bearer(io, data, 'pagination'));
    reportChecks(io, results);
    return { results, recorded };
  }
  const statusOf = (results: ReturnType<typeof paginate>) => Object.fromEntries(results.map((r) => [r.id, r.status]));

  it('a list of 3 (org B): walk and total are inconclusive and say what the list needs; a refusal above 100 still passes', async () => {
    const { results, recorded } = await run({ key: 'apiKeyB' });
    expect(statusOf(results)).toEqual({
      'pagination.per-page-100': 'passed',
      'pagination.per-page-101': 'passed', // the reference refuses per_page above 100 with 400: shown on any list
      'pagination.per-page-1000': 'passed',
      'pagination.walk': 'skipped',
      'pagination.total': 'skipped',
    });
    for (const r of results.filter((x) => x.status === 'skipped'))
      expect(r.message).toMatch(/the list holds only 3 items; it needs more than 100: create 98 more VMs/);
    expect(recorded.requests.map((r) => r.url.replace(/^.*\/v1/, '/v1'))).toEqual([
      '/v1/auth/tokens',
      '/v1/vms?per_page=100&page=1',
      '/v1/vms?per_page=101',
      '/v1/vms?per_page=1000',
    ]);
  });

  it('a list of 3 on a target that honours per_page above 100: inconclusive, never a pass', async () => {
    const { results, recorded } = await run({ key: 'apiKeyB', faults: ['per-page-uncapped'] });
    expect(statusOf(results)).toEqual({
      'pagination.per-page-100': 'passed',
      'pagination.per-page-101': 'skipped',
      'pagination.per-page-1000': 'skipped',
      'pagination.walk': 'skipped',
      'pagination.total': 'skipped',
    });
    expect(results[1]!.message).toMatch(
      /per_page=101 served 3 items, which cannot be told from honouring per_page=101: the list holds only 3 items/
    );
    // The k6 checks carry the results to handleSummary: the skipped ones as not passed, and back as skipped.
    expect(recorded.checks.filter((c) => c.ok)).toHaveLength(1);
    const group = {
      name: '',
      checks: recorded.checks.map((c) => ({ name: c.name, passes: c.ok ? 1 : 0, fails: c.ok ? 0 : 1 })),
    };
    expect(checkResultsFromK6(group).map((c) => c.status)).toEqual([
      'passed',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
  });

  const faults: Array<[string, Record<string, string>]> = [
    ['per-page-uncapped', { 'pagination.per-page-101': 'failed', 'pagination.per-page-1000': 'failed' }],
    ['per-page-cap-101', { 'pagination.per-page-101': 'failed' }],
    ['per-page-cap-99', { 'pagination.per-page-100': 'failed' }],
    ['total-per-page', { 'pagination.total': 'failed' }],
    ['page-boundary-duplicate', { 'pagination.walk': 'failed' }],
  ];
  for (const [fault, failed] of faults) {
    it(`fault ${fault}: ${Object.keys(failed).join(', ')} fail on a list of 130`, async () => {
      const { results } = await run({ faults: [fault] });
      const failing = Object.fromEntries(results.filter((r) => r.status === 'failed').map((r) => [r.id, r.status]));
      expect(failing).toEqual(failed);
    });
  }
});

// ---------------------------------------------------------------- rate-limits.js: options and summary

describe('rate-limits.js scenarios', () => {
  const cfg = readConfig({
    CONFORMANCE_BASE_URL: 'http://127.0.0.1:1',
    CONFORMANCE_API_KEY: 'ck_test_primary',
    CONFORMANCE_TIME_SCALE: '10',
  });
  it('reads and writes start at once; the scope probe follows the reads on the same tokens; issuance waits a window', () => {
    const o = rateLimitOptions(cfg);
    expect(Object.keys(o.scenarios)).toEqual(['reads_over', 'writes_over', 'scope_a', 'scope_b', 'tokens_over']);
    expect(probeStarts(cfg)).toEqual({ reads: 0, writes: 0, scope: 12600, tokens: 6600 });
    expect(o.scenarios['scope_a']).toMatchObject({
      startTime: '12600ms',
      duration: '12000ms',
      rate: 360,
      timeUnit: '6000ms',
      exec: 'scopeA',
    });
    expect(o.scenarios['scope_b']).toMatchObject({ startTime: '12600ms', exec: 'scopeB' });
    expect(o.thresholds['limit_accepted{scenario:scope_b,window:1}']).toEqual(['count==300']);
    expect(o).toMatchObject({ maxRedirects: 0, discardResponseBodies: true });
  });
  it('three segments: every rate and VU count tripled', () => {
    const o = rateLimitOptions({ ...cfg, segments: 3 });
    expect(o.scenarios['reads_over']).toMatchObject({ rate: 1080, preAllocatedVUs: 96, maxVUs: 372 });
    expect(o.scenarios['tokens_over']).toMatchObject({ duration: '48000ms' });
  });
  it('the scope probe uses the read token and the write token, as reads', () => {
    const { io } = { io: fakeIo() };
    const data: SetupData = { segment: parseSegment(null, null), tokens: { reads: 'tA', writes: 'tB' } };
    expect(probeSpec(cfg, data, io, 'scopeA')).toMatchObject({
      probe: 'reads',
      label: 'scope',
      headers: { Authorization: 'Bearer tA' },
      method: 'GET',
    });
    expect(probeSpec(cfg, data, io, 'scopeB')).toMatchObject({
      probe: 'reads',
      label: 'scope',
      headers: { Authorization: 'Bearer tB' },
    });
  });
  it('handleSummary: checks from the per-window metrics, reports in k6-out/, tokens redacted', () => {
    const metrics: Record<string, { values: { count: number } }> = {};
    const put = (scenario: string, w: number, c: WindowCounts) => {
      const n = windowMetricNames(scenario, w);
      metrics[n.sent] = { values: { count: c.sent } };
      metrics[n.accepted] = { values: { count: c.accepted } };
      metrics[n.refused] = { values: { count: c.refused } };
    };
    for (const w of [0, 1]) {
      put('reads_over', w, { sent: 330, accepted: 300, refused: 30 });
      put('writes_over', w, { sent: 66, accepted: 60, refused: 6 });
      put('tokens_over', w, { sent: 12, accepted: 10, refused: 2 });
      put('scope_a', w, { sent: 330, accepted: 150, refused: 180 });
      put('scope_b', w, { sent: 330, accepted: 150, refused: 180 });
    }
    const { checks, details } = rateLimitResults(metrics, 2);
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['limits.reads', 'passed'],
      ['limits.writes', 'passed'],
      ['limits.tokens', 'passed'],
      ['limits.token-scope', 'failed'],
    ]);
    const out = summarize(
      cfg,
      'rate-limits.js',
      { metrics, setup_data: { segment: parseSegment(null, null), tokens: { reads: 'tok-aaaa', writes: 'tok-bbbb' } } },
      checks,
      details,
      RATE_LIMIT_SCENARIOS
    );
    expect(Object.keys(out).sort()).toEqual(['k6-out/junit.xml', 'k6-out/summary.json', 'stdout']);
    expect(JSON.parse(out['k6-out/summary.json']!)).toMatchObject({ verdict: 'nonconformant', segment: '0:1' });
    for (const text of Object.values(out)) expect(text).not.toMatch(/tok-aaaa|tok-bbbb/);
  });
});

function fakeIo(over: Partial<Io> = {}): Io {
  return {
    request: () => ({ status: 0, body: null, headers: {} }),
    sleep: () => undefined,
    now: () => 0,
    abort: (m) => {
      throw new Error(m);
    },
    warn: () => undefined,
    count: () => undefined,
    check: () => undefined,
    executionSegment: () => ({ segment: null, sequence: null }),
    ...over,
  };
}

// ---------------------------------------------------------------- rate-limits.js: probes

/** Per-window counts of a probe from what its Io recorded (http_reqs and the two counters, by window tag). */
function countsOf(recorded: Recorded, windows: number, label: string): WindowCounts[] {
  return Array.from({ length: windows }, (_, w) => ({
    sent: recorded.requests.filter((r) => r.tags['probe'] === label && r.tags['window'] === String(w)).length,
    accepted: recorded.counts.filter(
      (c) => c.metric === 'limit_accepted' && c.tags['probe'] === label && c.tags['window'] === String(w)
    ).length,
    refused: recorded.counts.filter(
      (c) => c.metric === 'limit_refused' && c.tags['probe'] === label && c.tags['window'] === String(w)
    ).length,
  }));
}

describe('the token-issuance probe against the live reference (time scale 30: 2 s windows)', () => {
  let ref: SyncReference;
  beforeAll(async () => {
    ref = await startSyncReference({ timeScale: 30 });
    // Warm the worker's HTTP client, so the probe's first request (which opens the target's window) is not slowed
    // by its start; an unauthenticated read touches no limit the probe measures.
    ref.io().io.request({
      method: 'GET',
      url: `${ref.settings.baseUrl}/v1/vms`,
      body: null,
      headers: {},
      tags: {},
      timeout: '10s',
      readBody: false,
      expect: 'ok',
    });
  });
  afterAll(() => ref.close());

  /** Runs the probe as k6's constant-arrival-rate executor would: one iteration per slot, except dropped ones. */
  function runProbe(dropped: (g: number) => boolean): WindowCounts[] {
    return runProbeRecorded(dropped).counts;
  }

  function runProbeRecorded(dropped: (g: number) => boolean): { counts: WindowCounts[]; recorded: Recorded } {
    const cfg = configFor(ref, { CONFORMANCE_TIME_SCALE: '30' });
    const { io, recorded } = ref.io();
    const data: SetupData = { segment: parseSegment(null, null), tokens: {} };
    const spec: ProbeSpec = probeSpec(cfg, data, io, 'tokens');
    const plan = spec.plan;
    const start = Date.now() + 20;
    for (let g = 0; g < plan.slotsPerWindow * cfg.windows; g++) {
      const at = start + g * plan.slotMs;
      sleepUntil(at);
      if (!dropped(g)) probeIteration(io, spec, Date.now() - start);
    }
    return { counts: countsOf(recorded, cfg.windows, 'tokens'), recorded };
  }

  it('a conforming target: exactly 10 issuances accepted in each window; the summary shows the share answered 429', () => {
    const { counts, recorded } = runProbeRecorded(() => false);
    const cfg = configFor(ref, { CONFORMANCE_TIME_SCALE: '30' });
    const metrics = k6SummaryMetrics(samplesOf(recorded, 'tokens_over'), rateLimitOptions(cfg));
    const traffic = summaryJson(
      summarize(
        cfg,
        'rate-limits.js',
        { metrics, setup_data: { segment: parseSegment(null, null), tokens: {} } },
        [],
        {},
        RATE_LIMIT_SCENARIOS
      )
    ).traffic!;
    const refused = counts.reduce((n, c) => n + c.refused, 0);
    const sent = counts.reduce((n, c) => n + c.sent, 0);
    // The reference refuses an issuance over the limit with 429: every refusal is one.
    expect(traffic.scenarios['tokens_over']).toMatchObject({
      requests: sent,
      status429: refused,
      share429: refused / sent,
    });
    expect(traffic.scenarios['reads_over']).toMatchObject({ requests: 0, status429: 0, share429: null });
    // 12 per window; a millisecond clock can put one idle arrival in the slot before it (13, still inside).
    for (const c of counts) {
      expect(c.sent).toBeGreaterThanOrEqual(12);
      expect(c.sent).toBeLessThanOrEqual(13);
      expect(c).toMatchObject({ accepted: 10, refused: c.sent - 10 });
    }
    expect(judgeProbe(10, counts).verdict).toBe('pass');
  });

  it('a window that was not filled: inconclusive, and so is the one after it', async () => {
    // Wait out the previous test's window of key B, then let k6 "drop" three of window 0's arrivals.
    sleepUntil(Date.now() + probePlan(10, 30).windowMs + 100);
    const counts = runProbe((g) => g >= 3 && g < 7);
    expect(counts[0]!.sent).toBeLessThanOrEqual(10);
    expect(counts[0]!.refused).toBe(0);
    const v = judgeProbe(10, counts);
    expect(v.verdict).toBe('inconclusive');
    expect(v.windows[0]!.reason).toMatch(/not filled, (8|9|10) requests sent/);
    expect(v.windows[1]!.reason).toMatch(/follows window 0, which was not filled/);
  });
});

describe('the scope probe on the reference limiter: two tokens of one key at once', () => {
  /** The reference's limiter keyed as the reference keys it under each scope, on a simulated clock. */
  function simulateScope(scope: 'token' | 'key' | 'address'): { a: WindowCounts[]; b: WindowCounts[] } {
    const cfg = readConfig({
      CONFORMANCE_BASE_URL: 'http://127.0.0.1:1',
      CONFORMANCE_API_KEY: 'k',
      CONFORMANCE_TIME_SCALE: '10',
    });
    let now = 0;
    const clock = { now: () => Math.floor(now * 10) } as unknown as VirtualClock;
    const limiter = new FixedWindowLimiter(clock, 300);
    const recorded: Recorded = { requests: [], counts: [], checks: [], warnings: [], aborted: [] };
    const io = fakeIo({
      request(req) {
        const token = req.headers['Authorization'] ?? '';
        const bucket = scope === 'token' ? token : scope === 'key' ? 'key-A' : '127.0.0.1';
        const status = limiter.hit(bucket).allowed ? 200 : 429;
        recorded.requests.push({
          method: req.method,
          url: req.url,
          tags: { ...req.tags, probe: token.endsWith('tA') ? 'a' : 'b' },
          status,
          at: now,
          ms: 0,
        });
        return { status, body: null, headers: {} };
      },
      count: (metric, tags) =>
        void recorded.counts.push({
          metric,
          tags: { ...tags, probe: String(recorded.requests[recorded.requests.length - 1]!.tags['probe']) },
        }),
    });
    const data: SetupData = { segment: parseSegment(null, null), tokens: { reads: 'tA', writes: 'tB' } };
    const specs = [probeSpec(cfg, data, io, 'scopeA'), probeSpec(cfg, data, io, 'scopeB')];
    const plan = specs[0]!.plan;
    // Both scenarios start together; their arrivals interleave.
    for (let g = 0; g < plan.slotsPerWindow * cfg.windows; g++) {
      for (const spec of specs) {
        now = g * plan.slotMs + 0.01;
        probeIteration(io, spec, now);
      }
    }
    return { a: countsOf(recorded, 2, 'a'), b: countsOf(recorded, 2, 'b') };
  }

  it('per token (the seed): each token gets its own 300 → pass', () => {
    const { a, b } = simulateScope('token');
    expect(a[0]).toEqual({ sent: 330, accepted: 300, refused: 30 });
    expect(judgeScope(300, a, b).verdict).toBe('pass');
  });
  for (const scope of ['key', 'address'] as const) {
    it(`per ${scope} (faults limits-shared-across-tokens, request-limits-by-address) → shared`, () => {
      const { a, b } = simulateScope(scope);
      expect(a[0]!.accepted + b[0]!.accepted).toBe(300);
      const v = judgeScope(300, a, b);
      expect(v.verdict).toBe('shared');
      expect(v.message).toMatch(/not per token/);
    });
  }
});

// ---------------------------------------------------------------- options: only what k6 reads from a script

/**
 * The options k6 decodes from a script's `options`: the JSON fields of its lib.Options, the same in k6 v0.38.0 and
 * v0.48.0 (lib/options.go). Any other draws "There were unknown fields in the options exported in the script" on
 * every run: noUsageReport, for one, which k6 reads only from its command line, environment or config file.
 */
const K6_SCRIPT_OPTIONS = new Set([
  'paused',
  'vus',
  'duration',
  'iterations',
  'stages',
  'scenarios',
  'executionSegment',
  'executionSegmentSequence',
  'noSetup',
  'setupTimeout',
  'noTeardown',
  'teardownTimeout',
  'rps',
  'dns',
  'maxRedirects',
  'userAgent',
  'batch',
  'batchPerHost',
  'httpDebug',
  'insecureSkipTLSVerify',
  'tlsCipherSuites',
  'tlsVersion',
  'tlsAuth',
  'throw',
  'thresholds',
  'blacklistIPs',
  'blockHostnames',
  'hosts',
  'noConnectionReuse',
  'noVUConnectionReuse',
  'minIterationDuration',
  'ext',
  'summaryTrendStats',
  'summaryTimeUnit',
  'systemTags',
  'tags',
  'metricSamplesBufferSize',
  'noCookiesReset',
  'discardResponseBodies',
]);
/** The fields of the executors the scripts use (lib/executor: BaseConfig and each executor's config), v0.38.0 and v0.48.0. */
const EXECUTOR_BASE = ['executor', 'startTime', 'gracefulStop', 'env', 'exec', 'tags'];
const EXECUTOR_FIELDS: Record<string, string[]> = {
  'constant-arrival-rate': [...EXECUTOR_BASE, 'rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'shared-iterations': [...EXECUTOR_BASE, 'vus', 'iterations', 'maxDuration'],
};

describe('options: only what k6 reads from a script, and what the reports need kept', () => {
  const cfg = readConfig({
    CONFORMANCE_BASE_URL: 'http://127.0.0.1:1',
    CONFORMANCE_API_KEY: 'ck_test_primary',
    CONFORMANCE_TIME_SCALE: '10',
  });
  type ScriptOptions = {
    summaryTrendStats: string[];
    scenarios: Record<string, { executor: string }>;
    thresholds: Record<string, string[]>;
  };
  const scripts: Array<{ script: string; options: ScriptOptions; scenarios: string[] }> = [
    { script: 'rate-limits.js', options: rateLimitOptions(cfg), scenarios: RATE_LIMIT_SCENARIOS },
    { script: 'pagination.js', options: paginationOptions(cfg), scenarios: [PAGINATION_SCENARIO] },
  ];

  it('the list of options k6 reads has no noUsageReport, which every run warned about before', () => {
    expect(K6_SCRIPT_OPTIONS.has('noUsageReport')).toBe(false);
  });

  for (const { script, options, scenarios } of scripts) {
    it(`${script}: every option and every scenario field is one k6 decodes, so k6 warns about none`, () => {
      expect(Object.keys(options).filter((k) => !K6_SCRIPT_OPTIONS.has(k))).toEqual([]);
      expect(Object.keys(options.scenarios).sort()).toEqual([...scenarios].sort());
      for (const [name, scenario] of Object.entries(options.scenarios)) {
        const known = EXECUTOR_FIELDS[scenario.executor];
        expect(known, `${name}: executor ${scenario.executor}`).toBeDefined();
        expect(
          Object.keys(scenario).filter((k) => !known!.includes(k)),
          name
        ).toEqual([]);
      }
    });

    it(`${script}: k6 keeps p50, p90, p95 and p99 of http_req_duration, and every traffic submetric the reports read`, () => {
      expect(options.summaryTrendStats).toEqual(expect.arrayContaining([...LATENCY_PERCENTILES]));
      for (const scenario of [undefined, ...scenarios]) {
        for (const name of Object.values(trafficMetricNames(scenario))) {
          // k6 reports a submetric only when a threshold names it; the root metrics always.
          if (name === 'http_reqs' || name === 'http_req_duration') continue;
          expect(options.thresholds[name], name).toBeDefined();
          // Such a threshold gates nothing: a count or a duration is never negative.
          expect(
            options.thresholds[name]!.every((e) => e === 'count>=0' || e === 'max>=0'),
            name
          ).toBe(true);
        }
      }
    });
  }
});

// ---------------------------------------------------------------- the end-of-test summary: latency and 429s

/** The samples k6 records for the glue's requests: their tags, the scenario (not in setup()) and the status. */
function samplesOf(recorded: Recorded, scenario: string): K6Sample[] {
  return recorded.requests.map((r) => ({
    tags: { ...r.tags, status: String(r.status), ...(r.tags['phase'] === 'setup' ? {} : { scenario }) },
    ms: r.ms,
  }));
}

function summaryJson(out: Record<string, string>): LoadSummary {
  return JSON.parse(out['k6-out/summary.json']!) as LoadSummary;
}

describe('the end-of-test summary keeps latency percentiles and the share of 429s per scenario', () => {
  let ref: SyncReference;
  beforeAll(async () => {
    ref = await startSyncReference();
  });
  afterAll(() => ref.close());

  it('pagination.js against the reference: p50, p90, p95, p99 of its requests, in summary.json and the text', () => {
    const cfg = configFor(ref);
    const { io, recorded } = ref.io();
    const data = setupTokens(io, cfg, ['pagination'], { enforceSegments: false });
    reportChecks(io, paginate(io, cfg, bearer(io, data, 'pagination')));
    const options = paginationOptions(cfg);
    const metrics = k6SummaryMetrics(samplesOf(recorded, PAGINATION_SCENARIO), options);
    const root_group = k6RootGroup([], recorded.checks);
    const out = summarize(
      cfg,
      'pagination.js',
      { metrics, root_group, setup_data: data },
      checkResultsFromK6(root_group),
      {},
      [PAGINATION_SCENARIO]
    );
    const summary = summaryJson(out);
    expect(summary.verdict).toBe('conformant');
    const walked = recorded.requests.filter((r) => r.tags['phase'] !== 'setup');
    expect(summary.traffic!.scenarios[PAGINATION_SCENARIO]).toMatchObject({
      requests: walked.length,
      status429: 0,
      share429: 0,
    });
    expect(summary.traffic!.all.requests).toBe(recorded.requests.length);
    for (const t of [summary.traffic!.all, summary.traffic!.scenarios[PAGINATION_SCENARIO]!]) {
      const l = t.latencyMs;
      expect(
        [l.p50, l.p90, l.p95, l.p99, l.max].every((v) => typeof v === 'number' && v > 0),
        JSON.stringify(l)
      ).toBe(true);
      expect(l.p50! <= l.p90! && l.p90! <= l.p95! && l.p95! <= l.p99! && l.p99! <= l.max!).toBe(true);
    }
    // The traffic thresholds only keep the figures: the gate is the checks' alone.
    expect(summary.thresholds.map((t) => t.metric)).toEqual([]);
    expect(out['stdout']).toMatch(/scenario\s+requests\s+429\s+share\s+p50\s+p90\s+p95\s+p99\s+max/);
    // k6 measures real time, and the table says so; at another time scale it says how to read target seconds.
    expect(out['stdout']).toContain(
      cfg.timeScale === 1
        ? 'latency of http_req_duration in real ms):'
        : `latency of http_req_duration in real ms (time scale ${cfg.timeScale}: target seconds`
    );
    const target = summary.traffic!.all.latencyTargetSeconds;
    expect(target.max).toBeCloseTo((summary.traffic!.all.latencyMs.max! * cfg.timeScale) / 1000, 2);
    expect(out['stdout']).toMatch(
      new RegExp(`\\n  pagination\\s+${walked.length}\\s+0\\s+0\\.0%\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d\\d`)
    );
  });

  it('without the traffic thresholds k6 would report no per-scenario figure (why the options name them)', () => {
    const cfg = configFor(ref);
    const { io, recorded } = ref.io();
    const data = setupTokens(io, cfg, ['pagination'], { enforceSegments: false });
    paginate(io, cfg, bearer(io, data, 'pagination'));
    const metrics = k6SummaryMetrics(samplesOf(recorded, PAGINATION_SCENARIO), {
      ...paginationOptions(cfg),
      thresholds: {},
    });
    const summary = summaryJson(
      summarize(cfg, 'pagination.js', { metrics, setup_data: data }, [], {}, [PAGINATION_SCENARIO])
    );
    expect(summary.traffic!.scenarios[PAGINATION_SCENARIO]).toMatchObject({
      requests: 0,
      share429: null,
      latencyMs: { p50: null, p99: null },
    });
    expect(summary.traffic!.all.requests).toBe(recorded.requests.length);
  });
});

// ---------------------------------------------------------------- a test that stops: verdict error, and why

describe('a setup() that aborts: summary.json says error and why, junit.xml has an error test case naming it', () => {
  let ref: SyncReference;
  beforeAll(async () => {
    ref = await startSyncReference();
  });
  afterAll(() => ref.close());

  const cases: Array<{
    name: string;
    script: 'rate-limits.js' | 'pagination.js';
    key?: string;
    segment?: { segment: string; sequence: string };
    cause: RegExp;
  }> = [
    {
      name: 'a refused API key (rate-limits.js)',
      script: 'rate-limits.js',
      key: 'ck_not-a-key',
      cause: /^token issuance for reads failed with status 401$/,
    },
    {
      name: 'a refused API key (pagination.js)',
      script: 'pagination.js',
      key: 'ck_not-a-key',
      cause: /^token issuance for pagination failed with status 401$/,
    },
    {
      name: 'an execution segment that CONFORMANCE_SEGMENTS does not expect (rate-limits.js)',
      script: 'rate-limits.js',
      segment: { segment: '1/3:2/3', sequence: '0,1/3,2/3,1' },
      cause:
        /^this instance runs execution segment 1\/3:2\/3 \(length 0\.3333\), but CONFORMANCE_SEGMENTS=1 expects 1 equal segments/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cfg = readConfig({
        CONFORMANCE_BASE_URL: ref.settings.baseUrl,
        CONFORMANCE_API_KEY: c.key ?? ref.settings.apiKey,
      });
      const { io, recorded } = ref.io(c.segment);
      const rateLimits = c.script === 'rate-limits.js';
      expect(() =>
        setupTokens(io, cfg, rateLimits ? ['reads', 'writes'] : ['pagination'], { enforceSegments: rateLimits })
      ).toThrow(c.cause);
      // Stopped through exec.test.abort (k6 v0.38 summarizes after an abort, not after an exception), once.
      expect(recorded.aborted).toHaveLength(1);
      const cause = recorded.aborted[0]!;
      expect(cause).toMatch(c.cause);

      // What k6 hands handleSummary then: no setup data, the checks setup() made in its group, the requests it sent.
      const options = rateLimits ? rateLimitOptions(cfg) : paginationOptions(cfg);
      const scenarios = rateLimits ? RATE_LIMIT_SCENARIOS : [PAGINATION_SCENARIO];
      const metrics = k6SummaryMetrics(samplesOf(recorded, 'none'), options);
      const root_group = k6RootGroup(recorded.checks);
      const checks = rateLimits ? rateLimitResults(metrics, cfg.windows).checks : checkResultsFromK6(root_group);
      const out = summarize(cfg, c.script, { metrics, root_group }, checks, {}, scenarios);

      expect(summaryJson(out)).toMatchObject({
        verdict: 'error',
        error: { where: 'setup', message: cause },
        checks: [],
        summary: { passed: 0, failed: 0, skipped: 0 },
      });
      const junit = out['k6-out/junit.xml']!;
      expect(junit).toMatch(/<testsuite name="load\/[a-z-]+\.js" tests="1" failures="0" errors="1" skipped="0"/);
      const testcases = [...junit.matchAll(/<testcase [^>]*name="([^"]*)"/g)].map((m) => m[1]!.replace(/&apos;/g, "'"));
      expect(testcases).toEqual([`setup() aborted: ${cause}`]);
      expect(junit).toMatch(
        /<error message="[^"]+" type="aborted">setup\(\) aborted: [^<]+ The test never started: no check ran\.<\/error>/
      );
      expect(out['stdout']).toContain(`ERROR  setup() aborted: ${cause}`);
      expect(out['stdout']).toMatch(/verdict: error/);
      for (const text of Object.values(out)) expect(text).not.toContain(ref.settings.apiKey);
    });
  }

  it("a setup() that left no cause (a setup timeout; an exception, which k6 v0.48 still summarizes): error, pointing to k6's log", () => {
    const cfg = configFor(ref);
    const out = summarize(
      cfg,
      'rate-limits.js',
      { metrics: {}, root_group: k6RootGroup([]) },
      rateLimitResults({}, cfg.windows).checks,
      {},
      RATE_LIMIT_SCENARIOS
    );
    expect(summaryJson(out)).toMatchObject({
      verdict: 'error',
      error: { where: 'setup', message: SETUP_INCOMPLETE },
      checks: [],
    });
    expect(out['k6-out/junit.xml']).toContain('errors="1"');
  });

  it('a VU that refuses setup data made for another segment stops the test: error "test aborted", the checks judged so far kept', () => {
    const cfg = configFor(ref, { CONFORMANCE_SEGMENTS: '3' });
    const data = setupTokens(ref.io({ segment: '1/3:2/3', sequence: '0,1/3,2/3,1' }).io, cfg, ['reads'], {
      enforceSegments: true,
    });
    const other = ref.io({ segment: '0:1/3', sequence: '0,1/3,2/3,1' });
    expect(() => setupGuard(other.io)(data)).toThrow(/made for execution segment 1\/3:2\/3/);
    const checks = rateLimitResults({}, cfg.windows).checks;
    const summary = summaryJson(
      summarize(
        cfg,
        'rate-limits.js',
        { metrics: {}, root_group: k6RootGroup([], other.recorded.checks), setup_data: data },
        checks,
        {},
        RATE_LIMIT_SCENARIOS
      )
    );
    expect(summary).toMatchObject({ verdict: 'error', error: { where: 'run', message: other.recorded.aborted[0] } });
    expect(summary.checks.map((c) => c.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
  });
});
