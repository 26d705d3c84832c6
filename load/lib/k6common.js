// The k6 edge: binds the glue's Io (./flow.js) to k6/http, k6, k6/execution and k6/metrics, reads the settings,
// and refuses a k6 older than the scripts need. Nothing here decides anything; vitest cannot import this module.
import http from 'k6/http';
import exec from 'k6/execution';
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';
import { k6FeatureProblem, readConfig } from './decisions.js';

/** @typedef {import('./flow.js').Io} Io */
/** @typedef {import('./flow.js').Expect} Expect */

// k6 gives a script no version number: look for the APIs the scripts call (exec.test.options is only probed, its
// getter fails in the init context).
const testInfo = exec.test;
const featureProblem = k6FeatureProblem({
  'http.expectedStatuses': typeof http.expectedStatuses === 'function',
  'http.setResponseCallback': typeof http.setResponseCallback === 'function',
  'exec.test.abort': !!testInfo && typeof testInfo.abort === 'function',
  'exec.test.options': !!testInfo && 'options' in testInfo,
});
if (featureProblem) throw new Error(featureProblem);

/** Settings from the same variables as the CLI (see load/README.md). Throws (without secrets) when incomplete. */
export const config = readConfig(/** @type {Record<string, string | undefined>} */ (__ENV));

// 429 is an expected answer of a limit probe, so it is not counted in http_req_failed.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }, 429));

/** @type {Record<Expect, ReturnType<typeof http.expectedStatuses>>} */
const EXPECTED = {
  ok: http.expectedStatuses({ min: 200, max: 299 }, 429),
  // Above the maximum a 4xx refusal is as good as clamping.
  'ok-or-4xx': http.expectedStatuses({ min: 200, max: 299 }, { min: 400, max: 499 }),
  // The write probe's invalid body is expected to be refused by validation (400/422) when not rate-limited.
  'write-probe': http.expectedStatuses({ min: 200, max: 299 }, 400, 422, 429),
};

const accepted = new Counter('limit_accepted');
const refused = new Counter('limit_refused');

/** @type {Io} */
export const io = {
  request(req) {
    const res = http.request(req.method, req.url, req.body, {
      headers: req.headers,
      tags: req.tags,
      timeout: req.timeout,
      responseCallback: EXPECTED[req.expect],
      responseType: req.readBody ? 'text' : 'none',
    });
    return {
      status: res.status,
      body: typeof res.body === 'string' ? res.body : null,
      headers: res.headers,
      error: res.error,
    };
  },
  sleep,
  now: () => Date.now(),
  abort: (message) => exec.test.abort(message),
  warn: (message) => console.warn(message),
  count: (metric, tags) => (metric === 'limit_accepted' ? accepted : refused).add(1, tags),
  check: (name, ok, tags) => {
    /** @type {Record<string, () => boolean>} */
    const sets = {};
    sets[name] = () => ok;
    check(null, sets, tags);
  },
  executionSegment: () => {
    const o = exec.test.options;
    return { segment: o.executionSegment || null, sequence: o.executionSegmentSequence || null };
  },
};

/** Real milliseconds since the running scenario started. */
export function scenarioElapsedMs() {
  return Date.now() - exec.scenario.startTime;
}
