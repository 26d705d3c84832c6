// k6 load script: the documented rate limits (seed section 8) hold exactly.
//   reads  300 per minute per token   GET /v1/vms?per_page=1
//   writes  60 per minute per token   POST /v1/vms with {} (an invalid body: nothing is created)
//   tokens  10 per minute per API key POST /v1/auth/tokens
//   scope  two tokens of one key each get their own 300 reads per minute
// Each probe pushes its limit about 10% above the rate with a constant-arrival-rate scenario, for
// CONFORMANCE_WINDOWS windows of 60 target-seconds (timeUnit scaled by CONFORMANCE_TIME_SCALE), and counts the
// accepted requests per window. Thresholds pass exactly when every window accepted the documented number.
// Needs k6 v0.38.0 or later; run it with --no-usage-report. See load/README.md.
import { config, io, scenarioElapsedMs } from './lib/k6common.js';
import {
  RATE_LIMIT_SCENARIOS,
  probeIteration,
  probeSpec,
  rateLimitOptions,
  rateLimitResults,
  setupGuard,
  setupTokens,
  summarize,
} from './lib/flow.js';

/** @typedef {import('./lib/flow.js').SetupData} SetupData */
/** @typedef {import('./lib/flow.js').SummaryData} SummaryData */

/** @type {import('k6/options').Options} */
export const options = rateLimitOptions(config);

/** @returns {SetupData} */
export function setup() {
  // One fresh token per per-token probe, so each starts its limit windows with its own first request; the scope
  // probe reuses both once the read probe is over.
  return setupTokens(io, config, ['reads', 'writes'], { enforceSegments: true });
}

const guard = setupGuard(io);

/**
 * @param {unknown} data
 * @param {'reads' | 'writes' | 'tokens' | 'scopeA' | 'scopeB'} which
 */
function run(data, which) {
  probeIteration(io, probeSpec(config, guard(data), io, which), scenarioElapsedMs());
}

/** @param {unknown} data */
export function reads(data) {
  run(data, 'reads');
}

/** @param {unknown} data */
export function writes(data) {
  run(data, 'writes');
}

/** @param {unknown} data */
export function tokens(data) {
  run(data, 'tokens');
}

/** @param {unknown} data */
export function scopeA(data) {
  run(data, 'scopeA');
}

/** @param {unknown} data */
export function scopeB(data) {
  run(data, 'scopeB');
}

/** @param {SummaryData} data */
export function handleSummary(data) {
  const results = rateLimitResults(data.metrics || {}, config.windows);
  return summarize(
    config,
    'rate-limits.js',
    data,
    results.checks,
    Object.assign({ windows: config.windows, segments: config.segments }, results.details),
    RATE_LIMIT_SCENARIOS
  );
}
