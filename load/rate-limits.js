// k6 load script: the documented rate limits (seed section 8) hold exactly.
//   reads  300 per minute per token   GET /v1/vms?per_page=1
//   writes  60 per minute per token   POST /v1/vms with {} (an invalid body: nothing is created)
//   tokens  10 per minute per API key POST /v1/auth/tokens
// Each probe pushes its limit about 10% above the rate with a constant-arrival-rate scenario, for
// CONFORMANCE_WINDOWS windows of 60 target-seconds (timeUnit scaled by CONFORMANCE_TIME_SCALE), and counts the
// accepted requests per window. Thresholds pass exactly when every window accepted the documented number.
// See load/README.md for running it locally, against the embedded reference and with k6-operator.
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { LIMITS, probePlan, slotAt, classifyStatus, probeThresholds, k6Duration, tokenTurnWindow, tokenScenarioWindows, windowCountsFromMetrics, judgeProbe, limitCheck } from './lib/verdicts.js';
import { config, baseOptions, setupTokens, checkedSetup, bearer, summarize } from './lib/k6common.js';

/** @typedef {import('./lib/k6common.js').SetupData} SetupData */
/** @typedef {import('./lib/k6common.js').SummaryData} SummaryData */
/** @typedef {import('./lib/verdicts.js').ProbeName} ProbeName */
/** @typedef {import('./lib/verdicts.js').ProbePlan} ProbePlan */

const N = config.windows;
const SEGMENTS = config.segments;

/** @type {Record<ProbeName, ProbePlan>} */
const PLANS = {
  reads: probePlan(LIMITS.reads.limit, config.timeScale),
  writes: probePlan(LIMITS.writes.limit, config.timeScale),
  tokens: probePlan(LIMITS.tokens.limit, config.timeScale),
};

/** @type {Record<ProbeName, string>} */
const SCENARIO = { reads: 'reads_over', writes: 'writes_over', tokens: 'tokens_over' };

// The issuance probe starts one window (plus 10%) after setup(), whose own issuances on the primary key must
// have left the key's window by then.
const TOKENS_START_MS = Math.round(PLANS.tokens.windowMs * 1.1);

const accepted = new Counter('limit_accepted');
const refused = new Counter('limit_refused');

// 429 is an expected answer of a limit probe, so it is not counted in http_req_failed.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }, 429));
// The write probe's invalid body is expected to be refused by validation (400/422) when not rate-limited.
const WRITE_EXPECTED = http.expectedStatuses({ min: 200, max: 299 }, 400, 422, 429);

/**
 * An arrival-rate scenario for a plan. The rate is multiplied by CONFORMANCE_SEGMENTS because k6 divides an
 * arrival rate (and the VUs) across execution segments: each segment then sends the full probe on its own token.
 * @param {ProbePlan} plan
 * @param {number} windows
 * @param {string} fn
 * @param {number} startMs
 * @returns {import('k6/options').ConstantArrivalRateScenario}
 */
function scenario(plan, windows, fn, startMs) {
  const perSecond = (plan.slotsPerWindow * 1000) / plan.windowMs;
  const pre = Math.ceil(perSecond * 0.25) + 2;
  const max = Math.max(pre, Math.ceil(perSecond * 2) + 4);
  return {
    executor: 'constant-arrival-rate',
    rate: plan.slotsPerWindow * SEGMENTS,
    timeUnit: k6Duration(plan.windowMs),
    duration: k6Duration(plan.windowMs * windows),
    startTime: k6Duration(startMs),
    preAllocatedVUs: pre * SEGMENTS,
    maxVUs: max * SEGMENTS,
    gracefulStop: '5s',
    exec: fn,
  };
}

/** @type {import('k6/options').Options} */
export const options = {
  ...baseOptions,
  discardResponseBodies: true,
  scenarios: {
    [SCENARIO.reads]: scenario(PLANS.reads, N, 'reads', 0),
    [SCENARIO.writes]: scenario(PLANS.writes, N, 'writes', 0),
    [SCENARIO.tokens]: scenario(PLANS.tokens, tokenScenarioWindows(SEGMENTS, N), 'tokens', TOKENS_START_MS),
  },
  thresholds: {
    ...probeThresholds(SCENARIO.reads, LIMITS.reads.limit, N),
    ...probeThresholds(SCENARIO.writes, LIMITS.writes.limit, N),
    ...probeThresholds(SCENARIO.tokens, LIMITS.tokens.limit, N),
  },
};

/** @returns {SetupData} */
export function setup() {
  // One fresh token per per-token probe, so each starts its limit windows with its own first request.
  return setupTokens(['reads', 'writes'], { enforceSegments: true });
}

/**
 * Where this iteration falls in its probe, or undefined when it is a guard slot or past the last window.
 * @param {ProbePlan} plan
 */
function currentSlot(plan) {
  const slot = slotAt(Date.now() - exec.scenario.startTime, plan);
  return slot.send ? slot : undefined;
}

/**
 * @param {ProbeName} probe
 * @param {number} status
 * @param {Record<string, string>} tags
 */
function record(probe, status, tags) {
  const outcome = classifyStatus(probe, status);
  if (outcome === 'accepted') accepted.add(1, tags);
  else if (outcome === 'refused') refused.add(1, tags);
}

/**
 * @param {number} window
 * @param {boolean} limited
 * @param {ProbeName} probe
 */
function tagsFor(window, limited, probe) {
  // `limited: yes` marks requests beyond the documented allowance of their window (expected to be refused).
  return { window: String(window), limited: limited ? 'yes' : 'no', probe };
}

/** @param {SetupData} data */
export function reads(data) {
  checkedSetup(data);
  const slot = currentSlot(PLANS.reads);
  if (!slot || slot.window >= N) return;
  const tags = tagsFor(slot.window, slot.limited, 'reads');
  const res = http.get(`${config.baseUrl}/v1/vms?per_page=1`, {
    headers: bearer(data, 'reads'),
    tags: { ...tags, name: 'GET /v1/vms' },
    timeout: '10s',
  });
  record('reads', res.status, tags);
}

/** @param {SetupData} data */
export function writes(data) {
  checkedSetup(data);
  const slot = currentSlot(PLANS.writes);
  if (!slot || slot.window >= N) return;
  const tags = tagsFor(slot.window, slot.limited, 'writes');
  // {} lacks every create field: a conforming target refuses it and creates nothing.
  const res = http.post(`${config.baseUrl}/v1/vms`, '{}', {
    headers: { ...bearer(data, 'writes'), 'Content-Type': 'application/json' },
    tags: { ...tags, name: 'POST /v1/vms (invalid body)' },
    timeout: '10s',
    responseCallback: WRITE_EXPECTED,
  });
  record('writes', res.status, tags);
}

/** @param {SetupData} data */
export function tokens(data) {
  const d = checkedSetup(data);
  const slot = currentSlot(PLANS.tokens);
  if (!slot) return;
  // Per API key, and a segment cannot get a key of its own: the segments take turns (see tokenTurnWindow).
  const window = tokenTurnWindow(slot.window, d.segment.index, N);
  if (window < 0) return;
  const tags = tagsFor(window, slot.limited, 'tokens');
  // Key B when given, so the primary key's issuances in setup() (every runner's) cannot share the probed window.
  const key = config.apiKeyB ?? config.apiKey;
  const res = http.post(`${config.baseUrl}/v1/auth/tokens`, JSON.stringify({ api_key: key }), {
    headers: { 'Content-Type': 'application/json' },
    tags: { ...tags, name: 'POST /v1/auth/tokens' },
    timeout: '10s',
  });
  // The issued token is discarded with the body (discardResponseBodies); it is never read or printed.
  record('tokens', res.status, tags);
}

/** @param {SummaryData} data */
export function handleSummary(data) {
  /** @type {ProbeName[]} */
  const probes = ['reads', 'writes', 'tokens'];
  /** @type {Record<string, unknown>} */
  const details = { windows: N, segments: SEGMENTS, plans: PLANS, probes: {} };
  const checks = probes.map((p) => {
    const verdict = judgeProbe(LIMITS[p].limit, windowCountsFromMetrics(data.metrics ?? {}, SCENARIO[p], N));
    /** @type {Record<string, unknown>} */ (details['probes'])[p] = { scenario: SCENARIO[p], verdict: verdict.verdict, windows: verdict.windows };
    return limitCheck(p, verdict);
  });
  return summarize('rate-limits.js', data, checks, details);
}
