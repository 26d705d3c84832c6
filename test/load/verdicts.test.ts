// Verdict logic of the k6 load scripts (load/lib): limit windows, segments, page walks, total discovery, reports.
// k6 itself cannot run here; everything the scripts decide is in these pure modules.
import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  PER_PAGE_MAX,
  analyzeWalk,
  checkName,
  checkResultsFromK6,
  classifyStatus,
  discoverTotalField,
  judgePerPage,
  judgeProbe,
  judgeWalk,
  judgeWindow,
  k6Duration,
  limitCheck,
  parseSegment,
  probePlan,
  probeThresholds,
  readConfig,
  retryAfterRealSeconds,
  segmentMismatch,
  slotAt,
  submetricName,
  tokenScenarioWindows,
  tokenTurnWindow,
  totalCandidatePaths,
  windowCountsFromMetrics,
  windowMetricNames,
  windowRealMs,
  type CheckResult,
  type ProbeName,
  type WalkPage,
  type WindowCounts,
} from '../../load/lib/verdicts.js';
import { buildSummary, escapeXml, redact, renderJUnit, summaryOutputs, thresholdResults } from '../../load/lib/report.js';
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
      ['refused before the limit in an unfilled window', { sent: L - 1, accepted: L - 3, refused: 2 }, 'stricter'],
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
    ['looser beats an unfilled window', [unfilled, looser], 'looser'],
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
    expect(limitCheck('reads', judgeProbe(300, [{ sent: 330, accepted: 300, refused: 30 }]))).toMatchObject({ id: 'limits.reads', clauses: ['LIMIT-READ-300'], status: 'passed', verdict: 'pass' });
    expect(limitCheck('writes', judgeProbe(60, [looser]))).toMatchObject({ clauses: ['LIMIT-WRITE-60'], status: 'failed', verdict: 'looser' });
    expect(limitCheck('tokens', judgeProbe(10, [{ sent: 11, accepted: 9, refused: 2 }]))).toMatchObject({ clauses: ['LIMIT-TOKEN-10'], status: 'failed', verdict: 'stricter' });
    expect(limitCheck('tokens', judgeProbe(10, [{ sent: 5, accepted: 5, refused: 0 }]))).toMatchObject({ status: 'skipped', verdict: 'inconclusive' });
  });
});

describe('classifyStatus', () => {
  const cases: Array<[ProbeName, number, string]> = [
    ['reads', 200, 'accepted'], ['reads', 429, 'refused'], ['reads', 400, 'refused'], ['reads', 503, 'refused'], ['reads', 0, 'unanswered'],
    ['writes', 400, 'accepted'], ['writes', 422, 'accepted'], ['writes', 202, 'accepted'], ['writes', 429, 'refused'], ['writes', 401, 'refused'], ['writes', 0, 'unanswered'],
    ['tokens', 200, 'accepted'], ['tokens', 429, 'refused'], ['tokens', 400, 'refused'],
  ];
  for (const [probe, status, outcome] of cases) it(`${probe} ${status} → ${outcome}`, () => expect(classifyStatus(probe, status)).toBe(outcome));
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
    expect(probePlan(300, 10)).toMatchObject({ limit: 300, over: 30, guard: 30, slotsPerWindow: 360, windowMs: 6000 });
    expect(probePlan(60, 1)).toMatchObject({ over: 6, guard: 6, slotsPerWindow: 72, windowMs: 60_000 });
    expect(probePlan(10, 10)).toMatchObject({ over: 2, guard: 2, slotsPerWindow: 14 });
    expect(probePlan(300, 7).windowMs).toBe(8571);
  });

  it('slotAt places iterations by elapsed time', () => {
    const plan = probePlan(10, 10); // 14 slots in 6000 ms
    expect(slotAt(0, plan)).toEqual({ window: 0, position: 0, send: true, limited: false });
    expect(slotAt(9 * plan.slotMs, plan)).toMatchObject({ window: 0, position: 9, send: true, limited: false });
    expect(slotAt(10 * plan.slotMs + 1, plan)).toMatchObject({ position: 10, send: true, limited: true });
    expect(slotAt(12 * plan.slotMs, plan)).toMatchObject({ position: 12, send: false });
    expect(slotAt(13 * plan.slotMs + 5, plan)).toMatchObject({ position: 13, send: false });
    expect(slotAt(6000, plan)).toMatchObject({ window: 1, position: 0, send: true });
    expect(slotAt(6000 + 3 * plan.slotMs - 3, plan)).toMatchObject({ window: 1, position: 3 });
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
      [0, -1, -1], [1, -1, -1], [-1, -1, -1],
      [-1, 0, -1], [-1, 1, -1], [-1, -1, -1],
      [-1, -1, 0], [-1, -1, 1],
    ]);
  });
});

/**
 * Simulates a probe against the reference target's own limiter (fixed windows that start at the first hit): the
 * schedule the k6 scenario follows, a latency per request, and the script's window attribution.
 */
function simulate(limit: number, targetLimit: number, opts: { timeScale?: number; windows?: number; latency?: (i: number) => number; segments?: number } = {}): WindowCounts[] {
  const scale = opts.timeScale ?? 10;
  const windows = opts.windows ?? 2;
  const plan = probePlan(limit, scale);
  let now = 0;
  const clock = { scale, now: () => Math.floor(now * scale), nowSeconds: () => Math.floor((now * scale) / 1000) } as unknown as VirtualClock;
  const limiter = new FixedWindowLimiter(clock, targetLimit);
  const counts: WindowCounts[] = Array.from({ length: windows }, () => ({ sent: 0, accepted: 0, refused: 0 }));
  const requests: Array<{ at: number; window: number }> = [];
  const segments = opts.segments ?? 1;
  // k6 schedules rate*segments per timeUnit and this instance (segment 0 of equal ones) gets every segments-th.
  const total = plan.slotsPerWindow * windows * segments;
  for (let g = 0; g < total; g++) {
    if (g % segments !== 0) continue;
    const scheduled = (g * plan.windowMs) / (plan.slotsPerWindow * segments);
    const slot = slotAt(scheduled, plan);
    if (!slot.send || slot.window >= windows) continue;
    requests.push({ at: scheduled + (opts.latency ? opts.latency(requests.length) : 1), window: slot.window });
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
  }
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
    expect(submetricName('http_reqs', { scenario: 'reads_over', window: 0 })).toBe('http_reqs{scenario:reads_over,window:0}');
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
    const a = analyzeWalk([{ page: 1, status: 200, ids: [1, 2] }, { page: 2, status: 200, ids: [2] }], 2);
    expect(a.duplicates).toEqual([{ id: '2', pages: [1, 2] }]);
  });
});

describe('total-field discovery', () => {
  const bodies = (make: (p: number) => Record<string, unknown>) => [1, 2, 3].map(make);
  it('finds total at the top level', () => {
    expect(discoverTotalField(bodies(() => ({ vms: [], total: 250, page: 1 })), 250)).toMatchObject({ field: 'total', declared: false });
  });
  it('finds count one level down, and names containing total', () => {
    expect(discoverTotalField(bodies(() => ({ vms: [], meta: { count: 250 } })), 250).field).toBe('meta.count');
    expect(discoverTotalField(bodies(() => ({ vms: [], total_count: 250 })), 250).field).toBe('total_count');
  });
  it('prefers exact names, but takes the one that equals the walked count', () => {
    expect(totalCandidatePaths({ total_items: 3, total: 4, meta: { count: 5 } })).toEqual(['total', 'meta.count', 'total_items']);
    expect(discoverTotalField(bodies(() => ({ total: 100, total_items: 250 })), 250).field).toBe('total_items');
  });
  it('rejects a total that changes across pages (items on this page)', () => {
    const d = discoverTotalField([{ total: 100 }, { total: 100 }, { total: 50 }], 250);
    expect(d.field).toBeUndefined();
    expect(d.message).toMatch(/total changes across pages/);
  });
  it('rejects a total that differs from the walked count, and non-integers', () => {
    expect(discoverTotalField(bodies(() => ({ total: 249 })), 250).message).toMatch(/total is 249 but the walk found 250/);
    expect(discoverTotalField(bodies(() => ({ total: 250.5 })), 250).field).toBeUndefined();
    expect(discoverTotalField(bodies(() => ({ total: '250' })), 250).message).toMatch(/no integer field/);
  });
  it('no candidate at all', () => {
    expect(discoverTotalField(bodies(() => ({ vms: [], page: 1 })), 0).message).toMatch(/no integer field named total or count/);
  });
  it('a declared field (CONFORMANCE_TOTAL_FIELD) is the only one considered', () => {
    expect(discoverTotalField(bodies(() => ({ total: 250, meta: { n: 250 } })), 250, 'meta.n')).toMatchObject({ field: 'meta.n', declared: true });
    expect(discoverTotalField(bodies(() => ({ total: 250 })), 250, 'meta.n').field).toBeUndefined();
  });
});

describe('per_page at and above the maximum', () => {
  const cases: Array<[number, number, number | undefined, string]> = [
    [100, 200, 100, 'passed'], [100, 200, 42, 'passed'], [100, 400, undefined, 'failed'], [100, 200, 101, 'failed'], [100, 200, undefined, 'failed'],
    [101, 200, 100, 'passed'], [101, 400, undefined, 'passed'], [101, 422, undefined, 'passed'], [101, 200, 101, 'failed'], [101, 500, undefined, 'failed'],
    [1000, 200, 1000, 'failed'], [1000, 400, undefined, 'passed'], [1000, 0, undefined, 'failed'], [1000, 429, undefined, 'failed'],
  ];
  for (const [perPage, status, items, expected] of cases) {
    it(`per_page=${perPage}, ${status}, ${items ?? 'no'} items → ${expected}`, () => {
      const r = judgePerPage(perPage, status, items);
      expect(r.status).toBe(expected);
      expect(r).toMatchObject({ id: `pagination.per-page-${perPage}`, clauses: ['PAGE-MAX-100'], level: 'must' });
    });
  }
  it('the documented maximum is 100', () => expect(PER_PAGE_MAX).toBe(100));
});

describe('k6 check names carry results to handleSummary', () => {
  it('round-trips passed, failed and skipped checks', () => {
    const results: CheckResult[] = [
      judgePerPage(100, 200, 100),
      judgePerPage(101, 200, 101),
      { id: 'pagination.walk', clauses: ['PAGE-PARAMS'], level: 'must', status: 'skipped', message: 'the walk did not reach the last page: page 2: 500' },
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

// ---------------------------------------------------------------- reports

/** A small XML 1.0 well-formedness checker (elements, attributes, entities, one root); returns the elements. */
function parseXml(xml: string): Array<{ name: string; attrs: Record<string, string>; depth: number; parent?: string }> {
  const elements: Array<{ name: string; attrs: Record<string, string>; depth: number; parent?: string }> = [];
  const stack: string[] = [];
  let roots = 0;
  const NAME = '[A-Za-z_][A-Za-z0-9_.:-]*';
  const checkText = (t: string) => {
    if (/[<]/.test(t)) throw new Error(`raw < in text: ${t.slice(0, 40)}`);
    for (const m of t.matchAll(/&([^;]*);?/g)) if (!/^(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+)$/.test(m[1]!) || !m[0].endsWith(';')) throw new Error(`bad entity ${m[0]}`);
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
    { id: 'pagination.walk', clauses: ['PAGE-PARAMS'], level: 'must', status: 'failed', message: 'ids <a> & "b" \'c\' \u0001 appear twice ]]>' },
  ];
  const summary = buildSummary({ script: 'rate-limits.js', baseUrl: 'http://127.0.0.1:1234', timeScale: 10, segment: '0:1', checks, thresholds: [], durationMs: 12_345 });

  it('verdict: nonconformant on a failed must check, inconclusive when only skips, conformant otherwise', () => {
    expect(summary.verdict).toBe('nonconformant');
    expect(summary.summary).toEqual({ passed: 1, failed: 2, skipped: 1 });
    expect(buildSummary({ script: 'x', baseUrl: 'u', timeScale: 1, segment: '0:1', checks: [checks[0]!, checks[2]!], thresholds: [] }).verdict).toBe('inconclusive');
    expect(buildSummary({ script: 'x', baseUrl: 'u', timeScale: 1, segment: '0:1', checks: [checks[0]!], thresholds: [] }).verdict).toBe('conformant');
    expect(buildSummary({ script: 'x', baseUrl: 'u', timeScale: 1, segment: '0:1', checks: [], thresholds: [] }).verdict).toBe('inconclusive');
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

  it('escapeXml covers markup characters and characters XML cannot carry', () => {
    expect(escapeXml('<a href="x">&\'</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    expect(escapeXml('a\u0000b\u001fc\td')).toBe('a\uFFFDb\uFFFDc\td');
  });

  it('outputs are redacted: keys and tokens never appear, not even XML-escaped', () => {
    const secret = 'key&<secret>-123';
    const token = 'eyJhbGciOi.payload.sig';
    const leaky = buildSummary({
      script: 'pagination.js', baseUrl: 'http://h', timeScale: 1, segment: '0:1', thresholds: [],
      checks: [{ id: 'pagination.walk', clauses: [], level: 'must', status: 'failed', message: `bad ${secret} and ${token}` }],
      details: { [token]: secret },
    });
    const out = summaryOutputs(leaky, [secret, token, undefined, '']);
    expect(Object.keys(out).sort()).toEqual(['junit.xml', 'stdout', 'summary.json']);
    for (const text of Object.values(out)) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(escapeXml(secret));
      expect(text).not.toContain(token);
      expect(text).toContain('[REDACTED]');
    }
    expect(JSON.parse(out['summary.json']!)).toMatchObject({ verdict: 'nonconformant' });
    parseXml(out['junit.xml']!);
    expect(summaryOutputs(leaky, [], { json: 'out/s.json', junit: 'out/j.xml' })).toHaveProperty('out/j.xml');
    expect(redact('aaa', ['a', 'aa'])).toBe('[REDACTED][REDACTED]');
  });
});

// ---------------------------------------------------------------- configuration

describe('readConfig', () => {
  it('reads the CLI variables with defaults', () => {
    expect(readConfig({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:8080/', CONFORMANCE_API_KEY: 'k' })).toEqual({
      baseUrl: 'http://127.0.0.1:8080', apiKey: 'k', apiKeyB: undefined, timeScale: 1, windows: 2, segments: 1, totalField: undefined, maxPages: 200,
    });
    expect(readConfig({ CONFORMANCE_BASE_URL: 'https://api.example.com', CONFORMANCE_API_KEY: 'k', CONFORMANCE_API_KEY_B: 'b', CONFORMANCE_TIME_SCALE: '10', CONFORMANCE_SEGMENTS: '3', CONFORMANCE_TOTAL_FIELD: 'meta.total' }))
      .toMatchObject({ apiKeyB: 'b', timeScale: 10, segments: 3, totalField: 'meta.total' });
  });
  it('refuses bad settings without echoing secrets', () => {
    expect(() => readConfig({ CONFORMANCE_API_KEY: 'sekrit' })).toThrow(/CONFORMANCE_BASE_URL/);
    expect(() => readConfig({ CONFORMANCE_BASE_URL: 'http://h' })).toThrow(/CONFORMANCE_API_KEY must be set/);
    expect(() => readConfig({ CONFORMANCE_BASE_URL: 'http://h', CONFORMANCE_API_KEY: 'sekrit', CONFORMANCE_TIME_SCALE: '0' })).toThrow(/TIME_SCALE/);
    expect(() => readConfig({ CONFORMANCE_BASE_URL: 'http://h', CONFORMANCE_API_KEY: 'sekrit', CONFORMANCE_SEGMENTS: '1.5' })).toThrow(/whole number/);
    try {
      readConfig({ CONFORMANCE_BASE_URL: 'ftp://h', CONFORMANCE_API_KEY: 'sekrit' });
    } catch (e) {
      expect(String(e)).not.toContain('sekrit');
    }
  });
});
