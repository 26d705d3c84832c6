// k6-side helpers shared by rate-limits.js and pagination.js: configuration, token issuance in setup(), the
// execution-segment guard and handleSummary glue. This module imports k6 and is therefore not imported by vitest;
// every decision it relies on lives in ./verdicts.js and ./report.js.
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { readConfig, parseSegment, segmentMismatch, retryAfterRealSeconds, windowRealMs } from './verdicts.js';
import { buildSummary, summaryOutputs, thresholdResults } from './report.js';

/** @typedef {import('./verdicts.js').LoadConfig} LoadConfig */
/** @typedef {import('./verdicts.js').SegmentInfo} SegmentInfo */
/** @typedef {import('./verdicts.js').CheckResult} CheckResult */

/**
 * What setup() hands to every VU of this instance. Tokens are issued by the instance's own setup(), for its own
 * execution segment (k6-operator runs setup() in every runner pod), and never logged.
 * @typedef {object} SetupData
 * @property {SegmentInfo} segment
 * @property {Record<string, string>} tokens
 */

/**
 * The subset of k6's handleSummary() argument the scripts read.
 * @typedef {object} SummaryData
 * @property {Record<string, import('./verdicts.js').SummaryMetric | undefined>} metrics
 * @property {import('./verdicts.js').K6Group} [root_group]
 * @property {{ testRunDurationMs?: number }} [state]
 * @property {unknown} [setup_data]
 */

/** Settings from the same variables as the CLI (see load/README.md). Throws (without secrets) when incomplete. */
export const config = readConfig(/** @type {Record<string, string | undefined>} */ (__ENV));

/** Common k6 options: never follow redirects (only the given URL is targeted), a recognisable user agent. */
export const baseOptions = {
  maxRedirects: 0,
  userAgent: 'cloud-api-conformance-load/0.1',
  // Long enough for token issuance to wait out one refused issuance window.
  setupTimeout: `${Math.ceil((2 * windowRealMs(config.timeScale)) / 1000) + 60}s`,
};

/** This instance's execution segment, from the consolidated options (available in setup and VU code). */
export function currentSegment() {
  const o = exec.test.options;
  return parseSegment(o.executionSegment ?? null, o.executionSegmentSequence ?? null);
}

/**
 * Issues one bearer token with an API key. A refusal with Retry-After (target-seconds, scaled to real time) is
 * waited out, within a bound; any other failure throws. Neither the key nor the token is ever printed.
 * @param {string} apiKey
 * @param {string} purpose  for messages only
 * @returns {string}
 */
export function issueToken(apiKey, purpose) {
  const deadline = Date.now() + 2 * windowRealMs(config.timeScale) + 30_000;
  for (let attempt = 1; ; attempt++) {
    const res = http.post(`${config.baseUrl}/v1/auth/tokens`, JSON.stringify({ api_key: apiKey }), {
      headers: { 'Content-Type': 'application/json' },
      tags: { name: 'POST /v1/auth/tokens (setup)', phase: 'setup' },
      responseType: 'text',
      timeout: '30s',
    });
    if (res.status === 200) {
      /** @type {unknown} */
      let body;
      try {
        body = JSON.parse(String(res.body ?? ''));
      } catch {
        body = undefined;
      }
      const token = body && typeof body === 'object' ? /** @type {Record<string, unknown>} */ (body)['token'] : undefined;
      if (typeof token !== 'string' || token === '') throw new Error(`token issuance for ${purpose} answered 200 without a token field`);
      return token;
    }
    const wait = retryAfterRealSeconds(res.headers['Retry-After'], config.timeScale);
    if (res.status === 429 && wait !== undefined && Date.now() + wait * 1000 < deadline) {
      console.warn(`token issuance for ${purpose} refused (429, attempt ${attempt}); waiting ${wait.toFixed(2)} s as Retry-After says`);
      sleep(wait + 0.05);
      continue;
    }
    throw new Error(`token issuance for ${purpose} failed with status ${res.status || 'none (' + res.error + ')'}`);
  }
}

/**
 * setup(): checks this instance's execution segment, then issues one token per purpose for it.
 * @param {string[]} purposes
 * @param {{ enforceSegments: boolean }} opts  enforce CONFORMANCE_SEGMENTS (the rate-limit probes need it)
 * @returns {SetupData}
 */
export function setupTokens(purposes, opts) {
  const segment = currentSegment();
  if (opts.enforceSegments) {
    const mismatch = segmentMismatch(segment, config.segments);
    if (mismatch) exec.test.abort(mismatch);
  }
  /** @type {Record<string, string>} */
  const tokens = {};
  for (const p of purposes) tokens[p] = issueToken(config.apiKey, p);
  return { segment, tokens };
}

/** @type {string | undefined} */
let verifiedSegment;

/**
 * Per VU, once: the setup data must have been made for this instance's own segment. If setup() ever ran once for
 * a whole distributed test and its data were shared, all segments would use one token and a per-token probe
 * would be split across segments; this refuses to run rather than measure that.
 * @param {SetupData} data
 * @returns {SetupData}
 */
export function checkedSetup(data) {
  if (verifiedSegment === undefined) {
    const mine = currentSegment();
    if (!data || !data.segment || data.segment.label !== mine.label) {
      exec.test.abort(`setup data were made for execution segment ${data?.segment?.label ?? '(none)'} but this instance runs ${mine.label}: per-token probes need their own setup() per segment`);
    }
    verifiedSegment = mine.label;
  }
  return data;
}

/**
 * The Authorization header for a purpose's token.
 * @param {SetupData} data
 * @param {string} purpose
 */
export function bearer(data, purpose) {
  const token = data.tokens[purpose];
  if (!token) exec.test.abort(`no token for ${purpose} in the setup data`);
  return { Authorization: `Bearer ${token}` };
}

/**
 * Every secret that could reach a report: the API keys and the tokens in the setup data.
 * @param {SummaryData} data
 * @returns {string[]}
 */
export function secretsOf(data) {
  /** @type {string[]} */
  const out = [config.apiKey];
  if (config.apiKeyB) out.push(config.apiKeyB);
  const sd = /** @type {Partial<SetupData> | undefined} */ (data.setup_data);
  if (sd && sd.tokens && typeof sd.tokens === 'object') for (const t of Object.values(sd.tokens)) if (typeof t === 'string') out.push(t);
  return out;
}

/**
 * handleSummary() body shared by both scripts: summary.json, junit.xml (paths overridable with
 * CONFORMANCE_SUMMARY_JSON / CONFORMANCE_JUNIT) and text on stdout, all redacted. k6's raw summary data (which
 * includes setup_data, hence the tokens) is never written as such.
 * @param {string} script
 * @param {SummaryData} data
 * @param {CheckResult[]} checks
 * @param {Record<string, unknown>} details
 */
export function summarize(script, data, checks, details) {
  const sd = /** @type {Partial<SetupData> | undefined} */ (data.setup_data);
  const summary = buildSummary({
    script,
    baseUrl: config.baseUrl,
    timeScale: config.timeScale,
    segment: sd?.segment?.label ?? '0:1',
    checks,
    thresholds: thresholdResults(data.metrics ?? {}),
    details,
    durationMs: data.state?.testRunDurationMs ?? 0,
  });
  return summaryOutputs(summary, secretsOf(data), { json: __ENV.CONFORMANCE_SUMMARY_JSON, junit: __ENV.CONFORMANCE_JUNIT });
}
