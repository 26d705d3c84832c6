// The k6 scripts' glue (load/lib/flow.js) against the reference target, through the Io that k6common.js binds to
// k6: the same code, with only the calls into k6/* replaced. Requests are synchronous, as in k6.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  paginate,
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
  checkResultsFromK6,
  parseSegment,
  readConfig,
  windowMetricNames,
  type LoadConfig,
} from '../../load/lib/verdicts.js';
import { startSyncReference, sleepUntil, type Recorded, type SyncReference } from './support/sync-reference.ts';
import { FixedWindowLimiter } from '../../fixtures/reference/limits.ts';
import type { VirtualClock } from '../../fixtures/reference/clock.ts';

function configFor(ref: SyncReference, extra: Record<string, string> = {}): LoadConfig {
  return readConfig({ CONFORMANCE_BASE_URL: ref.settings.baseUrl, CONFORMANCE_API_KEY: ref.settings.apiKey, CONFORMANCE_API_KEY_B: ref.settings.apiKeyB, ...extra });
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
          const answer = io.request({ method: 'GET', url: `${cfg.baseUrl}/v1/vms?per_page=1`, body: null, headers: bearer(io, data, purpose), tags: {}, timeout: '10s', readBody: false, expect: 'ok' });
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
      expect(() => setupTokens(io, cfg, ['reads'], { enforceSegments: false })).toThrow(/^token issuance for reads failed with status 401$/);
    });

    it('a segment that does not match CONFORMANCE_SEGMENTS aborts before any token is issued', () => {
      const cfg = configFor(ref);
      const { io, recorded } = ref.io({ segment: '1/3:2/3', sequence: '0,1/3,2/3,1' });
      expect(() => setupTokens(io, cfg, ['reads'], { enforceSegments: true })).toThrow(/CONFORMANCE_SEGMENTS=1 expects 1 equal segments/);
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
      expect(() => setupGuard(other.io)(data)).toThrow(/made for execution segment 1\/3:2\/3 but this instance runs 0:1\/3/);
    });
  });
});

// ---------------------------------------------------------------- pagination.js

describe('pagination against the reference target', () => {
  const refs: SyncReference[] = [];
  afterAll(() => Promise.all(refs.map((r) => r.close())));
  async function run(opts: { faults?: string[]; key?: 'apiKey' | 'apiKeyB' } = {}): Promise<{ results: ReturnType<typeof paginate>; recorded: Recorded }> {
    const ref = await startSyncReference({ faults: opts.faults });
    refs.push(ref);
    const cfg = readConfig({ CONFORMANCE_BASE_URL: ref.settings.baseUrl, CONFORMANCE_API_KEY: ref.settings[opts.key ?? 'apiKey'] });
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
    for (const r of results.filter((x) => x.status === 'skipped')) expect(r.message).toMatch(/the list holds only 3 items; it needs more than 100: create 98 more VMs/);
    expect(recorded.requests.map((r) => r.url.replace(/^.*\/v1/, '/v1'))).toEqual([
      '/v1/auth/tokens', '/v1/vms?per_page=100&page=1', '/v1/vms?per_page=101', '/v1/vms?per_page=1000',
    ]);
  });

  it('a list of 3 on a target that honours per_page above 100: inconclusive, never a pass (issue 15)', async () => {
    const { results, recorded } = await run({ key: 'apiKeyB', faults: ['per-page-uncapped'] });
    expect(statusOf(results)).toEqual({
      'pagination.per-page-100': 'passed',
      'pagination.per-page-101': 'skipped',
      'pagination.per-page-1000': 'skipped',
      'pagination.walk': 'skipped',
      'pagination.total': 'skipped',
    });
    expect(results[1]!.message).toMatch(/per_page=101 served 3 items, which cannot be told from honouring per_page=101: the list holds only 3 items/);
    // The k6 checks carry the results to handleSummary: the skipped ones as not passed, and back as skipped.
    expect(recorded.checks.filter((c) => c.ok)).toHaveLength(1);
    const group = { name: '', checks: recorded.checks.map((c) => ({ name: c.name, passes: c.ok ? 1 : 0, fails: c.ok ? 0 : 1 })) };
    expect(checkResultsFromK6(group).map((c) => c.status)).toEqual(['passed', 'skipped', 'skipped', 'skipped', 'skipped']);
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
  const cfg = readConfig({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', CONFORMANCE_API_KEY: 'ck_test_primary', CONFORMANCE_TIME_SCALE: '10' });
  it('reads and writes start at once; the scope probe follows the reads on the same tokens; issuance waits a window', () => {
    const o = rateLimitOptions(cfg);
    expect(Object.keys(o.scenarios)).toEqual(['reads_over', 'writes_over', 'scope_a', 'scope_b', 'tokens_over']);
    expect(probeStarts(cfg)).toEqual({ reads: 0, writes: 0, scope: 12600, tokens: 6600 });
    expect(o.scenarios['scope_a']).toMatchObject({ startTime: '12600ms', duration: '12000ms', rate: 360, timeUnit: '6000ms', exec: 'scopeA' });
    expect(o.scenarios['scope_b']).toMatchObject({ startTime: '12600ms', exec: 'scopeB' });
    expect(o.thresholds['limit_accepted{scenario:scope_b,window:1}']).toEqual(['count==300']);
    expect(o).toMatchObject({ noUsageReport: true, maxRedirects: 0, discardResponseBodies: true });
  });
  it('three segments: every rate and VU count tripled', () => {
    const o = rateLimitOptions({ ...cfg, segments: 3 });
    expect(o.scenarios['reads_over']).toMatchObject({ rate: 1080, preAllocatedVUs: 96, maxVUs: 372 });
    expect(o.scenarios['tokens_over']).toMatchObject({ duration: '48000ms' });
  });
  it('the scope probe uses the read token and the write token, as reads', () => {
    const { io } = { io: fakeIo() };
    const data: SetupData = { segment: parseSegment(null, null), tokens: { reads: 'tA', writes: 'tB' } };
    expect(probeSpec(cfg, data, io, 'scopeA')).toMatchObject({ probe: 'reads', label: 'scope', headers: { Authorization: 'Bearer tA' }, method: 'GET' });
    expect(probeSpec(cfg, data, io, 'scopeB')).toMatchObject({ probe: 'reads', label: 'scope', headers: { Authorization: 'Bearer tB' } });
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
      ['limits.reads', 'passed'], ['limits.writes', 'passed'], ['limits.tokens', 'passed'], ['limits.token-scope', 'failed'],
    ]);
    const out = summarize(cfg, 'rate-limits.js', { metrics, setup_data: { segment: parseSegment(null, null), tokens: { reads: 'tok-aaaa', writes: 'tok-bbbb' } } }, checks, details);
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
    accepted: recorded.counts.filter((c) => c.metric === 'limit_accepted' && c.tags['probe'] === label && c.tags['window'] === String(w)).length,
    refused: recorded.counts.filter((c) => c.metric === 'limit_refused' && c.tags['probe'] === label && c.tags['window'] === String(w)).length,
  }));
}

describe('the token-issuance probe against the live reference (time scale 30: 2 s windows)', () => {
  let ref: SyncReference;
  beforeAll(async () => {
    ref = await startSyncReference({ timeScale: 30 });
    // Warm the worker's HTTP client, so the probe's first request (which opens the target's window) is not slowed
    // by its start; an unauthenticated read touches no limit the probe measures.
    ref.io().io.request({ method: 'GET', url: `${ref.settings.baseUrl}/v1/vms`, body: null, headers: {}, tags: {}, timeout: '10s', readBody: false, expect: 'ok' });
  });
  afterAll(() => ref.close());

  /** Runs the probe as k6's constant-arrival-rate executor would: one iteration per slot, except dropped ones. */
  function runProbe(dropped: (g: number) => boolean): WindowCounts[] {
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
    return countsOf(recorded, cfg.windows, 'tokens');
  }

  it('a conforming target: exactly 10 issuances accepted in each window', () => {
    const counts = runProbe(() => false);
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
    const cfg = readConfig({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', CONFORMANCE_API_KEY: 'k', CONFORMANCE_TIME_SCALE: '10' });
    let now = 0;
    const clock = { now: () => Math.floor(now * 10) } as unknown as VirtualClock;
    const limiter = new FixedWindowLimiter(clock, 300);
    const recorded: Recorded = { requests: [], counts: [], checks: [], warnings: [], aborted: [] };
    const io = fakeIo({
      request(req) {
        const token = req.headers['Authorization'] ?? '';
        const bucket = scope === 'token' ? token : scope === 'key' ? 'key-A' : '127.0.0.1';
        const status = limiter.hit(bucket).allowed ? 200 : 429;
        recorded.requests.push({ method: req.method, url: req.url, tags: { ...req.tags, probe: token.endsWith('tA') ? 'a' : 'b' }, status, at: now });
        return { status, body: null, headers: {} };
      },
      count: (metric, tags) => void recorded.counts.push({ metric, tags: { ...tags, probe: String(recorded.requests[recorded.requests.length - 1]!.tags['probe']) } }),
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
