// Verdict logic of the k6 load scripts (load/lib): limit windows, segments, page walks, total discovery, reports.
// k6 itself cannot run here; everything the scripts decide is in these pure modules.
import { describe, expect, it } from 'vitest';
import { LIMITS, PER_PAGE_MAX } from '../../src/engine/documented-limits/limits.js';
import { judgeProbe, judgeScope, judgeWindow, type WindowCounts } from '../../src/engine/documented-limits/verdicts.js';
import { slotRole, probePlan, slotAt, windowRealMs } from '../../src/engine/documented-limits/windows.js';
import { retryAfterRealSeconds } from '../../src/engine/documented-limits/retry-after.js';
import {
  analyzeWalk,
  SETUP_INCOMPLETE,
  abortCheckName,
  checkName,
  checkResultsFromK6,
  k6CheckName,
  runErrorFromK6,
  trafficFromMetrics,
  trafficMetricNames,
  classifyStatus,
  discoverTotalField,
  issuanceOutcome,
  judgePerPage,
  k6FeatureProblem,
  reportPaths,
  scopeCheck,
  shortListReason,
  judgeWalk,
  k6Duration,
  limitCheck,
  parseSegment,
  probeThresholds,
  readConfig,
  segmentMismatch,
  submetricName,
  tokenScenarioWindows,
  tokenTurnWindow,
  totalCandidatePaths,
  windowCountsFromMetrics,
  windowMetricNames,
  type CheckResult,
  type ProbeName,
  type WalkPage,
} from '../../load/lib/decisions.js';
import {
  buildSummary,
  escapeXml,
  redact,
  renderJUnit,
  summaryOutputs,
  thresholdResults,
} from '../../load/lib/report.js';
import { FixedWindowLimiter } from '../../fixtures/reference/limits.ts';
import type { VirtualClock } from '../../fixtures/reference/clock.ts';

const PROBES: ProbeName[] = ['reads', 'writes', 'tokens'];

// ---------------------------------------------------------------- limit windows

describe('judgeWindow', () => {
  for (const probe of PROBES) {
    const L = LIMITS[probe].limit;
    const over = probePlan(L, 1).over;
    const cases: Array<[string, WindowCounts, string]> = [
      ['exact limit', { sent: L + over, accepted: L, refused: over }, 'pass'],
      ['one more accepted', { sent: L + over, accepted: L + 1, refused: over - 1 }, 'looser'],
      ['everything accepted', { sent: L + over, accepted: L + over, refused: 0 }, 'looser'],
      ['one fewer accepted', { sent: L + over, accepted: L - 1, refused: over + 1 }, 'stricter'],
      ['window not filled', { sent: L, accepted: L, refused: 0 }, 'inconclusive'],
      ['window half filled', { sent: Math.floor(L / 2), accepted: Math.floor(L / 2), refused: 0 }, 'inconclusive'],
      // Its refusals may come from the target's previous window: an unfilled window is never a verdict.
      ['refused before the limit in an unfilled window', { sent: L - 1, accepted: L - 3, refused: 2 }, 'inconclusive'],
      ['everything refused in an unfilled window', { sent: L, accepted: 0, refused: L }, 'inconclusive'],
      ['unanswered requests hide the count', { sent: L + over, accepted: L - 1, refused: 0 }, 'inconclusive'],
      ['unanswered could have been accepted', { sent: L + over, accepted: L - 2, refused: over }, 'inconclusive'],
      ['limit held, some unanswered', { sent: L + over, accepted: L, refused: over - 1 }, 'pass'],
      ['nothing measured', { sent: 0, accepted: 0, refused: 0 }, 'inconclusive'],
    ];
    for (const [name, counts, verdict] of cases) {
      it(`${probe} (limit ${L}): ${name} → ${verdict}`, () => {
        const v = judgeWindow(L, counts, 3);
        expect(v.verdict).toBe(verdict);
        expect(v.window).toBe(3);
        expect(v.reason).toMatch(/^window 3: /);
        expect(v.unanswered).toBe(Math.max(0, counts.sent - counts.accepted - counts.refused));
      });
    }
  }
});

describe('judgeProbe', () => {
  const L = 60;
  const pass: WindowCounts = { sent: 66, accepted: 60, refused: 6 };
  const looser: WindowCounts = { sent: 66, accepted: 61, refused: 5 };
  const stricter: WindowCounts = { sent: 66, accepted: 59, refused: 7 };
  const unfilled: WindowCounts = { sent: 40, accepted: 40, refused: 0 };
  const cases: Array<[string, WindowCounts[], string]> = [
    ['every window exact', [pass, pass], 'pass'],
    ['one window looser', [pass, looser], 'looser'],
    ['one window stricter', [stricter, pass], 'stricter'],
    ['windows disagree (clock-aligned target windows)', [looser, stricter], 'inconclusive'],
    ['one window not filled', [pass, unfilled], 'inconclusive'],
    // The window after an unfilled one may have spent what the target's window had left: not a verdict.
    ['a looser window after an unfilled one', [unfilled, looser], 'inconclusive'],
    ['a stricter window after an unfilled one', [unfilled, stricter], 'inconclusive'],
    ['a looser window after a filled one', [pass, pass, looser], 'looser'],
    ['no windows', [], 'inconclusive'],
  ];
  for (const [name, windows, verdict] of cases) {
    it(`${name} → ${verdict}`, () => {
      const v = judgeProbe(L, windows);
      expect(v.verdict).toBe(verdict);
      expect(v.windows).toHaveLength(windows.length);
    });
  }

  it('limitCheck maps verdicts to check statuses with the clause', () => {
    expect(limitCheck('reads', judgeProbe(300, [{ sent: 330, accepted: 300, refused: 30 }]))).toMatchObject({
      id: 'limits.reads',
      clauses: ['LIMIT-READ-300'],
      status: 'passed',
      verdict: 'pass',
    });
    expect(limitCheck('writes', judgeProbe(60, [looser]))).toMatchObject({
      clauses: ['LIMIT-WRITE-60'],
      status: 'failed',
      verdict: 'looser',
    });
    expect(limitCheck('tokens', judgeProbe(10, [{ sent: 11, accepted: 9, refused: 2 }]))).toMatchObject({
      clauses: ['LIMIT-TOKEN-10'],
      status: 'failed',
      verdict: 'stricter',
    });
    expect(limitCheck('tokens', judgeProbe(10, [{ sent: 5, accepted: 5, refused: 0 }]))).toMatchObject({
      status: 'skipped',
      verdict: 'inconclusive',
    });
  });
});

describe('classifyStatus', () => {
  const cases: Array<[ProbeName, number, string]> = [
    ['reads', 200, 'accepted'],
    ['reads', 429, 'refused'],
    ['reads', 400, 'refused'],
    ['reads', 503, 'refused'],
    ['reads', 0, 'unanswered'],
    ['writes', 400, 'accepted'],
    ['writes', 422, 'accepted'],
    ['writes', 202, 'accepted'],
    ['writes', 429, 'refused'],
    ['writes', 401, 'refused'],
    ['writes', 0, 'unanswered'],
    ['tokens', 200, 'accepted'],
    ['tokens', 429, 'refused'],
    ['tokens', 400, 'refused'],
  ];
  for (const [probe, status, outcome] of cases)
    it(`${probe} ${status} → ${outcome}`, () => expect(classifyStatus(probe, status)).toBe(outcome));
});

// ---------------------------------------------------------------- window arithmetic

describe('window arithmetic under a time scale', () => {
  it('a window is 60 target-seconds, scaled to real time', () => {
    expect(windowRealMs(1)).toBe(60_000);
    expect(windowRealMs(10)).toBe(6_000);
    expect(windowRealMs(0.5)).toBe(120_000);
    expect(() => windowRealMs(0)).toThrow();
    expect(k6Duration(6000)).toBe('6000ms');
    expect(k6Duration(8571.43)).toBe('8571ms');
  });

  it('plans push each limit about 10% over its rate, with an equal idle guard', () => {
    expect(probePlan(300, 10)).toMatchObject({
      limit: 300,
      over: 30,
      guard: 30,
      lead: 10,
      slotsPerWindow: 360,
      windowMs: 6000,
    });
    expect(probePlan(60, 1)).toMatchObject({ over: 6, guard: 6, lead: 2, slotsPerWindow: 72, windowMs: 60_000 });
    expect(probePlan(10, 10)).toMatchObject({ over: 2, guard: 2, lead: 1, slotsPerWindow: 14 });
    expect(probePlan(300, 7).windowMs).toBe(8571);
  });

  it('slotAt places a moment in its window and slot, by elapsed time', () => {
    const plan = probePlan(10, 10); // 14 slots in 6000 ms
    expect(slotAt(-1, plan)).toEqual({ window: -1, position: 0 });
    expect(slotAt(0, plan)).toEqual({ window: 0, position: 0 });
    expect(slotAt(9.5 * plan.slotMs, plan)).toEqual({ window: 0, position: 9 });
    expect(slotAt(5999, plan)).toEqual({ window: 0, position: 13 });
    expect(slotAt(6000, plan)).toEqual({ window: 1, position: 0 });
    expect(slotAt(6000 + 3.5 * plan.slotMs, plan)).toEqual({ window: 1, position: 3 });
  });

  it('the first window sends from its first slot; later ones keep lead slots idle on the boundary', () => {
    const plan = probePlan(10, 10); // lead 1, limit 10, over 2, tail 1
    const roles = (w: number) => Array.from({ length: plan.slotsPerWindow }, (_, p) => slotRole(plan, w, p));
    const pattern = (w: number) =>
      roles(w)
        .map((r) => (!r.send ? '.' : r.limited ? 'x' : 'o'))
        .join('');
    expect(pattern(0)).toBe('ooooooooooxx..');
    expect(pattern(1)).toBe('.ooooooooooxx.');
    expect(pattern(2)).toBe(pattern(1));
    const reads = probePlan(300, 10);
    const sent = (w: number) =>
      Array.from({ length: reads.slotsPerWindow }, (_, p) => slotRole(reads, w, p)).filter((r) => r.send).length;
    expect([sent(0), sent(1)]).toEqual([330, 330]);
  });

  it('Retry-After is in target-seconds: scaled to real seconds', () => {
    expect(retryAfterRealSeconds('30', 10)).toBe(3);
    expect(retryAfterRealSeconds('1', 1)).toBe(1);
    expect(retryAfterRealSeconds(undefined, 10)).toBeUndefined();
    expect(retryAfterRealSeconds('soon', 10)).toBeUndefined();
    expect(retryAfterRealSeconds(new Date(10_000).toUTCString(), 10, 4_000)).toBe(6);
  });

  it('token-issuance turns: one segment at a time, one idle window between turns', () => {
    expect(tokenScenarioWindows(1, 2)).toBe(2);
    expect(tokenScenarioWindows(3, 2)).toBe(8);
    const owners = Array.from({ length: 8 }, (_, w) => [0, 1, 2].map((s) => tokenTurnWindow(w, s, 2)));
    expect(owners).toEqual([
      [0, -1, -1],
      [1, -1, -1],
      [-1, -1, -1],
      [-1, 0, -1],
      [-1, 1, -1],
      [-1, -1, -1],
      [-1, -1, 0],
      [-1, -1, 1],
    ]);
  });
});

interface SimOptions {
  timeScale?: number;
  windows?: number;
  /** real ms from sending to reaching the target, per request in sending order and by its sending time */
  latency?: (i: number, sentAt: number) => number;
  segments?: number;
  /** arrival iterations k6 never ran (too few VUs), by global iteration number */
  dropped?: (g: number) => boolean;
}

/**
 * Simulates a probe against the reference target's own limiter (fixed windows that start at the first hit): the
 * schedule the k6 scenario follows, a latency per request, and the script's window attribution.
 */
function simulate(limit: number, targetLimit: number, opts: SimOptions = {}): WindowCounts[] {
  const scale = opts.timeScale ?? 10;
  const windows = opts.windows ?? 2;
  const plan = probePlan(limit, scale);
  let now = 0;
  const clock = {
    scale,
    now: () => Math.floor(now * scale),
    nowSeconds: () => Math.floor((now * scale) / 1000),
  } as unknown as VirtualClock;
  const limiter = new FixedWindowLimiter(clock, targetLimit);
  const counts: WindowCounts[] = Array.from({ length: windows }, () => ({ sent: 0, accepted: 0, refused: 0 }));
  const requests: Array<{ at: number; window: number }> = [];
  const segments = opts.segments ?? 1;
  // k6 schedules rate*segments per timeUnit and this instance (segment 0 of equal ones) gets every segments-th.
  const total = plan.slotsPerWindow * windows * segments;
  for (let g = 0; g < total; g++) {
    if (g % segments !== 0 || opts.dropped?.(g)) continue;
    const scheduled = (g * plan.windowMs) / (plan.slotsPerWindow * segments) + 0.01;
    const at = slotAt(scheduled, plan);
    if (at.window >= windows || !slotRole(plan, at.window, at.position).send) continue;
    requests.push({ at: scheduled + (opts.latency ? opts.latency(requests.length, scheduled) : 1), window: at.window });
  }
  requests.sort((a, b) => a.at - b.at);
  for (const r of requests) {
    now = r.at;
    const c = counts[r.window]!;
    c.sent++;
    if (limiter.hit('token').allowed) c.accepted++;
    else c.refused++;
  }
  return counts;
}

describe('probe plan against the reference limiter (simulated)', () => {
  for (const probe of PROBES) {
    const L = LIMITS[probe].limit;
    it(`${probe}: documented limit → pass; one more → looser; one fewer → stricter`, () => {
      expect(judgeProbe(L, simulate(L, L)).verdict).toBe('pass');
      expect(judgeProbe(L, simulate(L, L + 1)).verdict).toBe('looser');
      expect(judgeProbe(L, simulate(L, L - 1)).verdict).toBe('stricter');
    });
    it(`${probe}: a slow first request (cold connection) and jitter do not change the verdict`, () => {
      const latency = (i: number) => (i === 0 ? 250 : 1 + ((i * 7919) % 40));
      expect(judgeProbe(L, simulate(L, L, { latency })).verdict).toBe('pass');
      expect(judgeProbe(L, simulate(L, L, { latency, timeScale: 1, windows: 3 })).verdict).toBe('pass');
    });
    it(`${probe}: a segment of three with the rate tripled pushes the full limit on its own token`, () => {
      expect(judgeProbe(L, simulate(L, L, { segments: 3 })).verdict).toBe('pass');
    });
    it(`${probe}: a first request that reaches the target late by up to the lead guard changes nothing`, () => {
      const plan = probePlan(L, 10);
      // Nothing reaches the target before `lag` (k6 starting its VUs, cold connections): its window opens late.
      const lag = plan.lead * plan.slotMs - 2;
      const late = (_: number, t: number) => (t < lag ? lag - t : 0) + 1;
      expect(judgeProbe(L, simulate(L, L, { latency: late })).verdict).toBe('pass');
      expect(judgeProbe(L, simulate(L, L + 1, { latency: late })).verdict).toBe('looser');
    });
  }

  // Window 0 was not filled (294 of 330 sent) and the target's window 0 opened late, so window 1's first
  // requests spent its leftover budget and window 1 counted 306 accepted: a conforming target called looser.
  it('a window that was not filled, then a late target window: inconclusive, never looser', () => {
    const plan = probePlan(300, 10);
    const dropped = (g: number) => g >= 100 && g < 136;
    const lag = plan.lead * plan.slotMs + 60;
    const late = (_: number, t: number) => (t < lag ? lag - t : 0) + 1;
    const counts = simulate(300, 300, { dropped, latency: late });
    expect(counts[0]).toMatchObject({ sent: 294, accepted: 294 });
    expect(counts[1]!.accepted).toBeGreaterThan(300); // what the target really let through in the probe's window 1
    const v = judgeProbe(300, counts);
    expect(v.verdict).toBe('inconclusive');
    expect(v.windows.map((w) => w.verdict)).toEqual(['inconclusive', 'inconclusive']);
    expect(v.windows[0]!.reason).toMatch(/not filled, 294 requests sent/);
    expect(v.windows[1]!.reason).toMatch(/follows window 0, which was not filled/);
  });
});

describe('scope: two tokens of one key at once', () => {
  const L = 300;
  const own: WindowCounts = { sent: 330, accepted: 300, refused: 30 };
  const half: WindowCounts = { sent: 330, accepted: 150, refused: 180 };
  const cases: Array<[string, WindowCounts[], WindowCounts[], string]> = [
    ['each token gets its own 300', [own, own], [own, own], 'pass'],
    ['the key shares one budget', [half, half], [half, half], 'shared'],
    [
      'shared unevenly',
      [{ sent: 330, accepted: 200, refused: 130 }, own],
      [{ sent: 330, accepted: 100, refused: 230 }, own],
      'shared',
    ],
    [
      'per token, but 301 each (the read probe reports looser)',
      [{ sent: 330, accepted: 301, refused: 29 }],
      [{ sent: 330, accepted: 301, refused: 29 }],
      'inconclusive',
    ],
    ['one token not filled', [{ sent: 200, accepted: 150, refused: 50 }], [half], 'inconclusive'],
    ['nothing measured', [], [], 'inconclusive'],
  ];
  for (const [name, a, b, verdict] of cases) {
    it(`${name} → ${verdict}`, () => expect(judgeScope(L, a, b).verdict).toBe(verdict));
  }
  it('a shared budget fails the check with the counts, per window', () => {
    const c = scopeCheck(judgeScope(L, [half], [half]));
    expect(c).toMatchObject({
      id: 'limits.token-scope',
      clauses: ['LIMIT-READ-300'],
      status: 'failed',
      verdict: 'shared',
    });
    expect(c.message).toMatch(/150 \+ 150 = 300 reads accepted together/);
    expect(scopeCheck(judgeScope(L, [own], [own])).status).toBe('passed');
    expect(scopeCheck(judgeScope(L, [], [])).status).toBe('skipped');
  });
});

// ---------------------------------------------------------------- execution segments

describe('execution segments', () => {
  it('no segment is the whole test', () => {
    expect(parseSegment(undefined, undefined)).toEqual({ index: 0, count: 1, start: 0, end: 1, label: '0:1' });
    expect(parseSegment('0:1', null)).toMatchObject({ index: 0, count: 1 });
  });
  it('reads k6-operator segments with their sequence', () => {
    expect(parseSegment('1/3:2/3', '0,1/3,2/3,1')).toMatchObject({ index: 1, count: 3, label: '1/3:2/3' });
    expect(parseSegment('2/3:1', '0,1/3,2/3,1')).toMatchObject({ index: 2, count: 3 });
    expect(parseSegment('0:1/4', undefined)).toMatchObject({ index: 0, count: 4 });
    expect(parseSegment('50%:100%', '0,50%,100%')).toMatchObject({ index: 1, count: 2 });
    expect(() => parseSegment('1/3:1/2', '0,1/3,2/3,1')).toThrow(/not one of the segments/);
  });
  it('CONFORMANCE_SEGMENTS must match the segment length', () => {
    expect(segmentMismatch(parseSegment('1/3:2/3', '0,1/3,2/3,1'), 3)).toBeUndefined();
    expect(segmentMismatch(parseSegment(undefined, undefined), 1)).toBeUndefined();
    expect(segmentMismatch(parseSegment('1/3:2/3', '0,1/3,2/3,1'), 1)).toMatch(/CONFORMANCE_SEGMENTS=1/);
    expect(segmentMismatch(parseSegment(undefined, undefined), 3)).toMatch(/parallelism/);
  });
});

// ---------------------------------------------------------------- thresholds and summary metrics

describe('thresholds and summary metrics', () => {
  it('submetric names are built one way for options and summary', () => {
    expect(submetricName('http_reqs', { scenario: 'reads_over', window: 0 })).toBe(
      'http_reqs{scenario:reads_over,window:0}'
    );
    expect(submetricName('http_reqs', {})).toBe('http_reqs');
  });
  it('thresholds: pushed over, exactly the limit, refusals seen, per window', () => {
    const t = probeThresholds('writes_over', 60, 2);
    expect(t).toEqual({
      'http_reqs{scenario:writes_over,window:0}': ['count>60'],
      'limit_accepted{scenario:writes_over,window:0}': ['count==60'],
      'limit_refused{scenario:writes_over,window:0}': ['count>0'],
      'http_reqs{scenario:writes_over,window:1}': ['count>60'],
      'limit_accepted{scenario:writes_over,window:1}': ['count==60'],
      'limit_refused{scenario:writes_over,window:1}': ['count>0'],
    });
  });
  it('reads per-window counts back from k6 summary data; missing submetrics count 0', () => {
    const n0 = windowMetricNames('reads_over', 0);
    const metrics = {
      [n0.sent]: { type: 'counter', values: { count: 330, rate: 55 } },
      [n0.accepted]: { type: 'counter', values: { count: 300, rate: 50 }, thresholds: { 'count==300': { ok: true } } },
      [n0.refused]: { type: 'counter', values: { count: 30, rate: 5 } },
    };
    expect(windowCountsFromMetrics(metrics, 'reads_over', 2)).toEqual([
      { sent: 330, accepted: 300, refused: 30 },
      { sent: 0, accepted: 0, refused: 0 },
    ]);
    expect(thresholdResults(metrics)).toEqual([{ metric: n0.accepted, expression: 'count==300', ok: true }]);
  });
});

// ---------------------------------------------------------------- pagination

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `vm-${from + i}`);
const page = (p: number, list: string[], total: unknown = 250, extra: Record<string, unknown> = {}): WalkPage => ({
  page: p,
  status: 200,
  ids: list,
  body: { vms: list.map((id) => ({ id, name: id })), total, page: p, per_page: 100, ...extra },
});
const complete = { complete: true, stoppedBecause: 'short page' };

describe('page walk', () => {
  it('a clean walk: no duplicates, no gaps, total equals the count', () => {
    const pages = [page(1, ids(0, 100)), page(2, ids(100, 100)), page(3, ids(200, 50))];
    const a = analyzeWalk(pages, 100);
    expect(a).toMatchObject({ count: 250, distinct: 250, duplicates: [], shortPages: [], overfullPages: [] });
    const j = judgeWalk(pages, 100, complete);
    expect(j.walk.status).toBe('passed');
    expect(j.total).toMatchObject({ status: 'passed' });
    expect(j.discovery.field).toBe('total');
  });
  it('duplicates across a page boundary (page 2 starts one item early)', () => {
    const pages = [page(1, ids(0, 100), 150), page(2, ids(99, 51), 150)];
    const a = analyzeWalk(pages, 100);
    expect(a.duplicates).toEqual([{ id: 'vm-99', pages: [1, 2] }]);
    const j = judgeWalk(pages, 100, complete);
    expect(j.walk.status).toBe('failed');
    expect(j.walk.message).toMatch(/1 ids appear more than once \(e\.g\. vm-99 on pages 1, 2\)/);
    // The total (150) is right: it counts distinct VMs; the walk check is the one that fails.
    expect(j.total.status).toBe('passed');
  });
  it('a gap: a short page before the last one', () => {
    const pages = [page(1, ids(0, 100), 240), page(2, ids(100, 90), 240), page(3, ids(200, 40), 240)];
    expect(analyzeWalk(pages, 100).shortPages).toEqual([2]);
    expect(judgeWalk(pages, 100, complete).walk.message).toMatch(/gap: page 2/);
  });
  it('a gap: the list reports more items than the walk found', () => {
    const pages = [page(1, ids(0, 100), 260), page(2, ids(100, 100), 260), page(3, ids(200, 50), 260)];
    const j = judgeWalk(pages, 100, complete);
    expect(j.walk.status).toBe('failed');
    expect(j.walk.message).toMatch(/found 250 distinct items but the list reports 260/);
    expect(j.total.status).toBe('failed');
  });
  it('an overfull page and items without ids', () => {
    const a = analyzeWalk([{ page: 1, status: 200, ids: [...ids(0, 101), undefined] }], 100);
    expect(a.overfullPages).toEqual([1]);
    expect(a.missingIds).toBe(1);
  });
  it('an incomplete walk is inconclusive (skipped)', () => {
    const j = judgeWalk([page(1, ids(0, 100))], 100, { complete: false, stoppedBecause: 'page 2 answered 500' });
    expect(j.walk.status).toBe('skipped');
    expect(j.total.status).toBe('skipped');
  });
  it('numeric ids are compared by value', () => {
    const a = analyzeWalk(
      [
        { page: 1, status: 200, ids: [1, 2] },
        { page: 2, status: 200, ids: [2] },
      ],
      2
    );
    expect(a.duplicates).toEqual([{ id: '2', pages: [1, 2] }]);
  });
});

describe('total-field discovery', () => {
  const bodies = (make: (p: number) => Record<string, unknown>) => [1, 2, 3].map(make);
  it('finds total at the top level', () => {
    expect(
      discoverTotalField(
        bodies(() => ({ vms: [], total: 250, page: 1 })),
        250
      )
    ).toMatchObject({ field: 'total', declared: false });
  });
  it('finds count one level down, and names containing total', () => {
    expect(
      discoverTotalField(
        bodies(() => ({ vms: [], meta: { count: 250 } })),
        250
      ).field
    ).toBe('meta.count');
    expect(
      discoverTotalField(
        bodies(() => ({ vms: [], total_count: 250 })),
        250
      ).field
    ).toBe('total_count');
  });
  it('prefers exact names, but takes the one that equals the walked count', () => {
    expect(totalCandidatePaths({ total_items: 3, total: 4, meta: { count: 5 } })).toEqual([
      'total',
      'meta.count',
      'total_items',
    ]);
    expect(
      discoverTotalField(
        bodies(() => ({ total: 100, total_items: 250 })),
        250
      ).field
    ).toBe('total_items');
  });
  it('rejects a total that changes across pages (items on this page)', () => {
    const d = discoverTotalField([{ total: 100 }, { total: 100 }, { total: 50 }], 250);
    expect(d.field).toBeUndefined();
    expect(d.message).toMatch(/total changes across pages/);
  });
  it('rejects a total that differs from the walked count, and non-integers', () => {
    expect(
      discoverTotalField(
        bodies(() => ({ total: 249 })),
        250
      ).message
    ).toMatch(/total is 249 but the walk found 250/);
    expect(
      discoverTotalField(
        bodies(() => ({ total: 250.5 })),
        250
      ).field
    ).toBeUndefined();
    expect(
      discoverTotalField(
        bodies(() => ({ total: '250' })),
        250
      ).message
    ).toMatch(/no integer field/);
  });
  it('no candidate at all', () => {
    expect(
      discoverTotalField(
        bodies(() => ({ vms: [], page: 1 })),
        0
      ).message
    ).toMatch(/no integer field named total or count/);
  });
  it('a declared field (CONFORMANCE_TOTAL_FIELD) is the only one considered', () => {
    expect(
      discoverTotalField(
        bodies(() => ({ total: 250, meta: { n: 250 } })),
        250,
        'meta.n'
      )
    ).toMatchObject({ field: 'meta.n', declared: true });
    expect(
      discoverTotalField(
        bodies(() => ({ total: 250 })),
        250,
        'meta.n'
      ).field
    ).toBeUndefined();
  });
});

describe('per_page at and above the maximum', () => {
  const long = { atLeast: 130, complete: true };
  const cases: Array<[number, number, number | undefined, string]> = [
    [100, 200, 100, 'passed'],
    [100, 200, 42, 'passed'],
    [100, 400, undefined, 'failed'],
    [100, 200, 101, 'failed'],
    [100, 200, undefined, 'failed'],
    [101, 200, 100, 'passed'],
    [101, 201, 100, 'passed'],
    [101, 400, undefined, 'passed'],
    [101, 422, undefined, 'passed'],
    [101, 200, 101, 'failed'],
    [101, 500, undefined, 'failed'],
    [1000, 200, 1000, 'failed'],
    [1000, 400, undefined, 'passed'],
    [1000, 0, undefined, 'failed'],
    [1000, 429, undefined, 'failed'],
  ];
  for (const [perPage, status, items, expected] of cases) {
    it(`per_page=${perPage}, ${status}, ${items ?? 'no'} items, on a list of 130 → ${expected}`, () => {
      const r = judgePerPage(perPage, status, items, long);
      expect(r.status).toBe(expected);
      expect(r).toMatchObject({ id: `pagination.per-page-${perPage}`, clauses: ['PAGE-MAX-100'], level: 'must' });
    });
  }
  it('the documented maximum is 100', () => expect(PER_PAGE_MAX).toBe(100));

  // On a list of 100 items or fewer, at most 100 items cannot be told from honouring per_page=101.
  const short: Array<[string, { atLeast: number; complete: boolean } | undefined, RegExp]> = [
    [
      'a list of 3',
      { atLeast: 3, complete: true },
      /the list holds only 3 items; it needs more than 100: create 98 more VMs/,
    ],
    ['a list of exactly 100', { atLeast: 100, complete: true }, /holds only 100 items.*create 1 more VMs/],
    [
      'a walk that stopped at 100',
      { atLeast: 100, complete: false },
      /the walk stopped before showing that the list holds more than 100 items \(100 seen\)/,
    ],
    ['an unknown list', undefined, /the walk stopped before showing/],
  ];
  for (const [name, list, message] of short) {
    it(`per_page=101 and 1000 served in full on ${name} → inconclusive, saying what the list needs`, () => {
      const items = list ? Math.min(list.atLeast, 100) : 3;
      for (const perPage of [101, 1000]) {
        const r = judgePerPage(perPage, 200, items, list);
        expect(r.status).toBe('skipped');
        expect(r.message).toMatch(message);
      }
    });
  }
  it('on a short list a refusal still passes and more than 100 items still fails', () => {
    const tiny = { atLeast: 3, complete: true };
    expect(judgePerPage(101, 400, undefined, tiny).status).toBe('passed');
    expect(judgePerPage(1000, 200, 101, tiny).status).toBe('failed');
  });
  it('shortListReason: more than 100 items is enough, known or not', () => {
    expect(shortListReason({ atLeast: 101, complete: false })).toBeUndefined();
    expect(shortListReason({ atLeast: 130, complete: true })).toBeUndefined();
    expect(shortListReason({ atLeast: 0, complete: true })).toMatch(/create 101 more VMs/);
  });
});

describe('a list that fits on one page', () => {
  const one = (n: number, total: unknown = n) => [page(1, ids(0, n), total)];
  it('the walk and the total are inconclusive, never passed, and say what the list needs', () => {
    const j = judgeWalk(one(3), 100, complete);
    expect(j.walk.status).toBe('skipped');
    expect(j.walk.message).toMatch(
      /page boundaries were never crossed: the list holds only 3 items; it needs more than 100/
    );
    expect(j.total.status).toBe('skipped');
    expect(j.total.message).toMatch(/total field total \(discovered\) = 3, but on one page/);
    expect(j.list).toEqual({ atLeast: 3, complete: true });
  });
  it('100 items and an empty second page: still one page of items', () => {
    const j = judgeWalk([page(1, ids(0, 100), 100), page(2, [], 100)], 100, complete);
    expect(j.walk.status).toBe('skipped');
    expect(j.total.status).toBe('skipped');
  });
  it('what fails on a short list still fails', () => {
    expect(judgeWalk([{ page: 1, status: 200, ids: ['a', 'a'], body: { total: 2 } }], 100, complete).walk.status).toBe(
      'failed'
    );
    expect(judgeWalk(one(3, 7), 100, complete).total.status).toBe('failed');
    expect(judgeWalk(one(3, 7), 100, complete).walk.message).toMatch(/found 3 distinct items but the list reports 7/);
  });
  it('an empty list: inconclusive', () => {
    const j = judgeWalk(one(0), 100, complete);
    expect([j.walk.status, j.total.status]).toEqual(['skipped', 'skipped']);
  });
});

describe('k6 check names carry results to handleSummary', () => {
  it('round-trips passed, failed and skipped checks', () => {
    const results: CheckResult[] = [
      judgePerPage(100, 200, 100),
      judgePerPage(101, 200, 101),
      {
        id: 'pagination.walk',
        clauses: ['PAGE-PARAMS'],
        level: 'must',
        status: 'skipped',
        message: 'the walk did not reach the last page: page 2: 500',
      },
    ];
    const group = {
      name: '',
      groups: [{ name: 'inner', checks: [{ name: checkName(results[2]!), passes: 0, fails: 1 }] }],
      checks: [
        { name: checkName(results[0]!), passes: 1, fails: 0 },
        { name: checkName(results[1]!), passes: 0, fails: 1 },
      ],
    };
    const back = checkResultsFromK6(group);
    expect(back.map((c) => [c.id, c.status, c.clauses[0]])).toEqual([
      ['pagination.per-page-100', 'passed', 'PAGE-MAX-100'],
      ['pagination.per-page-101', 'failed', 'PAGE-MAX-100'],
      ['pagination.walk', 'skipped', 'PAGE-PARAMS'],
    ]);
    expect(back[1]!.message).toBe(results[1]!.message);
  });
});

describe('a stopped test: its cause travels to handleSummary as the name of a failed check', () => {
  it('check names never hold "::", which k6 refuses (it would throw where the scripts report)', () => {
    expect(k6CheckName('dial tcp [::1]:8080: connect: connection refused')).toBe(
      'dial tcp [: :1]:8080: connect: connection refused'
    );
    expect(
      abortCheckName('token issuance for reads failed with status none (no response) (dial tcp [::1]:1)')
    ).not.toContain('::');
    expect(
      checkName({ id: 'pagination.walk', clauses: [], level: 'must', status: 'failed', message: 'id a::b twice' })
    ).toBe('pagination.walk: id a: :b twice');
  });

  const aborted = { name: abortCheckName('token issuance for reads failed with status 401'), passes: 0, fails: 1 };
  const vuAborted = {
    name: abortCheckName('setup data were made for execution segment 0:1 but this instance runs 0:1/2'),
    passes: 0,
    fails: 1,
  };
  const cases: Array<
    [
      string,
      { name: string; checks: (typeof aborted)[]; groups: Array<{ name: string; checks: (typeof aborted)[] }> },
      boolean,
      ReturnType<typeof runErrorFromK6>,
    ]
  > = [
    [
      'setup() aborted with a cause',
      { name: '', checks: [], groups: [{ name: 'setup', checks: [aborted] }] },
      false,
      { where: 'setup', message: 'token issuance for reads failed with status 401' },
    ],
    [
      'setup() did not complete and left no cause',
      { name: '', checks: [], groups: [{ name: 'setup', checks: [] }] },
      false,
      { where: 'setup', message: SETUP_INCOMPLETE },
    ],
    [
      'a VU stopped the test after setup()',
      { name: '', checks: [vuAborted], groups: [{ name: 'setup', checks: [] }] },
      true,
      { where: 'run', message: 'setup data were made for execution segment 0:1 but this instance runs 0:1/2' },
    ],
    [
      'the test ran to its end',
      {
        name: '',
        checks: [{ name: 'pagination.walk: fine', passes: 1, fails: 0 }],
        groups: [{ name: 'setup', checks: [] }],
      },
      true,
      undefined,
    ],
  ];
  for (const [name, group, setupCompleted, expected] of cases) {
    it(`${name}: ${expected ? `${expected.where}, ${expected.message.slice(0, 40)}…` : 'no error'}`, () => {
      expect(runErrorFromK6(group, setupCompleted)).toEqual(expected);
    });
  }

  it('abort checks are no check results', () => {
    expect(
      checkResultsFromK6({ name: '', checks: [vuAborted, { name: 'pagination.walk: fine', passes: 1, fails: 0 }] }).map(
        (c) => c.id
      )
    ).toEqual(['pagination.walk']);
  });
});

describe('traffic figures from the summary data', () => {
  it('per scenario and for the run: requests, 429s and their share, p50/p90/p95/p99/max of http_req_duration', () => {
    const reads = trafficMetricNames('reads_over');
    const all = trafficMetricNames();
    expect(reads).toEqual({
      requests: 'http_reqs{scenario:reads_over}',
      status429: 'http_reqs{scenario:reads_over,status:429}',
      duration: 'http_req_duration{scenario:reads_over}',
    });
    expect(all).toEqual({ requests: 'http_reqs', status429: 'http_reqs{status:429}', duration: 'http_req_duration' });
    const trend = {
      'p(50)': 2.0811,
      'p(90)': 5.24,
      'p(95)': 7.26,
      'p(99)': 16.9,
      max: 40.6127,
      avg: 3,
      min: 1,
      med: 2.0811,
    };
    const metrics = {
      [reads.requests]: { values: { count: 660 } },
      [reads.status429]: { values: { count: 60 } },
      [reads.duration]: { values: trend },
      [all.requests]: { values: { count: 700 } },
      [all.duration]: { values: trend },
    };
    // Real ms as k6 measures them, and target seconds at the run's time scale (60: 2.081 real ms are 0.125 target s).
    const latencyTargetSeconds = { p50: 0.125, p90: 0.314, p95: 0.436, p99: 1.014, max: 2.437 };
    expect(trafficFromMetrics(metrics, ['reads_over', 'writes_over'], 60)).toEqual({
      all: {
        requests: 700,
        status429: 0,
        share429: 0,
        latencyMs: { p50: 2.081, p90: 5.24, p95: 7.26, p99: 16.9, max: 40.613 },
        latencyTargetSeconds,
      },
      scenarios: {
        reads_over: {
          requests: 660,
          status429: 60,
          share429: 60 / 660,
          latencyMs: { p50: 2.081, p90: 5.24, p95: 7.26, p99: 16.9, max: 40.613 },
          latencyTargetSeconds,
        },
        writes_over: {
          requests: 0,
          status429: 0,
          share429: null,
          latencyMs: { p50: null, p90: null, p95: null, p99: null, max: null },
          latencyTargetSeconds: { p50: null, p90: null, p95: null, p99: null, max: null },
        },
      },
      timeScale: 60,
    });
  });
});

// ---------------------------------------------------------------- reports

/** A small XML 1.0 well-formedness checker (elements, attributes, entities, one root); returns the elements. */
function parseXml(xml: string): Array<{ name: string; attrs: Record<string, string>; depth: number; parent?: string }> {
  const elements: Array<{ name: string; attrs: Record<string, string>; depth: number; parent?: string }> = [];
  const stack: string[] = [];
  let roots = 0;
  const NAME = '[A-Za-z_][A-Za-z0-9_.:-]*';
  const checkText = (t: string) => {
    if (/[<]/.test(t)) throw new Error(`raw < in text: ${t.slice(0, 40)}`);
    for (const m of t.matchAll(/&([^;]*);?/g))
      if (!/^(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+)$/.test(m[1]!) || !m[0].endsWith(';'))
        throw new Error(`bad entity ${m[0]}`);
  };
  let rest = xml.replace(/^<\?xml[^?]*\?>/, '');
  while (rest.length) {
    const lt = rest.indexOf('<');
    if (lt < 0) {
      if (rest.trim()) throw new Error('text after the root element');
      break;
    }
    const text = rest.slice(0, lt);
    if (stack.length === 0 && text.trim()) throw new Error('text outside the root element');
    checkText(text);
    rest = rest.slice(lt);
    const close = new RegExp(`^</(${NAME})\\s*>`).exec(rest);
    if (close) {
      if (stack.pop() !== close[1]) throw new Error(`mismatched </${close[1]}>`);
      rest = rest.slice(close[0].length);
      continue;
    }
    const open = new RegExp(`^<(${NAME})((?:\\s+${NAME}\\s*=\\s*"[^"<]*")*)\\s*(/?)>`).exec(rest);
    if (!open) throw new Error(`malformed markup at: ${rest.slice(0, 60)}`);
    const attrs: Record<string, string> = {};
    for (const a of open[2]!.matchAll(new RegExp(`(${NAME})\\s*=\\s*"([^"<]*)"`, 'g'))) {
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
      checkText(a[2]!);
      attrs[a[1]!] = a[2]!;
    }
    if (stack.length === 0) roots++;
    elements.push({ name: open[1]!, attrs, depth: stack.length, parent: stack[stack.length - 1] });
    if (!open[3]) stack.push(open[1]!);
    rest = rest.slice(open[0].length);
  }
  if (stack.length) throw new Error(`unclosed <${stack[stack.length - 1]}>`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return elements;
}

describe('reports', () => {
  const checks: CheckResult[] = [
    limitCheck('reads', judgeProbe(300, [{ sent: 330, accepted: 300, refused: 30 }])),
    limitCheck('writes', judgeProbe(60, [{ sent: 66, accepted: 66, refused: 0 }])),
    limitCheck('tokens', judgeProbe(10, [{ sent: 4, accepted: 4, refused: 0 }])),
    {
      id: 'pagination.walk',
      clauses: ['PAGE-PARAMS'],
      level: 'must',
      status: 'failed',
      message: 'ids <a> & "b" \'c\' \u0001 appear twice ]]>',
    },
  ];
  const summary = buildSummary({
    script: 'rate-limits.js',
    baseUrl: 'http://127.0.0.1:1234',
    timeScale: 10,
    segment: '0:1',
    checks,
    thresholds: [],
    durationMs: 12_345,
  });

  it('verdict: nonconformant on a failed must check, inconclusive when only skips, conformant otherwise', () => {
    expect(summary.verdict).toBe('nonconformant');
    expect(summary.summary).toEqual({ passed: 1, failed: 2, skipped: 1 });
    expect(
      buildSummary({
        script: 'x',
        baseUrl: 'u',
        timeScale: 1,
        segment: '0:1',
        checks: [checks[0]!, checks[2]!],
        thresholds: [],
      }).verdict
    ).toBe('inconclusive');
    expect(
      buildSummary({ script: 'x', baseUrl: 'u', timeScale: 1, segment: '0:1', checks: [checks[0]!], thresholds: [] })
        .verdict
    ).toBe('conformant');
    expect(
      buildSummary({ script: 'x', baseUrl: 'u', timeScale: 1, segment: '0:1', checks: [], thresholds: [] }).verdict
    ).toBe('inconclusive');
  });

  it('JUnit XML is well-formed with one testcase per check', () => {
    const xml = renderJUnit(summary);
    const els = parseXml(xml);
    const cases = els.filter((e) => e.name === 'testcase');
    expect(cases).toHaveLength(checks.length);
    expect(cases.every((c) => c.parent === 'testsuite')).toBe(true);
    expect(cases.map((c) => c.attrs['name'])).toEqual([
      'limits.reads [must] LIMIT-READ-300',
      'limits.writes [must] LIMIT-WRITE-60',
      'limits.tokens [must] LIMIT-TOKEN-10',
      'pagination.walk [must] PAGE-PARAMS',
    ]);
    expect(els.filter((e) => e.name === 'failure')).toHaveLength(2);
    expect(els.filter((e) => e.name === 'skipped')).toHaveLength(1);
    const suite = els.find((e) => e.name === 'testsuite')!;
    expect(suite.attrs).toMatchObject({ tests: '4', failures: '2', skipped: '1', errors: '0', time: '12.345' });
    expect(xml).not.toContain('\u0001');
  });

  it('a stopped test: verdict error whatever the checks say, and JUnit counts it as an error test case named with its cause', () => {
    const error = { where: 'setup' as const, message: 'token issuance for reads failed with status <401> & "more"' };
    const stopped = buildSummary({
      script: 'rate-limits.js',
      baseUrl: 'http://h',
      timeScale: 1,
      segment: 'unknown',
      checks: [checks[0]!],
      thresholds: [],
      error,
    });
    expect(stopped).toMatchObject({ verdict: 'error', error });
    expect(summary.error).toBeNull();
    const els = parseXml(renderJUnit(stopped));
    expect(els.find((e) => e.name === 'testsuite')!.attrs).toMatchObject({ tests: '2', failures: '0', errors: '1' });
    const cases = els.filter((e) => e.name === 'testcase');
    expect(cases.map((c) => c.attrs['name'])).toEqual([
      `setup() aborted: token issuance for reads failed with status &lt;401&gt; &amp; &quot;more&quot;`,
      'limits.reads [must] LIMIT-READ-300',
    ]);
    expect(els.filter((e) => e.name === 'error').map((e) => [e.parent, e.attrs['type']])).toEqual([
      ['testcase', 'aborted'],
    ]);
  });

  it('escapeXml covers markup characters and characters XML cannot carry', () => {
    expect(escapeXml('<a href="x">&\'</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    expect(escapeXml('a\u0000b\u001fc\td')).toBe('a\uFFFDb\uFFFDc\td');
  });

  it('outputs are redacted: keys and tokens never appear, not even XML-escaped', () => {
    const secret = 'key&<secret>-123';
    const token = 'eyJhbGciOi.payload.sig';
    const leaky = buildSummary({
      script: 'pagination.js',
      baseUrl: 'http://h',
      timeScale: 1,
      segment: '0:1',
      thresholds: [],
      checks: [
        { id: 'pagination.walk', clauses: [], level: 'must', status: 'failed', message: `bad ${secret} and ${token}` },
      ],
      details: { [token]: secret },
    });
    const out = summaryOutputs(leaky, [secret, token, undefined, '']);
    // Never in the working directory itself (the repository root when run from a checkout).
    expect(Object.keys(out).sort()).toEqual(['k6-out/junit.xml', 'k6-out/summary.json', 'stdout']);
    for (const text of Object.values(out)) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(escapeXml(secret));
      expect(text).not.toContain(token);
      expect(text).toContain('[REDACTED]');
    }
    expect(JSON.parse(out['k6-out/summary.json']!)).toMatchObject({ verdict: 'nonconformant' });
    parseXml(out['k6-out/junit.xml']!);
    expect(summaryOutputs(leaky, [], { json: 'out/s.json', junit: 'out/j.xml' })).toHaveProperty('out/j.xml');
    expect(redact('aaa', ['a', 'aa'])).toBe('[REDACTED][REDACTED]');
  });
});

// ---------------------------------------------------------------- configuration

describe('readConfig', () => {
  it('reads the CLI variables with defaults', () => {
    expect(readConfig({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:8080/', CONFORMANCE_API_KEY: 'k' })).toEqual({
      baseUrl: 'http://127.0.0.1:8080',
      apiKey: 'k',
      apiKeyB: undefined,
      timeScale: 1,
      windows: 2,
      segments: 1,
      totalField: undefined,
      maxPages: 200,
      outDir: 'k6-out',
      summaryJson: undefined,
      junit: undefined,
    });
    expect(
      readConfig({
        CONFORMANCE_BASE_URL: 'https://api.example.com',
        CONFORMANCE_API_KEY: 'k',
        CONFORMANCE_API_KEY_B: 'b',
        CONFORMANCE_TIME_SCALE: '10',
        CONFORMANCE_SEGMENTS: '3',
        CONFORMANCE_TOTAL_FIELD: 'meta.total',
      })
    ).toMatchObject({ apiKeyB: 'b', timeScale: 10, segments: 3, totalField: 'meta.total' });
  });
  it('reports go to CONFORMANCE_OUT_DIR (k6-out by default); explicit paths win', () => {
    const base = { CONFORMANCE_BASE_URL: 'http://h', CONFORMANCE_API_KEY: 'k' };
    expect(reportPaths(readConfig(base))).toEqual({ json: 'k6-out/summary.json', junit: 'k6-out/junit.xml' });
    expect(reportPaths(readConfig({ ...base, CONFORMANCE_OUT_DIR: '/tmp/out/' }))).toEqual({
      json: '/tmp/out/summary.json',
      junit: '/tmp/out/junit.xml',
    });
    expect(reportPaths(readConfig({ ...base, CONFORMANCE_JUNIT: 'reports/k6.xml' }))).toEqual({
      json: 'k6-out/summary.json',
      junit: 'reports/k6.xml',
    });
  });
  it('refuses bad settings without echoing secrets', () => {
    expect(() => readConfig({ CONFORMANCE_API_KEY: 'sekrit' })).toThrow(/CONFORMANCE_BASE_URL/);
    expect(() => readConfig({ CONFORMANCE_BASE_URL: 'http://h' })).toThrow(/CONFORMANCE_API_KEY must be set/);
    expect(() =>
      readConfig({ CONFORMANCE_BASE_URL: 'http://h', CONFORMANCE_API_KEY: 'sekrit', CONFORMANCE_TIME_SCALE: '0' })
    ).toThrow(/TIME_SCALE/);
    expect(() =>
      readConfig({ CONFORMANCE_BASE_URL: 'http://h', CONFORMANCE_API_KEY: 'sekrit', CONFORMANCE_SEGMENTS: '1.5' })
    ).toThrow(/whole number/);
    try {
      readConfig({ CONFORMANCE_BASE_URL: 'ftp://h', CONFORMANCE_API_KEY: 'sekrit' });
    } catch (e) {
      expect(String(e)).not.toContain('sekrit');
    }
  });
});

// ---------------------------------------------------------------- token issuance and the k6 version

describe('issuanceOutcome: any 2xx with a token is an issued token (the seed shows no status)', () => {
  const body = JSON.stringify({ token: 'eyJ.a.b', expires_in: 3600 });
  const cases: Array<[number, string | null, string | undefined, string, RegExp?]> = [
    [200, body, undefined, 'token'],
    [201, body, undefined, 'token'],
    [202, body, undefined, 'token'],
    [201, '{"access_token":"x"}', undefined, 'error', /answered 201 without a token field/],
    [204, null, undefined, 'error', /answered 204 without a token field/],
    [200, 'not json', undefined, 'error', /without a token field/],
    [429, '{}', '30', 'wait', /Retry-After says 3\.00 s/],
    [429, '{}', undefined, 'error', /429 and no readable Retry-After/],
    [401, '{"error":{"code":"unauthenticated"}}', undefined, 'error', /failed with status 401/],
    [500, 'oops', undefined, 'error', /failed with status 500/],
    [0, null, undefined, 'error', /no response/],
  ];
  for (const [status, text, retryAfter, kind, message] of cases) {
    it(`${status}${retryAfter ? ` (Retry-After ${retryAfter})` : ''} → ${kind}`, () => {
      const o = issuanceOutcome(status, text, retryAfter, 10);
      expect(o.kind).toBe(kind);
      if (o.kind === 'token') expect(o.token).toBe('eyJ.a.b');
      if (message && o.kind !== 'token') expect(o.message).toMatch(message);
      if (o.kind === 'wait') expect(o.seconds).toBe(3);
    });
  }
  it('never puts the body in a message', () => {
    const o = issuanceOutcome(400, '{"api_key":"ck_secret"}', undefined, 1);
    expect(JSON.stringify(o)).not.toContain('ck_secret');
  });
});

describe('k6 version: the scripts look for the APIs they call', () => {
  const all = {
    'http.expectedStatuses': true,
    'http.setResponseCallback': true,
    'exec.test.abort': true,
    'exec.test.options': true,
  };
  it('a k6 with every API passes', () => expect(k6FeatureProblem(all)).toBeUndefined());
  it('k6 v0.37 (no exec.test.options) is told the minimum in one line', () => {
    expect(k6FeatureProblem({ ...all, 'exec.test.options': false })).toBe(
      'these scripts need k6 v0.38.0 or later; this k6 lacks exec.test.options (k6 v0.38.0)'
    );
  });
  it('older ones list what is missing', () => {
    expect(k6FeatureProblem({})).toMatch(
      /lacks http\.expectedStatuses \(k6 v0\.31\.0\), http\.setResponseCallback .*, exec\.test\.abort \(k6 v0\.37\.0\), exec\.test\.options/
    );
  });
});
