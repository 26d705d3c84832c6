// Pure verdict logic for the k6 load scripts (rate-limits.js, pagination.js).
// No k6 imports here: vitest imports this module directly (test/load/verdicts.test.ts).
// verdicts.d.ts next to this file is generated from it (see load/README.md); a test fails when they drift.

/** The documented limits (seed section 8): requests accepted per 60-second window. */
export const LIMITS = Object.freeze({
  reads: Object.freeze({ limit: 300, scope: 'token', clause: 'LIMIT-READ-300', title: 'Read requests: 300 per minute per token' }),
  writes: Object.freeze({ limit: 60, scope: 'token', clause: 'LIMIT-WRITE-60', title: 'Write requests: 60 per minute per token' }),
  tokens: Object.freeze({ limit: 10, scope: 'API key', clause: 'LIMIT-TOKEN-10', title: 'Token issuance: 10 per minute per API key' }),
});

/** Documented maximum of per_page (seed sections 4 and 8). */
export const PER_PAGE_MAX = 100;

/** Length of a limit window in target time. */
export const WINDOW_TARGET_MS = 60_000;

/** @typedef {'reads' | 'writes' | 'tokens'} ProbeName */
/** @typedef {'pass' | 'stricter' | 'looser' | 'inconclusive'} Verdict */

// ------------------------------------------------------------------ configuration

/**
 * @typedef {object} LoadConfig
 * @property {string} baseUrl
 * @property {string} apiKey
 * @property {string | undefined} apiKeyB
 * @property {number} timeScale   target-seconds per real second
 * @property {number} windows     limit windows measured per probe
 * @property {number} segments    equal execution segments the run is split into (k6-operator parallelism)
 * @property {string | undefined} totalField  declared name (dot path) of the list's total field
 * @property {number} maxPages    bound on a page walk
 */

/**
 * Reads the scripts' settings from an environment map (k6's __ENV). Throws with a message that never
 * contains a secret value.
 * @param {Record<string, string | undefined>} env
 * @returns {LoadConfig}
 */
export function readConfig(env) {
  const baseUrl = (env.CONFORMANCE_BASE_URL ?? '').trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new Error('CONFORMANCE_BASE_URL must be set to the target API host (http:// or https://)');
  const apiKey = env.CONFORMANCE_API_KEY ?? '';
  if (!apiKey) throw new Error('CONFORMANCE_API_KEY must be set');
  const apiKeyB = env.CONFORMANCE_API_KEY_B || undefined;
  const timeScale = positiveNumber(env.CONFORMANCE_TIME_SCALE, 'CONFORMANCE_TIME_SCALE', 1);
  const windows = positiveInteger(env.CONFORMANCE_WINDOWS, 'CONFORMANCE_WINDOWS', 2);
  const segments = positiveInteger(env.CONFORMANCE_SEGMENTS, 'CONFORMANCE_SEGMENTS', 1);
  const maxPages = positiveInteger(env.CONFORMANCE_MAX_PAGES, 'CONFORMANCE_MAX_PAGES', 200);
  const totalField = env.CONFORMANCE_TOTAL_FIELD ? env.CONFORMANCE_TOTAL_FIELD.trim() : undefined;
  return { baseUrl, apiKey, apiKeyB, timeScale, windows, segments, totalField, maxPages };
}

/**
 * @param {string | undefined} raw
 * @param {string} name
 * @param {number} fallback
 */
function positiveNumber(raw, name, fallback) {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a number greater than 0 (got ${JSON.stringify(raw)})`);
  return n;
}

/**
 * @param {string | undefined} raw
 * @param {string} name
 * @param {number} fallback
 */
function positiveInteger(raw, name, fallback) {
  const n = positiveNumber(raw, name, fallback);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number (got ${JSON.stringify(raw)})`);
  return n;
}

// ------------------------------------------------------------------ window arithmetic

/**
 * Real milliseconds of one 60-target-second window under a time scale.
 * @param {number} timeScale
 */
export function windowRealMs(timeScale) {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`invalid time scale ${timeScale}`);
  return WINDOW_TARGET_MS / timeScale;
}

/**
 * A k6 duration string for real milliseconds (whole milliseconds; k6 accepts "6000ms").
 * @param {number} ms
 */
export function k6Duration(ms) {
  return `${Math.max(1, Math.round(ms))}ms`;
}

/**
 * Real seconds to wait for a Retry-After header given in target-seconds (an HTTP date is not scaled).
 * Returns undefined when the header is absent or unreadable.
 * @param {string | undefined | null} header
 * @param {number} timeScale
 * @param {number} [nowMs]  real clock, for HTTP-date values
 */
export function retryAfterRealSeconds(header, timeScale, nowMs = Date.now()) {
  if (header === undefined || header === null || String(header).trim() === '') return undefined;
  const text = String(header).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) / timeScale;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - nowMs) / 1000);
}

/**
 * @typedef {object} ProbePlan
 * @property {number} limit          documented accepted requests per window
 * @property {number} over           requests sent beyond the limit in each window ("just above" the rate)
 * @property {number} guard          idle arrival slots at the end of each window (no request sent)
 * @property {number} slotsPerWindow arrival-rate iterations per window = limit + over + guard
 * @property {number} windowMs       real length of a window
 * @property {number} slotMs         real spacing of the arrival slots
 */

/**
 * How a probe paces one limit: each window has `limit + over` requests followed by `guard` idle slots, so the
 * limit is pushed about 10% above its rate and no request is sent close to a window boundary (a request that is
 * late by less than the guard still lands in its own window; one that is early is absorbed by `over`).
 * @param {number} limit
 * @param {number} timeScale
 * @returns {ProbePlan}
 */
export function probePlan(limit, timeScale) {
  const over = Math.max(2, Math.ceil(limit / 10));
  const guard = over;
  const slotsPerWindow = limit + over + guard;
  // Whole milliseconds, the same value the scenario's timeUnit gets (k6Duration), so both clocks agree.
  const windowMs = Math.max(1, Math.round(windowRealMs(timeScale)));
  return { limit, over, guard, slotsPerWindow, windowMs, slotMs: windowMs / slotsPerWindow };
}

/**
 * @typedef {object} Slot
 * @property {number} window     window index counted from the probe's first window
 * @property {number} position   arrival slot within the window
 * @property {boolean} send      false for the guard slots
 * @property {boolean} limited   the documented limit says this request is over the allowance
 */

/**
 * Which window and slot an iteration belongs to, from the real time elapsed since the scenario started. Time,
 * not iteration counters, so dropped iterations do not shift later windows. Rounding to the nearest slot may
 * misplace an iteration by one slot at most; the guard and the surplus absorb that.
 * @param {number} elapsedMs
 * @param {ProbePlan} plan
 * @returns {Slot}
 */
export function slotAt(elapsedMs, plan) {
  const global = Math.max(0, Math.round(elapsedMs / plan.slotMs));
  const window = Math.floor(global / plan.slotsPerWindow);
  const position = global - window * plan.slotsPerWindow;
  return { window, position, send: position < plan.limit + plan.over, limited: position >= plan.limit };
}

/**
 * Total real duration of a probe of `windows` windows. The last window's guard is kept, so its
 * over-limit requests are all sent before the scenario ends.
 * @param {ProbePlan} plan
 * @param {number} windows
 */
export function probeDurationMs(plan, windows) {
  return plan.windowMs * windows;
}

// ------------------------------------------------------------------ execution segments

/**
 * @typedef {object} SegmentInfo
 * @property {number} index   0-based position of this instance's segment in the sequence
 * @property {number} count   number of segments in the sequence
 * @property {number} start   segment start as a fraction of the test
 * @property {number} end
 * @property {string} label   e.g. "0:1" or "1/3:2/3"
 */

/**
 * Parses k6's executionSegment / executionSegmentSequence options ("1/3:2/3", "0,1/3,2/3,1"; also
 * percentages and decimals). No segment means the whole test ("0:1").
 * @param {string | null | undefined} segment
 * @param {string | null | undefined} sequence
 * @returns {SegmentInfo}
 */
export function parseSegment(segment, sequence) {
  if (!segment || segment.trim() === '' || segment.trim() === '0:1' || segment.trim() === '1') {
    return { index: 0, count: 1, start: 0, end: 1, label: '0:1' };
  }
  const s = segment.trim();
  let start = 0;
  let end;
  if (s.includes(':')) {
    const [a, b] = s.split(':');
    start = fraction(a ?? '');
    end = fraction(b ?? '');
  } else {
    end = fraction(s);
  }
  if (!(end > start) || start < 0 || end > 1) throw new Error(`invalid execution segment ${JSON.stringify(segment)}`);
  /** @type {number[]} */
  let points;
  if (sequence && sequence.trim() !== '') {
    points = sequence.split(',').map((p) => fraction(p));
    if (points[0] !== 0) points.unshift(0);
    if (points[points.length - 1] !== 1) points.push(1);
  } else {
    // Without a sequence, assume equal segments of this one's length (what k6-operator hands out).
    const n = Math.round(1 / (end - start));
    points = Array.from({ length: n + 1 }, (_, i) => i / n);
  }
  const index = points.findIndex((p) => Math.abs(p - start) < 1e-9);
  if (index < 0 || index >= points.length - 1 || Math.abs((points[index + 1] ?? NaN) - end) > 1e-9) {
    throw new Error(`execution segment ${JSON.stringify(segment)} is not one of the segments of the sequence ${JSON.stringify(sequence ?? '')}`);
  }
  return { index, count: points.length - 1, start, end, label: s };
}

/** @param {string} text */
function fraction(text) {
  const t = text.trim();
  let v;
  if (t.endsWith('%')) v = Number(t.slice(0, -1)) / 100;
  else if (t.includes('/')) {
    const [n, d] = t.split('/');
    v = Number(n) / Number(d);
  } else v = Number(t);
  if (!Number.isFinite(v)) throw new Error(`invalid execution segment fraction ${JSON.stringify(text)}`);
  return v;
}

/**
 * Checks that the run is split the way the scripts were told (CONFORMANCE_SEGMENTS equal segments), because the
 * arrival rates were multiplied by that number so that each segment pushes the full limit on its own token.
 * Returns an error message, or undefined when consistent.
 * @param {SegmentInfo} seg
 * @param {number} declaredSegments
 */
export function segmentMismatch(seg, declaredSegments) {
  const length = seg.end - seg.start;
  if (Math.abs(length * declaredSegments - 1) > 1e-6) {
    return `this instance runs execution segment ${seg.label} (length ${round4(length)}), but CONFORMANCE_SEGMENTS=${declaredSegments} ` +
      `expects ${declaredSegments} equal segments of length ${round4(1 / declaredSegments)}: set CONFORMANCE_SEGMENTS to the TestRun's parallelism`;
  }
  return undefined;
}

/** @param {number} x */
function round4(x) {
  return Math.round(x * 10_000) / 10_000;
}

/**
 * The token-issuance limit is per API key, and a segment cannot get its own key, so segments take turns:
 * segment i probes the key during windows [i*(n+1), i*(n+1)+n) of the scenario and stays idle otherwise (one idle
 * window between turns lets the previous turn's window expire). Returns the window within the turn, or -1.
 * @param {number} scenarioWindow  window index since the scenario started
 * @param {number} segmentIndex
 * @param {number} windows         windows per turn
 */
export function tokenTurnWindow(scenarioWindow, segmentIndex, windows) {
  const local = scenarioWindow - segmentIndex * (windows + 1);
  return local >= 0 && local < windows ? local : -1;
}

/**
 * Windows the token-issuance scenario lasts so that every segment has its turn.
 * @param {number} segments
 * @param {number} windows
 */
export function tokenScenarioWindows(segments, windows) {
  return segments * (windows + 1) - 1;
}

// ------------------------------------------------------------------ classifying responses

/** @typedef {'accepted' | 'refused' | 'unanswered'} Outcome */

/**
 * What a response means for a limit probe. Reads and token requests are accepted on 2xx. The write probe sends an
 * invalid create body ({}), so a write is accepted (it passed the limiter and was processed) on 2xx, 400 or 422.
 * Every other status is a refusal (429 is the usual one; the seed does not show which). Status 0 means no
 * response (timeout, connection error): the target may or may not have counted it.
 * @param {ProbeName} probe
 * @param {number} status
 * @returns {Outcome}
 */
export function classifyStatus(probe, status) {
  if (!status) return 'unanswered';
  if (status >= 200 && status <= 299) return 'accepted';
  if (probe === 'writes' && (status === 400 || status === 422)) return 'accepted';
  return 'refused';
}

// ------------------------------------------------------------------ limit verdicts

/**
 * @typedef {object} WindowCounts
 * @property {number} sent
 * @property {number} accepted
 * @property {number} refused
 */

/**
 * @typedef {object} WindowVerdict
 * @property {number} window
 * @property {number} sent
 * @property {number} accepted
 * @property {number} refused
 * @property {number} unanswered
 * @property {Verdict} verdict
 * @property {string} reason
 */

/**
 * Judges one 60-target-second window of a limit probe.
 * - more than `limit` accepted: looser (the target let through more than documented);
 * - more than `limit` sent and exactly `limit` accepted: pass;
 * - fewer than `limit` accepted while refusals came before the limit could have been used up (even counting every
 *   unanswered request as accepted): stricter;
 * - otherwise inconclusive: the window was not pushed over the limit, or unanswered requests hide the count.
 * @param {number} limit
 * @param {WindowCounts} counts
 * @param {number} [index]
 * @returns {WindowVerdict}
 */
export function judgeWindow(limit, counts, index = 0) {
  const sent = nonNegative(counts.sent);
  const accepted = nonNegative(counts.accepted);
  const refused = nonNegative(counts.refused);
  const unanswered = Math.max(0, sent - accepted - refused);
  const base = { window: index, sent, accepted, refused, unanswered };
  if (accepted > limit) {
    return { ...base, verdict: 'looser', reason: `window ${index}: ${accepted} requests accepted, more than the limit of ${limit} (${sent} sent)` };
  }
  if (accepted === limit && sent > limit) {
    return { ...base, verdict: 'pass', reason: `window ${index}: exactly ${limit} of ${sent} requests accepted` };
  }
  if (refused > 0 && accepted + unanswered < limit) {
    return { ...base, verdict: 'stricter', reason: `window ${index}: only ${accepted} requests accepted before refusals began (${refused} refused of ${sent} sent); the limit is ${limit}` };
  }
  if (sent <= limit) {
    return { ...base, verdict: 'inconclusive', reason: `window ${index}: not filled, ${sent} requests sent, the limit of ${limit} was never exceeded` };
  }
  return { ...base, verdict: 'inconclusive', reason: `window ${index}: ${accepted} accepted and ${unanswered} unanswered of ${sent} sent; the unanswered requests hide whether the limit is ${limit}` };
}

/** @param {number} n */
function nonNegative(n) {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/**
 * @typedef {object} ProbeVerdict
 * @property {Verdict} verdict
 * @property {string} message
 * @property {WindowVerdict[]} windows
 */

/**
 * Judges a whole probe from its windows. Pass needs every window to pass; a looser (or stricter) window makes the
 * probe looser (stricter) unless other windows point the other way, which happens when the target's windows are
 * not aligned with the probe's (e.g. clock-aligned windows): that is inconclusive. No windows: inconclusive.
 * @param {number} limit
 * @param {WindowCounts[]} windows
 * @returns {ProbeVerdict}
 */
export function judgeProbe(limit, windows) {
  const judged = windows.map((w, i) => judgeWindow(limit, w, i));
  if (judged.length === 0) return { verdict: 'inconclusive', message: 'no window was measured', windows: judged };
  const looser = judged.filter((w) => w.verdict === 'looser');
  const stricter = judged.filter((w) => w.verdict === 'stricter');
  const inconclusive = judged.filter((w) => w.verdict === 'inconclusive');
  const summary = judged.map((w) => `${w.accepted}/${w.sent}`).join(', ');
  if (looser.length && stricter.length) {
    return {
      verdict: 'inconclusive',
      message: `windows disagree (accepted/sent per window: ${summary}): the target's windows do not line up with the probe's, e.g. they are aligned to the clock; ${looser[0]?.reason}; ${stricter[0]?.reason}`,
      windows: judged,
    };
  }
  if (looser.length) return { verdict: 'looser', message: `limit ${limit} not enforced: ${looser.map((w) => w.reason).join('; ')}`, windows: judged };
  if (stricter.length) return { verdict: 'stricter', message: `limit stricter than ${limit}: ${stricter.map((w) => w.reason).join('; ')}`, windows: judged };
  if (inconclusive.length) return { verdict: 'inconclusive', message: inconclusive.map((w) => w.reason).join('; '), windows: judged };
  return { verdict: 'pass', message: `exactly ${limit} accepted in each of ${judged.length} windows (accepted/sent: ${summary})`, windows: judged };
}

// ------------------------------------------------------------------ k6 summary metrics

/**
 * The name k6 gives a submetric: `metric{tag:value,...}` with the tags in the order given. The scripts build
 * their thresholds and read the end-of-test summary with this one function, so the names always match.
 * @param {string} metric
 * @param {Record<string, string | number>} tags
 */
export function submetricName(metric, tags) {
  const parts = Object.entries(tags).map(([k, v]) => `${k}:${v}`);
  return parts.length ? `${metric}{${parts.join(',')}}` : metric;
}

/**
 * Names of the per-window submetrics of one probe scenario.
 * @param {string} scenario
 * @param {number} window
 */
export function windowMetricNames(scenario, window) {
  return {
    sent: submetricName('http_reqs', { scenario, window }),
    accepted: submetricName('limit_accepted', { scenario, window }),
    refused: submetricName('limit_refused', { scenario, window }),
  };
}

/**
 * Thresholds of one probe scenario: in every window more than `limit` requests were sent (the limit was pushed),
 * exactly `limit` were accepted (the documented limit), and some were refused (the limit is enforced).
 * @param {string} scenario
 * @param {number} limit
 * @param {number} windows
 * @returns {Record<string, string[]>}
 */
export function probeThresholds(scenario, limit, windows) {
  /** @type {Record<string, string[]>} */
  const out = {};
  for (let w = 0; w < windows; w++) {
    const n = windowMetricNames(scenario, w);
    out[n.sent] = [`count>${limit}`];
    out[n.accepted] = [`count==${limit}`];
    out[n.refused] = ['count>0'];
  }
  return out;
}

/**
 * @typedef {object} SummaryMetric
 * @property {string} [type]
 * @property {Record<string, number>} [values]
 * @property {Record<string, { ok: boolean }>} [thresholds]
 */

/**
 * Reads a probe's per-window counts from k6's end-of-test summary data (`data.metrics`).
 * A submetric without samples is absent or has no count: it counts 0.
 * @param {Record<string, SummaryMetric | undefined>} metrics
 * @param {string} scenario
 * @param {number} windows
 * @returns {WindowCounts[]}
 */
export function windowCountsFromMetrics(metrics, scenario, windows) {
  /** @type {WindowCounts[]} */
  const out = [];
  for (let w = 0; w < windows; w++) {
    const n = windowMetricNames(scenario, w);
    out.push({ sent: countOf(metrics[n.sent]), accepted: countOf(metrics[n.accepted]), refused: countOf(metrics[n.refused]) });
  }
  return out;
}

/** @param {SummaryMetric | undefined} m */
function countOf(m) {
  const c = m?.values?.['count'];
  return typeof c === 'number' && Number.isFinite(c) ? c : 0;
}

// ------------------------------------------------------------------ pagination

/**
 * @typedef {object} WalkPage
 * @property {number} page
 * @property {number} status
 * @property {unknown[]} ids    ids of the page's items, in order
 * @property {unknown} [body]   parsed response body (for the total field)
 */

/**
 * @typedef {object} WalkAnalysis
 * @property {number} count            items over all pages
 * @property {number} distinct         distinct ids
 * @property {Array<{ id: string, pages: number[] }>} duplicates  ids seen more than once, with the pages they were on
 * @property {number[]} shortPages     pages before the last that hold fewer than per_page items (a gap)
 * @property {number[]} overfullPages  pages holding more than per_page items
 * @property {number} missingIds       items without an id
 */

/**
 * Looks for duplicates and gaps in a page walk.
 * @param {WalkPage[]} pages  in walk order
 * @param {number} perPage
 * @returns {WalkAnalysis}
 */
export function analyzeWalk(pages, perPage) {
  /** @type {Map<string, number[]>} */
  const seen = new Map();
  let count = 0;
  let missingIds = 0;
  /** @type {number[]} */
  const shortPages = [];
  /** @type {number[]} */
  const overfullPages = [];
  pages.forEach((p, i) => {
    count += p.ids.length;
    if (p.ids.length > perPage) overfullPages.push(p.page);
    const isLast = i === pages.length - 1;
    if (!isLast && p.ids.length < perPage) shortPages.push(p.page);
    for (const id of p.ids) {
      if (id === undefined || id === null) {
        missingIds++;
        continue;
      }
      const key = typeof id === 'string' ? id : JSON.stringify(id);
      const list = seen.get(key);
      if (list) list.push(p.page);
      else seen.set(key, [p.page]);
    }
  });
  /** @type {Array<{ id: string, pages: number[] }>} */
  const duplicates = [];
  for (const [id, onPages] of seen) if (onPages.length > 1) duplicates.push({ id, pages: onPages });
  return { count, distinct: seen.size, duplicates, shortPages, overfullPages, missingIds };
}

/**
 * @typedef {object} TotalDiscovery
 * @property {string | undefined} field  dot path of the total field, when one qualifies
 * @property {boolean} declared          the field came from CONFORMANCE_TOTAL_FIELD
 * @property {string} message
 * @property {Array<{ field: string, values: unknown[] }>} candidates
 */

const TOTAL_NAME = /^(total|count)$/i;
const TOTAL_LIKE = /total|count/i;

/**
 * Which field of the list response is the total count? The declared dot path when given; otherwise every field
 * named total or count (then any name containing total/count) at the top level or one object below, holding an
 * integer. A candidate qualifies when it is the same integer on every page and equals the number of distinct
 * items the walk found.
 * @param {unknown[]} bodies       parsed body of each walked page
 * @param {number} walkedCount     distinct items found by the walk
 * @param {string} [declared]      dot path, e.g. "total" or "meta.total_count"
 * @returns {TotalDiscovery}
 */
export function discoverTotalField(bodies, walkedCount, declared) {
  const objects = bodies.filter((b) => b !== null && typeof b === 'object' && !Array.isArray(b));
  const paths = declared ? [declared] : totalCandidatePaths(objects[0]);
  const candidates = paths.map((field) => ({ field, values: objects.map((b) => readPath(b, field)) }));
  if (objects.length === 0) return { field: undefined, declared: !!declared, message: 'no list response body to read a total from', candidates };
  if (candidates.length === 0) {
    return { field: undefined, declared: false, message: 'no integer field named total or count in the list response', candidates };
  }
  /** @type {string[]} */
  const problems = [];
  for (const c of candidates) {
    const problem =
      c.values.some((v) => typeof v !== 'number' || !Number.isInteger(v)) ? `${c.field} is not an integer on every page (${JSON.stringify(c.values.slice(0, 5))})`
      : new Set(c.values).size > 1 ? `${c.field} changes across pages (${JSON.stringify(c.values.slice(0, 5))})`
      : c.values[0] !== walkedCount ? `${c.field} is ${c.values[0]} but the walk found ${walkedCount} items`
      : undefined;
    if (!problem) {
      return { field: c.field, declared: !!declared, message: `total field ${c.field}${declared ? ' (declared)' : ' (discovered)'} = ${walkedCount}`, candidates };
    }
    problems.push(problem);
  }
  return { field: undefined, declared: !!declared, message: `no total field equals the walked count: ${problems.join('; ')}`, candidates };
}

/**
 * Dot paths of integer fields named like a total, exact names first.
 * @param {unknown} body
 * @returns {string[]}
 */
export function totalCandidatePaths(body) {
  /** @type {Array<{ path: string, exact: boolean, depth: number }>} */
  const found = [];
  /**
   * @param {unknown} obj
   * @param {string} prefix
   * @param {number} depth
   */
  const visit = (obj, prefix, depth) => {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || depth > 1) return;
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (typeof v === 'number' && Number.isInteger(v) && TOTAL_LIKE.test(k)) found.push({ path, exact: TOTAL_NAME.test(k), depth });
      else if (v !== null && typeof v === 'object' && !Array.isArray(v)) visit(v, path, depth + 1);
    }
  };
  visit(body, '', 0);
  found.sort((a, b) => Number(b.exact) - Number(a.exact) || a.depth - b.depth);
  return found.map((f) => f.path);
}

/**
 * @param {unknown} obj
 * @param {string} path
 * @returns {unknown}
 */
export function readPath(obj, path) {
  /** @type {unknown} */
  let cur = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = /** @type {Record<string, unknown>} */ (cur)[key];
  }
  return cur;
}

/** @typedef {'passed' | 'failed' | 'skipped'} CheckStatus */

/**
 * @typedef {object} CheckResult
 * @property {string} id
 * @property {string[]} clauses
 * @property {'must' | 'should'} level
 * @property {CheckStatus} status
 * @property {string} message
 * @property {Verdict} [verdict]
 */

/**
 * The page-walk verdict: no duplicate ids, no gaps, and a total field equal to the walked count.
 * @param {WalkPage[]} pages
 * @param {number} perPage
 * @param {{ complete: boolean, stoppedBecause: string }} outcome  whether the walk reached its last page
 * @param {string} [declaredTotal]
 * @returns {{ walk: CheckResult, total: CheckResult, analysis: WalkAnalysis, discovery: TotalDiscovery }}
 */
export function judgeWalk(pages, perPage, outcome, declaredTotal) {
  const analysis = analyzeWalk(pages, perPage);
  const discovery = discoverTotalField(pages.map((p) => p.body), analysis.distinct, declaredTotal);
  /** @type {CheckResult} */
  const walk = { id: 'pagination.walk', clauses: ['PAGE-PARAMS'], level: 'must', status: 'passed', message: '' };
  /** @type {CheckResult} */
  const total = { id: 'pagination.total', clauses: ['PAGE-TOTAL'], level: 'must', status: 'passed', message: '' };
  if (!outcome.complete) {
    walk.status = 'skipped';
    walk.message = `the walk did not reach the last page: ${outcome.stoppedBecause}`;
    total.status = 'skipped';
    total.message = walk.message;
    return { walk, total, analysis, discovery };
  }
  /** @type {string[]} */
  const problems = [];
  if (analysis.duplicates.length) {
    const d = analysis.duplicates[0];
    problems.push(`${analysis.duplicates.length} ids appear more than once (e.g. ${d?.id} on pages ${d?.pages.join(', ')})`);
  }
  if (analysis.shortPages.length) problems.push(`gap: page ${analysis.shortPages[0]} holds fewer than ${perPage} items but is not the last page`);
  if (analysis.overfullPages.length) problems.push(`page ${analysis.overfullPages[0]} holds more than ${perPage} items`);
  if (analysis.missingIds) problems.push(`${analysis.missingIds} items have no id`);
  const totalValue = discovery.field ? undefined : firstInteger(discovery.candidates);
  if (!discovery.field && totalValue !== undefined && totalValue > analysis.distinct) {
    problems.push(`gap: the walk found ${analysis.distinct} distinct items but the list reports ${totalValue}`);
  }
  walk.status = problems.length ? 'failed' : 'passed';
  walk.message = problems.length
    ? problems.join('; ')
    : `${pages.length} pages at per_page=${perPage} hold ${analysis.distinct} items, each exactly once`;
  total.status = discovery.field ? 'passed' : 'failed';
  total.message = discovery.message;
  return { walk, total, analysis, discovery };
}

/** @param {Array<{ values: unknown[] }>} candidates */
function firstInteger(candidates) {
  const v = candidates[0]?.values[0];
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

/**
 * per_page at and above the maximum: per_page=100 must be served with at most 100 items; above 100 the target
 * may clamp (at most 100 items) or reject with a 4xx, never serve more than 100 items nor fail with a 5xx.
 * @param {number} perPage
 * @param {number} status  0 when no response
 * @param {number | undefined} items  items in the page, when the body had a list
 * @returns {CheckResult}
 */
export function judgePerPage(perPage, status, items) {
  const id = `pagination.per-page-${perPage}`;
  /** @type {CheckResult} */
  const r = { id, clauses: ['PAGE-MAX-100'], level: 'must', status: 'passed', message: '' };
  const ok = status >= 200 && status <= 299;
  if (perPage <= PER_PAGE_MAX) {
    if (!ok) return { ...r, status: 'failed', message: `per_page=${perPage} (within the documented maximum) was answered ${status || 'with no response'}` };
    if (items === undefined) return { ...r, status: 'failed', message: `per_page=${perPage} answered ${status} without a vms array` };
    if (items > PER_PAGE_MAX) return { ...r, status: 'failed', message: `per_page=${perPage} returned ${items} items` };
    return { ...r, message: `per_page=${perPage} served ${items} items` };
  }
  if (ok) {
    if (items === undefined) return { ...r, status: 'failed', message: `per_page=${perPage} answered ${status} without a vms array` };
    if (items > PER_PAGE_MAX) return { ...r, status: 'failed', message: `per_page=${perPage} returned ${items} items, more than the maximum of ${PER_PAGE_MAX}` };
    return { ...r, message: `per_page=${perPage} clamped: ${items} items` };
  }
  if (status >= 400 && status <= 499 && status !== 429) return { ...r, message: `per_page=${perPage} rejected with ${status}` };
  return { ...r, status: 'failed', message: `per_page=${perPage} answered ${status || 'with no response'}, neither at most ${PER_PAGE_MAX} items nor a 4xx refusal` };
}

/**
 * The conformance check of a limit probe.
 * @param {ProbeName} probe
 * @param {ProbeVerdict} v
 * @returns {CheckResult}
 */
export function limitCheck(probe, v) {
  const def = LIMITS[probe];
  const status = v.verdict === 'pass' ? 'passed' : v.verdict === 'inconclusive' ? 'skipped' : 'failed';
  return { id: `limits.${probe}`, clauses: [def.clause], level: 'must', status, message: `${v.verdict}: ${v.message}`, verdict: v.verdict };
}

/**
 * @typedef {object} K6Group
 * @property {string} [name]
 * @property {K6Group[]} [groups]
 * @property {Array<{ name: string, passes: number, fails: number }>} [checks]
 */

/**
 * One result per k6 check() name in the summary's group tree; a check fails if any of its evaluations failed.
 * @param {K6Group | undefined} group
 * @returns {Array<{ name: string, passes: number, fails: number }>}
 */
export function k6Checks(group) {
  /** @type {Array<{ name: string, passes: number, fails: number }>} */
  const out = [];
  /** @param {K6Group | undefined} g */
  const visit = (g) => {
    if (!g) return;
    for (const c of g.checks ?? []) out.push({ name: c.name, passes: c.passes, fails: c.fails });
    for (const child of g.groups ?? []) visit(child);
  };
  visit(group);
  return out;
}

/** Clauses and level of the checks the scripts report through k6 check() names. */
export const CHECK_META = Object.freeze({
  'pagination.per-page-100': { clauses: ['PAGE-MAX-100'], level: /** @type {'must'} */ ('must') },
  'pagination.per-page-101': { clauses: ['PAGE-MAX-100'], level: /** @type {'must'} */ ('must') },
  'pagination.per-page-1000': { clauses: ['PAGE-MAX-100'], level: /** @type {'must'} */ ('must') },
  'pagination.walk': { clauses: ['PAGE-PARAMS'], level: /** @type {'must'} */ ('must') },
  'pagination.total': { clauses: ['PAGE-TOTAL'], level: /** @type {'must'} */ ('must') },
});

/**
 * The k6 check() name that carries a check's result: "<id>: <message>", or "<id>: skipped: <message>". With one
 * iteration per check, each name is evaluated once, so the name is the report line.
 * @param {CheckResult} r
 */
export function checkName(r) {
  return `${r.id}: ${r.status === 'skipped' ? 'skipped: ' : ''}${r.message}`;
}

/**
 * Check results back from k6's summary group tree (the inverse of checkName). A name evaluated several times
 * fails if any evaluation failed; names that are not "<id>: ..." keep the whole name as id.
 * @param {K6Group | undefined} group
 * @returns {CheckResult[]}
 */
export function checkResultsFromK6(group) {
  return k6Checks(group).map((c) => {
    const m = /^([A-Za-z0-9_.-]+): (skipped: )?([\s\S]*)$/.exec(c.name);
    const id = m ? (m[1] ?? c.name) : c.name;
    const message = m ? (m[3] ?? '') : c.name;
    const meta = /** @type {Record<string, { clauses: string[], level: 'must' | 'should' } | undefined>} */ (CHECK_META)[id];
    /** @type {CheckStatus} */
    const status = m && m[2] ? 'skipped' : c.fails > 0 ? 'failed' : 'passed';
    return { id, clauses: meta ? [...meta.clauses] : [], level: meta ? meta.level : 'must', status, message };
  });
}
