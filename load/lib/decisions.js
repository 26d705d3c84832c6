// @ts-check
// Pure logic of the k6 load scripts (rate-limits.js, pagination.js) that is theirs alone: settings, execution
// segments, summary metrics, pagination verdicts. The documented limits, window arithmetic, Retry-After and the limit
// verdicts are the engine's own modules (src/engine/documented-limits/), imported here and by flow.js.
// No k6 imports here: vitest imports this module directly (test/load/decisions.test.ts).
// Written in ES2015 module syntax, with built-ins that k6 v0.38's JavaScript runtime has: test/load/syntax.test.ts.
import { LIMITS, PER_PAGE_MAX } from '../../src/engine/documented-limits/limits.js';
import { retryAfterRealSeconds } from '../../src/engine/documented-limits/retry-after.js';

/**
 * The oldest k6 the scripts run on: k6/execution's test.options (read by setup() for the execution segment)
 * arrived in v0.38.0. The syntax (ES2015 modules) is older than that; see load/README.md.
 */
export const MIN_K6_VERSION = '0.38.0';

/** Default directory of summary.json and junit.xml (relative to k6's working directory). */
export const DEFAULT_OUT_DIR = 'k6-out';

/** @typedef {'reads' | 'writes' | 'tokens'} ProbeName */
/** @typedef {import('../../src/engine/documented-limits/verdicts.js').WindowVerdictName} Verdict */
/** @typedef {import('../../src/engine/documented-limits/verdicts.js').WindowCounts} WindowCounts */
/** @typedef {import('../../src/engine/documented-limits/verdicts.js').ProbeVerdict} ProbeVerdict */
/** @typedef {import('../../src/engine/documented-limits/verdicts.js').ScopeVerdict} ScopeVerdict */

// ------------------------------------------------------------------ k6 version

/**
 * The k6 APIs the scripts call that older k6 lacks, with the release that brought each. k6 gives a script no
 * version number, so the scripts look for these instead.
 */
const K6_FEATURES = Object.freeze([
  { name: 'http.expectedStatuses', since: '0.31.0' },
  { name: 'http.setResponseCallback', since: '0.31.0' },
  { name: 'exec.test.abort', since: '0.37.0' },
  { name: 'exec.test.options', since: '0.38.0' },
]);

/**
 * The one-line error for a k6 that lacks features the scripts call, or undefined when all are there.
 * @param {Record<string, boolean>} present  feature name → found
 */
export function k6FeatureProblem(present) {
  const missing = K6_FEATURES.filter((f) => !present[f.name]);
  if (missing.length === 0) return undefined;
  return `these scripts need k6 v${MIN_K6_VERSION} or later; this k6 lacks ${missing.map((f) => `${f.name} (k6 v${f.since})`).join(', ')}`;
}

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
 * @property {string} outDir      directory of summary.json and junit.xml
 * @property {string | undefined} summaryJson  explicit path of summary.json (overrides outDir)
 * @property {string | undefined} junit        explicit path of junit.xml (overrides outDir)
 */

/**
 * Reads the scripts' settings from an environment map (k6's __ENV). Throws with a message that never
 * contains a secret value.
 * @param {Record<string, string | undefined>} env
 * @returns {LoadConfig}
 */
export function readConfig(env) {
  const baseUrl = text(env.CONFORMANCE_BASE_URL).trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl))
    throw new Error('CONFORMANCE_BASE_URL must be set to the target API host (http:// or https://)');
  const apiKey = text(env.CONFORMANCE_API_KEY);
  if (!apiKey) throw new Error('CONFORMANCE_API_KEY must be set');
  const apiKeyB = env.CONFORMANCE_API_KEY_B || undefined;
  const timeScale = positiveNumber(env.CONFORMANCE_TIME_SCALE, 'CONFORMANCE_TIME_SCALE', 1);
  const windows = positiveInteger(env.CONFORMANCE_WINDOWS, 'CONFORMANCE_WINDOWS', 2);
  const segments = positiveInteger(env.CONFORMANCE_SEGMENTS, 'CONFORMANCE_SEGMENTS', 1);
  const maxPages = positiveInteger(env.CONFORMANCE_MAX_PAGES, 'CONFORMANCE_MAX_PAGES', 200);
  const totalField = env.CONFORMANCE_TOTAL_FIELD ? env.CONFORMANCE_TOTAL_FIELD.trim() : undefined;
  const outDir = text(env.CONFORMANCE_OUT_DIR).trim().replace(/\/+$/, '') || DEFAULT_OUT_DIR;
  const summaryJson = env.CONFORMANCE_SUMMARY_JSON || undefined;
  const junit = env.CONFORMANCE_JUNIT || undefined;
  return { baseUrl, apiKey, apiKeyB, timeScale, windows, segments, totalField, maxPages, outDir, summaryJson, junit };
}

/** @param {string | undefined} value */
function text(value) {
  return value === undefined || value === null ? '' : String(value);
}

/**
 * @param {string | undefined} raw
 * @param {string} name
 * @param {number} fallback
 */
function positiveNumber(raw, name, fallback) {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a number greater than 0 (got ${JSON.stringify(raw)})`);
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

/**
 * Where handleSummary writes its reports: CONFORMANCE_SUMMARY_JSON / CONFORMANCE_JUNIT when given, else
 * summary.json and junit.xml in CONFORMANCE_OUT_DIR (k6-out by default, never the repository root).
 * @param {Pick<LoadConfig, 'outDir' | 'summaryJson' | 'junit'>} cfg
 */
export function reportPaths(cfg) {
  return { json: cfg.summaryJson || `${cfg.outDir}/summary.json`, junit: cfg.junit || `${cfg.outDir}/junit.xml` };
}

// ------------------------------------------------------------------ k6 durations

/**
 * A k6 duration string for real milliseconds (whole milliseconds; k6 accepts "6000ms").
 * @param {number} ms
 */
export function k6Duration(ms) {
  return `${Math.max(1, Math.round(ms))}ms`;
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
  if (s.indexOf(':') >= 0) {
    const parts = s.split(':');
    start = fraction(parts[0] || '');
    end = fraction(parts[1] || '');
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
  const next = points[index + 1];
  if (index < 0 || next === undefined || Math.abs(next - end) > 1e-9) {
    throw new Error(
      `execution segment ${JSON.stringify(segment)} is not one of the segments of the sequence ${JSON.stringify(sequence || '')}`
    );
  }
  return { index, count: points.length - 1, start, end, label: s };
}

/** @param {string} raw */
function fraction(raw) {
  const t = raw.trim();
  let v;
  if (t.slice(-1) === '%') v = Number(t.slice(0, -1)) / 100;
  else if (t.indexOf('/') >= 0) {
    const parts = t.split('/');
    v = Number(parts[0]) / Number(parts[1]);
  } else v = Number(t);
  if (!Number.isFinite(v)) throw new Error(`invalid execution segment fraction ${JSON.stringify(raw)}`);
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
    return (
      `this instance runs execution segment ${seg.label} (length ${round4(length)}), but CONFORMANCE_SEGMENTS=${declaredSegments} ` +
      `expects ${declaredSegments} equal segments of length ${round4(1 / declaredSegments)}: set CONFORMANCE_SEGMENTS to the TestRun's parallelism`
    );
  }
  return undefined;
}

/** @param {number} x */
function round4(x) {
  return Math.round(x * 10000) / 10000;
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
 * Whether a status is a success. The seed shows no status for any success, so every 2xx counts.
 * @param {number} status
 */
export function isSuccess(status) {
  return status >= 200 && status <= 299;
}

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
  if (isSuccess(status)) return 'accepted';
  if (probe === 'writes' && (status === 400 || status === 422)) return 'accepted';
  return 'refused';
}

/**
 * @typedef {{ kind: 'token', token: string } | { kind: 'wait', seconds: number, message: string } | { kind: 'error', message: string }} IssuanceOutcome
 */

/**
 * What an answer to POST /v1/auth/tokens means. The seed shows no status for a successful issuance, so any 2xx
 * with a token field is one; a 429 with a readable Retry-After (target-seconds) is waited out; anything else is
 * an error whose message names the status but never the body (it could hold a secret).
 * @param {number} status   0 when no response
 * @param {string | null | undefined} body
 * @param {string | null | undefined} retryAfter  the Retry-After header
 * @param {number} timeScale
 * @returns {IssuanceOutcome}
 */
export function issuanceOutcome(status, body, retryAfter, timeScale) {
  if (isSuccess(status)) {
    const token = fieldOf(parseJson(body), 'token');
    if (typeof token === 'string' && token !== '') return { kind: 'token', token };
    return { kind: 'error', message: `answered ${status} without a token field` };
  }
  if (status === 429) {
    const seconds = retryAfterRealSeconds(retryAfter, timeScale);
    if (seconds !== undefined)
      return { kind: 'wait', seconds, message: `refused (429); Retry-After says ${seconds.toFixed(2)} s` };
    return { kind: 'error', message: 'refused with 429 and no readable Retry-After' };
  }
  return { kind: 'error', message: `failed with status ${status || 'none (no response)'}` };
}

/**
 * JSON.parse that answers undefined for anything that is not JSON.
 * @param {string | null | undefined} body
 * @returns {unknown}
 */
export function parseJson(body) {
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch (err) {
    return undefined;
  }
}

/**
 * A field of a JSON object, or undefined when the value is not an object.
 * @param {unknown} value
 * @param {string} name
 * @returns {unknown}
 */
export function fieldOf(value, name) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? /** @type {Record<string, unknown>} */ (value)[name]
    : undefined;
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
    out.push({
      sent: countOf(metrics[n.sent]),
      accepted: countOf(metrics[n.accepted]),
      refused: countOf(metrics[n.refused]),
    });
  }
  return out;
}

/** @param {SummaryMetric | undefined} m */
function countOf(m) {
  const c = m && m.values ? m.values['count'] : undefined;
  return typeof c === 'number' && Number.isFinite(c) ? c : 0;
}

// ------------------------------------------------------------------ traffic: latency and 429s per scenario

/** The percentiles of http_req_duration the reports keep, named as k6 names them in summaryTrendStats. */
export const LATENCY_PERCENTILES = Object.freeze(['p(50)', 'p(90)', 'p(95)', 'p(99)']);

/**
 * The `summaryTrendStats` option: k6 hands handleSummary only the trend statistics listed here (by default avg,
 * min, med, max, p(90), p(95)), so every percentile the reports keep must be in it.
 */
export const SUMMARY_TREND_STATS = Object.freeze(['avg', 'min', 'med', 'max'].concat(LATENCY_PERCENTILES));

/**
 * The submetrics of one scenario's traffic (or of the whole run, without a scenario): its requests, those answered
 * 429, and their durations.
 * @param {string} [scenario]
 */
export function trafficMetricNames(scenario) {
  /** @type {Record<string, string>} */
  const base = scenario === undefined ? {} : { scenario };
  return {
    requests: submetricName('http_reqs', base),
    status429: submetricName('http_reqs', Object.assign({}, base, { status: '429' })),
    duration: submetricName('http_req_duration', base),
  };
}

/**
 * Thresholds that only make k6 keep the traffic submetrics: k6 reports a submetric to handleSummary only when a
 * threshold names it. Each always holds (a count or a duration is never negative), so k6's exit code is unchanged.
 * @param {string[]} scenarios
 * @returns {Record<string, string[]>}
 */
export function trafficThresholds(scenarios) {
  /** @type {Record<string, string[]>} */
  const out = {};
  const names = [trafficMetricNames()].concat(scenarios.map((s) => trafficMetricNames(s)));
  for (const n of names) {
    out[n.status429] = ['count>=0'];
    if (n.requests !== 'http_reqs') out[n.requests] = ['count>=0'];
    if (n.duration !== 'http_req_duration') out[n.duration] = ['max>=0'];
  }
  return out;
}

/** @typedef {{ p50: number | null, p90: number | null, p95: number | null, p99: number | null, max: number | null }} Latency */

/**
 * @typedef {object} ScenarioTraffic
 * @property {number} requests
 * @property {number} status429
 * @property {number | null} share429  status429 / requests (null without requests)
 * @property {Latency} latencyMs               real milliseconds, as k6 measures them
 * @property {Latency} latencyTargetSeconds    the same in target seconds (real seconds × the time scale), as the suite's
 *                                             own limit numbers are given
 */

/**
 * @typedef {object} Traffic
 * @property {ScenarioTraffic} all                 every request of the run, setup()'s included
 * @property {Record<string, ScenarioTraffic>} scenarios
 * @property {number} timeScale                   target seconds per real second
 */

/**
 * Latency percentiles and the share of 429s, for the whole run and per scenario, from k6's end-of-test summary
 * data. A figure k6 did not report (a scenario that sent nothing) is null.
 * @param {Record<string, SummaryMetric | undefined>} metrics
 * @param {string[]} scenarios
 * @param {number} [timeScale]
 * @returns {Traffic}
 */
export function trafficFromMetrics(metrics, scenarios, timeScale = 1) {
  /** @type {Record<string, ScenarioTraffic>} */
  const byScenario = {};
  for (const s of scenarios) byScenario[s] = scenarioTraffic(metrics, trafficMetricNames(s), timeScale);
  return { all: scenarioTraffic(metrics, trafficMetricNames(), timeScale), scenarios: byScenario, timeScale };
}

/**
 * @param {Record<string, SummaryMetric | undefined>} metrics
 * @param {{ requests: string, status429: string, duration: string }} names
 * @param {number} timeScale
 * @returns {ScenarioTraffic}
 */
function scenarioTraffic(metrics, names, timeScale) {
  const requests = countOf(metrics[names.requests]);
  const status429 = countOf(metrics[names.status429]);
  const m = metrics[names.duration];
  /** @param {string} stat */
  const stat = (stat) => {
    const v = m && m.values ? m.values[stat] : undefined;
    // Microseconds are the finest figure worth keeping.
    return typeof v === 'number' && Number.isFinite(v) && requests > 0 ? Math.round(v * 1000) / 1000 : null;
  };
  const latencyMs = {
    p50: stat('p(50)'),
    p90: stat('p(90)'),
    p95: stat('p(95)'),
    p99: stat('p(99)'),
    max: stat('max'),
  };
  /** @param {number | null} v */
  const target = (v) => (v === null ? null : Math.round(v * timeScale) / 1000);
  return {
    requests,
    status429,
    share429: requests > 0 ? status429 / requests : null,
    latencyMs,
    latencyTargetSeconds: {
      p50: target(latencyMs.p50),
      p90: target(latencyMs.p90),
      p95: target(latencyMs.p95),
      p99: target(latencyMs.p99),
      max: target(latencyMs.max),
    },
  };
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
  if (objects.length === 0)
    return {
      field: undefined,
      declared: !!declared,
      message: 'no list response body to read a total from',
      candidates,
    };
  if (candidates.length === 0) {
    return {
      field: undefined,
      declared: false,
      message: 'no integer field named total or count in the list response',
      candidates,
    };
  }
  /** @type {string[]} */
  const problems = [];
  for (const c of candidates) {
    const problem = c.values.some((v) => typeof v !== 'number' || !Number.isInteger(v))
      ? `${c.field} is not an integer on every page (${JSON.stringify(c.values.slice(0, 5))})`
      : new Set(c.values).size > 1
        ? `${c.field} changes across pages (${JSON.stringify(c.values.slice(0, 5))})`
        : c.values[0] !== walkedCount
          ? `${c.field} is ${c.values[0]} but the walk found ${walkedCount} items`
          : undefined;
    if (!problem) {
      return {
        field: c.field,
        declared: !!declared,
        message: `total field ${c.field}${declared ? ' (declared)' : ' (discovered)'} = ${walkedCount}`,
        candidates,
      };
    }
    problems.push(problem);
  }
  return {
    field: undefined,
    declared: !!declared,
    message: `no total field equals the walked count: ${problems.join('; ')}`,
    candidates,
  };
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
      if (typeof v === 'number' && Number.isInteger(v) && TOTAL_LIKE.test(k))
        found.push({ path, exact: TOTAL_NAME.test(k), depth });
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
function readPath(obj, path) {
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
 * @typedef {object} ListSize
 * @property {number} atLeast    items the walk saw
 * @property {boolean} complete  the walk reached the last page, so atLeast is the list's size
 */

/**
 * Why a list is too short to show what per_page above the maximum and page boundaries do (it needs more than
 * PER_PAGE_MAX items), or undefined when it is long enough.
 * @param {ListSize} list
 */
export function shortListReason(list) {
  if (list.atLeast > PER_PAGE_MAX) return undefined;
  if (!list.complete)
    return `the walk stopped before showing that the list holds more than ${PER_PAGE_MAX} items (${list.atLeast} seen)`;
  return `the list holds only ${list.atLeast} items; it needs more than ${PER_PAGE_MAX}: create ${PER_PAGE_MAX + 1 - list.atLeast} more VMs in the key's organization, or run with a key whose organization has more than ${PER_PAGE_MAX}`;
}

/**
 * The page-walk verdict: no duplicate ids, no gaps, and a total field equal to the walked count. A list that fits
 * on one page shows neither page boundaries nor a total that differs from a page's count: what would pass is
 * inconclusive (a failure found on it still fails).
 * @param {WalkPage[]} pages
 * @param {number} perPage
 * @param {{ complete: boolean, stoppedBecause: string }} outcome  whether the walk reached its last page
 * @param {string} [declaredTotal]
 * @returns {{ walk: CheckResult, total: CheckResult, analysis: WalkAnalysis, discovery: TotalDiscovery, list: ListSize }}
 */
export function judgeWalk(pages, perPage, outcome, declaredTotal) {
  const analysis = analyzeWalk(pages, perPage);
  const discovery = discoverTotalField(
    pages.map((p) => p.body),
    analysis.distinct,
    declaredTotal
  );
  const list = { atLeast: analysis.distinct, complete: outcome.complete };
  /** @type {CheckResult} */
  const walk = { id: 'pagination.walk', clauses: ['PAGE-PARAMS'], level: 'must', status: 'passed', message: '' };
  /** @type {CheckResult} */
  const total = { id: 'pagination.total', clauses: ['PAGE-TOTAL'], level: 'must', status: 'passed', message: '' };
  if (!outcome.complete) {
    walk.status = 'skipped';
    walk.message = `the walk did not reach the last page: ${outcome.stoppedBecause}`;
    total.status = 'skipped';
    total.message = walk.message;
    return { walk, total, analysis, discovery, list };
  }
  /** @type {string[]} */
  const problems = [];
  if (analysis.duplicates.length) {
    const d = analysis.duplicates[0];
    problems.push(
      `${analysis.duplicates.length} ids appear more than once (e.g. ${d.id} on pages ${d.pages.join(', ')})`
    );
  }
  if (analysis.shortPages.length)
    problems.push(`gap: page ${analysis.shortPages[0]} holds fewer than ${perPage} items but is not the last page`);
  if (analysis.overfullPages.length)
    problems.push(`page ${analysis.overfullPages[0]} holds more than ${perPage} items`);
  if (analysis.missingIds) problems.push(`${analysis.missingIds} items have no id`);
  const totalValue = discovery.field ? undefined : firstInteger(discovery.candidates);
  if (!discovery.field && totalValue !== undefined && totalValue > analysis.distinct) {
    problems.push(`gap: the walk found ${analysis.distinct} distinct items but the list reports ${totalValue}`);
  }
  const tooShort = analysis.distinct <= perPage ? shortListReason(list) : undefined;
  if (problems.length) {
    walk.status = 'failed';
    walk.message = problems.join('; ');
  } else if (tooShort) {
    walk.status = 'skipped';
    walk.message = `${pages.length} page(s) at per_page=${perPage} hold ${analysis.distinct} items, each once, but page boundaries were never crossed: ${tooShort}`;
  } else {
    walk.message = `${pages.length} pages at per_page=${perPage} hold ${analysis.distinct} items, each exactly once`;
  }
  if (!discovery.field) {
    total.status = 'failed';
    total.message = discovery.message;
  } else if (tooShort) {
    total.status = 'skipped';
    total.message = `${discovery.message}, but on one page a total of all items cannot be told from a count of the page's items: ${tooShort}`;
  } else {
    total.message = discovery.message;
  }
  return { walk, total, analysis, discovery, list };
}

/** @param {Array<{ values: unknown[] }>} candidates */
function firstInteger(candidates) {
  const v = candidates.length ? candidates[0].values[0] : undefined;
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

/**
 * per_page at and above the maximum: per_page=100 must be served with at most 100 items; above 100 the target
 * may clamp (at most 100 items) or reject with a 4xx, never serve more than 100 items nor fail with a 5xx.
 * Clamping shows only on a list of more than 100 items: on a shorter one (or one of unknown size) at most 100
 * items above the maximum is inconclusive.
 * @param {number} perPage
 * @param {number} status  0 when no response
 * @param {number | undefined} items  items in the page, when the body had a list
 * @param {ListSize} [list]  what the walk learnt of the list's size
 * @returns {CheckResult}
 */
export function judgePerPage(perPage, status, items, list) {
  const id = `pagination.per-page-${perPage}`;
  /**
   * @param {CheckStatus} status
   * @param {string} message
   * @returns {CheckResult}
   */
  const result = (status, message) => ({ id, clauses: ['PAGE-MAX-100'], level: 'must', status, message });
  const ok = isSuccess(status);
  if (perPage <= PER_PAGE_MAX) {
    if (!ok)
      return result(
        'failed',
        `per_page=${perPage} (within the documented maximum) was answered ${status || 'with no response'}`
      );
    if (items === undefined) return result('failed', `per_page=${perPage} answered ${status} without a vms array`);
    if (items > PER_PAGE_MAX) return result('failed', `per_page=${perPage} returned ${items} items`);
    return result('passed', `per_page=${perPage} served ${items} items`);
  }
  if (ok) {
    if (items === undefined) return result('failed', `per_page=${perPage} answered ${status} without a vms array`);
    if (items > PER_PAGE_MAX)
      return result('failed', `per_page=${perPage} returned ${items} items, more than the maximum of ${PER_PAGE_MAX}`);
    const tooShort = shortListReason(list || { atLeast: items, complete: false });
    if (tooShort)
      return result(
        'skipped',
        `per_page=${perPage} served ${items} items, which cannot be told from honouring per_page=${perPage}: ${tooShort}`
      );
    return result(
      'passed',
      `per_page=${perPage} clamped: ${items} items of a list of ${list && list.complete ? list.atLeast : `more than ${PER_PAGE_MAX}`}`
    );
  }
  if (status >= 400 && status <= 499 && status !== 429)
    return result('passed', `per_page=${perPage} rejected with ${status}`);
  return result(
    'failed',
    `per_page=${perPage} answered ${status || 'with no response'}, neither at most ${PER_PAGE_MAX} items nor a 4xx refusal`
  );
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
  return {
    id: `limits.${probe}`,
    clauses: [def.clause],
    level: 'must',
    status,
    message: `${v.verdict}: ${v.message}`,
    verdict: v.verdict,
  };
}

/** The scope check: two tokens of one key each get the read budget (seed section 8: "per token"). */
export const SCOPE_CHECK = Object.freeze({
  id: 'limits.token-scope',
  clause: 'LIMIT-READ-300',
  title: 'Read requests are limited per token: two tokens of one API key each get 300 per minute',
});

/**
 * The conformance check of the scope probe.
 * @param {ScopeVerdict} v
 * @returns {CheckResult}
 */
export function scopeCheck(v) {
  const status = v.verdict === 'pass' ? 'passed' : v.verdict === 'inconclusive' ? 'skipped' : 'failed';
  return {
    id: SCOPE_CHECK.id,
    clauses: [SCOPE_CHECK.clause],
    level: 'must',
    status,
    message: `${v.verdict}: ${v.message}`,
    verdict: v.verdict,
  };
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
function k6Checks(group) {
  /** @type {Array<{ name: string, passes: number, fails: number }>} */
  const out = [];
  /** @param {K6Group | undefined} g */
  const visit = (g) => {
    if (!g) return;
    for (const c of g.checks || []) out.push({ name: c.name, passes: c.passes, fails: c.fails });
    for (const child of g.groups || []) visit(child);
  };
  visit(group);
  return out;
}

/** Clauses and level of the checks the scripts report through k6 check() names. */
const CHECK_META = Object.freeze({
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
  return k6CheckName(`${r.id}: ${r.status === 'skipped' ? 'skipped: ' : ''}${r.message}`);
}

/**
 * A text k6 accepts as a check() name: k6 refuses names holding "::" (its group separator) by throwing, which
 * would stop the script where it reports, so each "::" (an IPv6 address, an id) is written ": :".
 * @param {string} text
 */
export function k6CheckName(text) {
  return text.split('::').join(': :');
}

/**
 * Prefix of the k6 check() that carries why the scripts stopped a test. handleSummary gets neither the reason given
 * to exec.test.abort nor, once setup() has aborted, any setup data; the checks made in setup() do reach it (in the
 * summary's group "setup"), so the cause travels as the name of a failed check.
 */
const ABORT_CHECK_PREFIX = 'aborted: ';

/**
 * The check() name that carries why the test was stopped.
 * @param {string} message
 */
export function abortCheckName(message) {
  return k6CheckName(ABORT_CHECK_PREFIX + message);
}

/**
 * @typedef {object} RunError
 * @property {'setup' | 'run'} where  setup(): the test never started; run: a VU stopped it
 * @property {string} message
 */

/** What the reports say when setup() did not complete and left no cause behind. */
export const SETUP_INCOMPLETE =
  "setup() did not complete and left no cause (a setup timeout, an uncaught exception, an interrupt): see k6's log";

/**
 * Why the test was stopped, from the end-of-test summary data: the abort checks in k6's group tree, and whether
 * setup() handed over its data. Without setup data no probe ran, whatever the checks say; undefined when the test
 * ran to its end.
 * @param {K6Group | undefined} group  the summary's root_group
 * @param {boolean} setupCompleted     setup() returned its data
 * @returns {RunError | undefined}
 */
export function runErrorFromK6(group, setupCompleted) {
  /** @type {Array<{ inSetup: boolean, message: string }>} */
  const aborts = [];
  /**
   * @param {K6Group | undefined} g
   * @param {boolean} inSetup
   */
  const visit = (g, inSetup) => {
    if (!g) return;
    for (const c of g.checks || [])
      if (c.name.indexOf(ABORT_CHECK_PREFIX) === 0)
        aborts.push({ inSetup, message: c.name.slice(ABORT_CHECK_PREFIX.length) });
    for (const child of g.groups || []) visit(child, inSetup || (g === group && child.name === 'setup'));
  };
  visit(group, false);
  if (!setupCompleted) {
    const cause = aborts.filter((a) => a.inSetup).concat(aborts)[0];
    return { where: 'setup', message: cause ? cause.message : SETUP_INCOMPLETE };
  }
  return aborts.length ? { where: 'run', message: aborts[0].message } : undefined;
}

/**
 * Check results back from k6's summary group tree (the inverse of checkName). A name evaluated several times
 * fails if any evaluation failed; names that are not "<id>: ..." keep the whole name as id; abort checks
 * (abortCheckName) are no check results.
 * @param {K6Group | undefined} group
 * @returns {CheckResult[]}
 */
export function checkResultsFromK6(group) {
  return k6Checks(group)
    .filter((c) => c.name.indexOf(ABORT_CHECK_PREFIX) !== 0)
    .map((c) => {
      const m = /^([A-Za-z0-9_.-]+): (skipped: )?([\s\S]*)$/.exec(c.name);
      const id = m && m[1] ? m[1] : c.name;
      const message = m ? m[3] || '' : c.name;
      const meta = /** @type {Record<string, { clauses: string[], level: 'must' | 'should' } | undefined>} */ (
        CHECK_META
      )[id];
      /** @type {CheckStatus} */
      const status = m && m[2] ? 'skipped' : c.fails > 0 ? 'failed' : 'passed';
      return { id, clauses: meta ? meta.clauses.slice() : [], level: meta ? meta.level : 'must', status, message };
    });
}
