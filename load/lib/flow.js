// The glue of the k6 scripts, with every call into k6 injected as an Io: token issuance in setup(), the
// execution-segment guard, the page walk, one limit-probe request, the scenarios and the end-of-test summary.
// vitest runs this very code against the reference target (test/load/flow.test.ts); load/lib/k6common.js binds
// an Io to k6/http, k6, k6/execution and k6/metrics. No k6 imports here.
import { LIMITS, PER_PAGE_MAX } from '../../src/engine/documented-limits/limits.js';
import { afterProbeMs, probePlan, slotAt, slotRole, windowRealMs } from '../../src/engine/documented-limits/windows.js';
import { retryAfterRealSeconds } from '../../src/engine/documented-limits/retry-after.js';
import { judgeProbe, judgeScope } from '../../src/engine/documented-limits/verdicts.js';
import {
  SCOPE_CHECK,
  SUMMARY_TREND_STATS,
  abortCheckName,
  checkName,
  classifyStatus,
  isSuccess,
  issuanceOutcome,
  judgePerPage,
  judgeWalk,
  k6Duration,
  limitCheck,
  parseJson,
  parseSegment,
  probeThresholds,
  reportPaths,
  runErrorFromK6,
  scopeCheck,
  segmentMismatch,
  tokenScenarioWindows,
  tokenTurnWindow,
  trafficFromMetrics,
  trafficThresholds,
  windowCountsFromMetrics,
  fieldOf,
} from './decisions.js';
import { buildSummary, summaryOutputs, thresholdResults } from './report.js';

/** @typedef {import('./decisions.js').LoadConfig} LoadConfig */
/** @typedef {import('./decisions.js').SegmentInfo} SegmentInfo */
/** @typedef {import('./decisions.js').CheckResult} CheckResult */
/** @typedef {import('./decisions.js').ProbeName} ProbeName */
/** @typedef {import('../../src/engine/documented-limits/windows.js').ProbePlan} ProbePlan */
/** @typedef {import('./decisions.js').Outcome} Outcome */
/** @typedef {import('./decisions.js').WalkPage} WalkPage */
/** @typedef {import('./decisions.js').SummaryMetric} SummaryMetric */
/** @typedef {import('./decisions.js').K6Group} K6Group */

// ------------------------------------------------------------------ the k6 boundary

/**
 * @typedef {object} HttpAnswer
 * @property {number} status        0 when there was no response
 * @property {string | null} body   null when the body was not read
 * @property {Record<string, string>} headers
 * @property {string} [error]       why there was no response
 */

/**
 * Which statuses k6 counts as expected (kept out of http_req_failed): 'ok' is 2xx and 429, 'ok-or-4xx' is 2xx
 * and every 4xx (a refusal of per_page above the maximum), 'write-probe' is 2xx, 400, 422 and 429.
 * @typedef {'ok' | 'ok-or-4xx' | 'write-probe'} Expect
 */

/**
 * @typedef {object} RequestSpec
 * @property {'GET' | 'POST'} method
 * @property {string} url
 * @property {string | null} body
 * @property {Record<string, string>} headers
 * @property {Record<string, string>} tags
 * @property {string} timeout
 * @property {boolean} readBody  the body is needed (a limit probe never reads it)
 * @property {Expect} expect
 */

/**
 * Everything the glue asks of k6.
 * @typedef {object} Io
 * @property {(req: RequestSpec) => HttpAnswer} request
 * @property {(seconds: number) => void} sleep
 * @property {() => number} now       real clock, milliseconds
 * @property {(message: string) => void} abort  stop the whole test run (k6: exec.test.abort)
 * @property {(message: string) => void} warn
 * @property {(metric: 'limit_accepted' | 'limit_refused', tags: Record<string, string>) => void} count
 * @property {(name: string, ok: boolean, tags: Record<string, string>) => void} check
 * @property {() => { segment: string | null, sequence: string | null }} executionSegment
 */

/**
 * Stops the test with a message; throws as well, so nothing after it runs whatever the Io does. The message is
 * first recorded as a failed check (abortCheckName), the one way it reaches handleSummary.
 * @param {Io} io
 * @param {string} message
 * @returns {never}
 */
function stop(io, message) {
  try {
    io.check(abortCheckName(message), false, { check_id: 'aborted' });
  } catch (err) {
    // The cause is then only in k6's log; the test must stop all the same.
  }
  io.abort(message);
  throw new Error(message);
}

/**
 * A response header by name, whatever its case.
 * @param {HttpAnswer} answer
 * @param {string} name
 * @returns {string | undefined}
 */
function header(answer, name) {
  const want = name.toLowerCase();
  for (const key of Object.keys(answer.headers || {})) if (key.toLowerCase() === want) return answer.headers[key];
  return undefined;
}

// ------------------------------------------------------------------ options

/**
 * Options both scripts share: never follow redirects (only the given host is targeted), a recognisable user
 * agent, a setup timeout long enough for token issuance to wait out one refused window, and the latency
 * percentiles the reports keep. Only options k6 reads from a script: the usage report is turned off on k6's
 * command line (--no-usage-report) or in its environment (K6_NO_USAGE_REPORT=true), see load/README.md; set in a
 * script, k6 warns `unknown field "noUsageReport"`.
 * @param {LoadConfig} cfg
 */
function baseOptions(cfg) {
  return {
    maxRedirects: 0,
    userAgent: 'cloud-api-conformance-load/0.1',
    setupTimeout: `${Math.ceil((2 * windowRealMs(cfg.timeScale)) / 1000) + 60}s`,
    summaryTrendStats: SUMMARY_TREND_STATS.slice(),
  };
}

/** k6 scenario names of the limit probes. */
const SCENARIOS = Object.freeze({
  reads: 'reads_over',
  writes: 'writes_over',
  tokens: 'tokens_over',
  scopeA: 'scope_a',
  scopeB: 'scope_b',
});

/** The scenarios of rate-limits.js, in the order they are reported. */
export const RATE_LIMIT_SCENARIOS = [
  SCENARIOS.reads,
  SCENARIOS.writes,
  SCENARIOS.scopeA,
  SCENARIOS.scopeB,
  SCENARIOS.tokens,
];

/** The one scenario of pagination.js. */
export const PAGINATION_SCENARIO = 'pagination';

/**
 * The plans of the three limit probes under a time scale (the scope probe uses the read plan).
 * @param {number} timeScale
 * @returns {Record<ProbeName, ProbePlan>}
 */
function probePlans(timeScale) {
  return {
    reads: probePlan(LIMITS.reads.limit, timeScale),
    writes: probePlan(LIMITS.writes.limit, timeScale),
    tokens: probePlan(LIMITS.tokens.limit, timeScale),
  };
}

/**
 * An arrival-rate scenario for a plan. The rate is multiplied by the number of segments because k6 divides an
 * arrival rate (and the VUs) across execution segments: each segment then sends the full probe on its own token.
 * Half a second of arrivals is pre-allocated, so the first window is not left unfilled while k6 starts VUs.
 * @param {ProbePlan} plan
 * @param {number} windows
 * @param {string} fn        exported function the scenario runs
 * @param {number} startMs
 * @param {number} segments
 */
function arrivalScenario(plan, windows, fn, startMs, segments) {
  const perSecond = (plan.slotsPerWindow * 1000) / plan.windowMs;
  const pre = Math.ceil(perSecond * 0.5) + 2;
  const max = Math.max(pre, Math.ceil(perSecond * 2) + 4);
  return {
    executor: /** @type {'constant-arrival-rate'} */ ('constant-arrival-rate'),
    rate: plan.slotsPerWindow * segments,
    timeUnit: k6Duration(plan.windowMs),
    duration: k6Duration(plan.windowMs * windows),
    startTime: k6Duration(startMs),
    preAllocatedVUs: pre * segments,
    maxVUs: max * segments,
    gracefulStop: '5s',
    exec: fn,
  };
}

/**
 * When each probe of rate-limits.js starts (real ms after setup). Reads and writes start at once, each on its own
 * token. The scope probe follows the read probe on the same two tokens (the read token and the write token, whose
 * read budget is untouched), once the read probe's last window has ended. The issuance probe waits one window
 * after setup(), whose issuances with the primary key must have left the key's window.
 * @param {LoadConfig} cfg
 */
export function probeStarts(cfg) {
  const plans = probePlans(cfg.timeScale);
  return { reads: 0, writes: 0, scope: afterProbeMs(plans.reads, cfg.windows), tokens: afterProbeMs(plans.tokens, 1) };
}

/**
 * The options of rate-limits.js: its five scenarios and their per-window thresholds.
 * @param {LoadConfig} cfg
 */
export function rateLimitOptions(cfg) {
  const plans = probePlans(cfg.timeScale);
  const starts = probeStarts(cfg);
  const n = cfg.windows;
  const seg = cfg.segments;
  /** @type {Record<string, ReturnType<typeof arrivalScenario>>} */
  const scenarios = {};
  scenarios[SCENARIOS.reads] = arrivalScenario(plans.reads, n, 'reads', starts.reads, seg);
  scenarios[SCENARIOS.writes] = arrivalScenario(plans.writes, n, 'writes', starts.writes, seg);
  scenarios[SCENARIOS.scopeA] = arrivalScenario(plans.reads, n, 'scopeA', starts.scope, seg);
  scenarios[SCENARIOS.scopeB] = arrivalScenario(plans.reads, n, 'scopeB', starts.scope, seg);
  scenarios[SCENARIOS.tokens] = arrivalScenario(
    plans.tokens,
    tokenScenarioWindows(seg, n),
    'tokens',
    starts.tokens,
    seg
  );
  const thresholds = Object.assign(
    trafficThresholds(RATE_LIMIT_SCENARIOS),
    probeThresholds(SCENARIOS.reads, LIMITS.reads.limit, n),
    probeThresholds(SCENARIOS.writes, LIMITS.writes.limit, n),
    probeThresholds(SCENARIOS.scopeA, LIMITS.reads.limit, n),
    probeThresholds(SCENARIOS.scopeB, LIMITS.reads.limit, n),
    probeThresholds(SCENARIOS.tokens, LIMITS.tokens.limit, n)
  );
  return Object.assign({}, baseOptions(cfg), { discardResponseBodies: true, scenarios, thresholds });
}

/**
 * The options of pagination.js: one VU, one iteration (a conformance probe, not load), and its gate.
 * @param {LoadConfig} cfg
 */
export function paginationOptions(cfg) {
  /** @type {Record<string, { executor: 'shared-iterations', vus: number, iterations: number, maxDuration: string, exec: string }>} */
  const scenarios = {};
  scenarios[PAGINATION_SCENARIO] = {
    executor: 'shared-iterations',
    vus: 1,
    iterations: 1,
    // Room for the walk to wait out a few read-limit windows on a long list.
    maxDuration: k6Duration(5 * 60000 + 3 * windowRealMs(cfg.timeScale)),
    exec: 'paginateVms',
  };
  const thresholds = trafficThresholds([PAGINATION_SCENARIO]);
  // Every pagination check passed (an inconclusive one counts as not passed).
  thresholds[`checks{scenario:${PAGINATION_SCENARIO}}`] = ['rate==1'];
  return Object.assign({}, baseOptions(cfg), { scenarios, thresholds });
}

// ------------------------------------------------------------------ setup: tokens per execution segment

/**
 * What setup() hands to every VU of this instance. Tokens are issued by the instance's own setup(), for its own
 * execution segment (k6-operator runs setup() in every runner pod), and never logged.
 * @typedef {object} SetupData
 * @property {SegmentInfo} segment
 * @property {Record<string, string>} tokens
 */

/**
 * Issues one bearer token with an API key. Any 2xx with a token field is an issued token (the seed shows no
 * status); a 429 with Retry-After (target-seconds, scaled to real time) is waited out within a bound; any other
 * answer throws. Neither the key nor the token is ever printed.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {string} apiKey
 * @param {string} purpose  for messages only
 * @returns {string}
 */
function issueToken(io, cfg, apiKey, purpose) {
  const deadline = io.now() + 2 * windowRealMs(cfg.timeScale) + 30000;
  for (let attempt = 1; ; attempt++) {
    const answer = io.request({
      method: 'POST',
      url: `${cfg.baseUrl}/v1/auth/tokens`,
      body: JSON.stringify({ api_key: apiKey }),
      headers: { 'Content-Type': 'application/json' },
      tags: { name: 'POST /v1/auth/tokens (setup)', phase: 'setup' },
      timeout: '30s',
      readBody: true,
      expect: 'ok',
    });
    const outcome = issuanceOutcome(answer.status, answer.body, header(answer, 'Retry-After'), cfg.timeScale);
    if (outcome.kind === 'token') return outcome.token;
    if (outcome.kind === 'wait' && io.now() + outcome.seconds * 1000 < deadline) {
      io.warn(`token issuance for ${purpose} ${outcome.message} (attempt ${attempt}); waiting`);
      io.sleep(outcome.seconds + 0.05);
      continue;
    }
    const why = outcome.kind === 'wait' ? `${outcome.message}, past the setup deadline` : outcome.message;
    throw new Error(
      `token issuance for ${purpose} ${why}${answer.status === 0 && answer.error ? ` (${answer.error})` : ''}`
    );
  }
}

/**
 * This instance's execution segment, from k6's consolidated options.
 * @param {Io} io
 */
function currentSegment(io) {
  const s = io.executionSegment();
  return parseSegment(s.segment, s.sequence);
}

/**
 * setup(): checks this instance's execution segment, then issues one token per purpose for it with the primary
 * key. Whatever goes wrong stops the test through exec.test.abort, never as an exception: k6 v0.38 runs
 * handleSummary after an abort but not after an exception in setup(), and the reports must say why the test
 * never started.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {string[]} purposes
 * @param {{ enforceSegments: boolean }} opts  enforce CONFORMANCE_SEGMENTS (the rate-limit probes need it)
 * @returns {SetupData}
 */
export function setupTokens(io, cfg, purposes, opts) {
  try {
    const segment = currentSegment(io);
    if (opts.enforceSegments) {
      const mismatch = segmentMismatch(segment, cfg.segments);
      if (mismatch) throw new Error(mismatch);
    }
    /** @type {Record<string, string>} */
    const tokens = {};
    for (const p of purposes) tokens[p] = issueToken(io, cfg, cfg.apiKey, p);
    return { segment, tokens };
  } catch (err) {
    return stop(io, err instanceof Error ? err.message : String(err));
  }
}

/**
 * Why setup data cannot be used by this instance, or undefined. If setup() ever ran once for a whole distributed
 * test and its data were shared, every segment would use one token and a per-token probe would be split across
 * segments: the scripts refuse to run rather than measure that.
 * @param {unknown} data
 * @param {SegmentInfo} mine
 */
function setupDataProblem(data, mine) {
  const segment = /** @type {Partial<SegmentInfo> | undefined} */ (fieldOf(data, 'segment'));
  const label = segment && typeof segment.label === 'string' ? segment.label : '(none)';
  if (label !== mine.label)
    return `setup data were made for execution segment ${label} but this instance runs ${mine.label}: per-token probes need their own setup() per segment`;
  const tokens = fieldOf(data, 'tokens');
  if (tokens === null || typeof tokens !== 'object') return 'setup data hold no tokens';
  return undefined;
}

/**
 * A guard for one VU: the first call checks the setup data against this instance's segment (aborting the test
 * when they do not match), later calls pass them through.
 * @param {Io} io
 * @returns {(data: unknown) => SetupData}
 */
export function setupGuard(io) {
  let checked = false;
  return (data) => {
    if (!checked) {
      const problem = setupDataProblem(data, currentSegment(io));
      if (problem) stop(io, problem);
      checked = true;
    }
    return /** @type {SetupData} */ (data);
  };
}

/**
 * The Authorization header for a purpose's token.
 * @param {Io} io
 * @param {SetupData} data
 * @param {string} purpose
 */
export function bearer(io, data, purpose) {
  const token = data.tokens[purpose];
  if (!token) stop(io, `no token for ${purpose} in the setup data`);
  return { Authorization: `Bearer ${token}` };
}

// ------------------------------------------------------------------ limit probes

/**
 * @typedef {object} ProbeSpec
 * @property {ProbeName} probe         how answers are classified
 * @property {string} label            the `probe` tag
 * @property {ProbePlan} plan
 * @property {number} windows          windows the probe measures
 * @property {number} [turnOf]         token issuance: the segment whose turn decides the windows
 * @property {'GET' | 'POST'} method
 * @property {string} url
 * @property {string | null} body
 * @property {Record<string, string>} headers
 * @property {string} name             the `name` tag of the request
 * @property {Expect} expect
 */

/**
 * @typedef {object} ProbeStep
 * @property {number} window
 * @property {boolean} limited
 * @property {number} status
 * @property {Outcome} outcome
 */

/**
 * One arrival-rate iteration of a limit probe: the moment it runs decides its window and slot (a guard slot, a
 * window past the probe or another segment's turn sends nothing); the request is tagged with its window, and its
 * answer counted as accepted or refused for that window.
 * @param {Io} io
 * @param {ProbeSpec} spec
 * @param {number} elapsedMs  since the probe's scenario started
 * @returns {ProbeStep | undefined}
 */
export function probeIteration(io, spec, elapsedMs) {
  const at = slotAt(elapsedMs, spec.plan);
  const window = spec.turnOf === undefined ? at.window : tokenTurnWindow(at.window, spec.turnOf, spec.windows);
  if (window < 0 || window >= spec.windows) return undefined;
  const role = slotRole(spec.plan, window, at.position);
  if (!role.send) return undefined;
  // `limited: yes` marks requests beyond the documented allowance of their window (expected to be refused).
  const tags = { window: String(window), limited: role.limited ? 'yes' : 'no', probe: spec.label };
  const answer = io.request({
    method: spec.method,
    url: spec.url,
    body: spec.body,
    headers: spec.headers,
    tags: Object.assign({ name: spec.name }, tags),
    timeout: '10s',
    readBody: false,
    expect: spec.expect,
  });
  const outcome = classifyStatus(spec.probe, answer.status);
  if (outcome === 'accepted') io.count('limit_accepted', tags);
  else if (outcome === 'refused') io.count('limit_refused', tags);
  return { window, limited: role.limited, status: answer.status, outcome };
}

/**
 * The probe of rate-limits.js that a scenario function runs.
 * @param {LoadConfig} cfg
 * @param {SetupData} data
 * @param {Io} io
 * @param {'reads' | 'writes' | 'tokens' | 'scopeA' | 'scopeB'} which
 * @returns {ProbeSpec}
 */
export function probeSpec(cfg, data, io, which) {
  const plans = probePlans(cfg.timeScale);
  if (which === 'writes') {
    // {} lacks every create field: a conforming target refuses it and creates nothing.
    return {
      probe: 'writes',
      label: 'writes',
      plan: plans.writes,
      windows: cfg.windows,
      method: 'POST',
      url: `${cfg.baseUrl}/v1/vms`,
      body: '{}',
      headers: Object.assign({ 'Content-Type': 'application/json' }, bearer(io, data, 'writes')),
      name: 'POST /v1/vms (invalid body)',
      expect: 'write-probe',
    };
  }
  if (which === 'tokens') {
    // Key B when given, so the primary key's issuances in setup() (every runner's) cannot share the probed window.
    // The issued tokens are discarded with the body (never read or printed).
    return {
      probe: 'tokens',
      label: 'tokens',
      plan: plans.tokens,
      windows: cfg.windows,
      turnOf: data.segment.index,
      method: 'POST',
      url: `${cfg.baseUrl}/v1/auth/tokens`,
      body: JSON.stringify({ api_key: cfg.apiKeyB || cfg.apiKey }),
      headers: { 'Content-Type': 'application/json' },
      name: 'POST /v1/auth/tokens',
      expect: 'ok',
    };
  }
  // Reads, and the scope probe's two tokens of the primary key: the read token and the write token.
  const token = which === 'scopeB' ? 'writes' : 'reads';
  return {
    probe: 'reads',
    label: which === 'reads' ? 'reads' : 'scope',
    plan: plans.reads,
    windows: cfg.windows,
    method: 'GET',
    url: `${cfg.baseUrl}/v1/vms?per_page=1`,
    body: null,
    headers: bearer(io, data, token),
    name: 'GET /v1/vms',
    expect: 'ok',
  };
}

/**
 * The checks of rate-limits.js from k6's end-of-test metrics, with the per-window details.
 * @param {Record<string, SummaryMetric | undefined>} metrics
 * @param {number} windows
 * @returns {{ checks: CheckResult[], details: Record<string, unknown> }}
 */
export function rateLimitResults(metrics, windows) {
  /** @type {Record<string, unknown>} */
  const probes = {};
  /** @type {ProbeName[]} */
  const names = ['reads', 'writes', 'tokens'];
  const checks = names.map((p) => {
    const verdict = judgeProbe(LIMITS[p].limit, windowCountsFromMetrics(metrics, SCENARIOS[p], windows));
    probes[p] = { scenario: SCENARIOS[p], verdict: verdict.verdict, windows: verdict.windows };
    return limitCheck(p, verdict);
  });
  const scope = judgeScope(
    LIMITS.reads.limit,
    windowCountsFromMetrics(metrics, SCENARIOS.scopeA, windows),
    windowCountsFromMetrics(metrics, SCENARIOS.scopeB, windows)
  );
  probes['scope'] = {
    scenarios: [SCENARIOS.scopeA, SCENARIOS.scopeB],
    check: SCOPE_CHECK.id,
    verdict: scope.verdict,
    token1: scope.a,
    token2: scope.b,
  };
  checks.push(scopeCheck(scope));
  return { checks, details: { probes } };
}

// ------------------------------------------------------------------ pagination

/**
 * GET /v1/vms with a query; a 429 is waited out (Retry-After in target-seconds, scaled) up to 5 times.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {Record<string, string>} auth
 * @param {Record<string, number>} query
 * @param {Expect} expect
 */
function listVms(io, cfg, auth, query, expect) {
  const keys = Object.keys(query);
  const qs = keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(query[k]))}`).join('&');
  for (let attempt = 0; ; attempt++) {
    const answer = io.request({
      method: 'GET',
      url: `${cfg.baseUrl}/v1/vms?${qs}`,
      body: null,
      headers: auth,
      tags: { name: `GET /v1/vms?${keys.join('&')}` },
      timeout: '30s',
      readBody: true,
      expect,
    });
    if (answer.status !== 429 || attempt >= 5) return answer;
    const wait = retryAfterRealSeconds(header(answer, 'Retry-After'), cfg.timeScale);
    io.sleep((wait === undefined ? windowRealMs(cfg.timeScale) / 1000 : wait) + 0.05);
  }
}

/**
 * The parsed body of a list answer and the ids of its vms array (undefined when there is no such array).
 * @param {HttpAnswer} answer
 * @returns {{ body: unknown, ids: unknown[] | undefined }}
 */
function vmIds(answer) {
  const body = parseJson(answer.body);
  const vms = fieldOf(body, 'vms');
  const ids = Array.isArray(vms) ? vms.map((v) => fieldOf(v, 'id')) : undefined;
  return { body, ids };
}

/**
 * pagination.js: walks GET /v1/vms at per_page=100 from page 1 (page 1 is also the per_page=100 check), then asks
 * for per_page=101 and 1000 and judges them with what the walk learnt of the list's size.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {Record<string, string>} auth
 * @returns {CheckResult[]}
 */
export function paginate(io, cfg, auth) {
  /** @type {WalkPage[]} */
  const pages = [];
  /** @type {CheckResult | undefined} */
  let first;
  let outcome = {
    complete: false,
    stoppedBecause: `stopped at the page cap of ${cfg.maxPages} (CONFORMANCE_MAX_PAGES)`,
  };
  for (let page = 1; page <= cfg.maxPages; page++) {
    const answer = listVms(io, cfg, auth, { per_page: PER_PAGE_MAX, page }, 'ok');
    const parsed = vmIds(answer);
    if (page === 1) first = judgePerPage(PER_PAGE_MAX, answer.status, parsed.ids ? parsed.ids.length : undefined);
    if (!isSuccess(answer.status) || parsed.ids === undefined) {
      const what = answer.status
        ? `answered ${answer.status}${isSuccess(answer.status) ? ' without a vms array' : ''}`
        : 'had no response';
      outcome = { complete: false, stoppedBecause: `page ${page} ${what}` };
      break;
    }
    pages.push({ page, status: answer.status, ids: parsed.ids, body: parsed.body });
    if (parsed.ids.length < PER_PAGE_MAX) {
      outcome = {
        complete: true,
        stoppedBecause: `page ${page} held ${parsed.ids.length} items, fewer than ${PER_PAGE_MAX}`,
      };
      break;
    }
  }
  const judged = judgeWalk(pages, PER_PAGE_MAX, outcome, cfg.totalField);
  const over = [PER_PAGE_MAX + 1, 1000].map((perPage) => {
    const answer = listVms(io, cfg, auth, { per_page: perPage }, 'ok-or-4xx');
    const ids = vmIds(answer).ids;
    return judgePerPage(perPage, answer.status, ids ? ids.length : undefined, judged.list);
  });
  /** @type {CheckResult[]} */
  const out = [];
  if (first) out.push(first);
  return out.concat(over, [judged.walk, judged.total]);
}

/**
 * Reports checks through k6 check(): one evaluation per name "<id>: <message>" (see checkName), which is how
 * handleSummary gets the messages back. A check that did not pass is also printed.
 * @param {Io} io
 * @param {CheckResult[]} results
 */
export function reportChecks(io, results) {
  for (const r of results) {
    const name = checkName(r);
    io.check(name, r.status === 'passed', { check_id: r.id });
    if (r.status !== 'passed') io.warn(name);
  }
}

// ------------------------------------------------------------------ handleSummary

/**
 * The subset of k6's handleSummary() argument the scripts read.
 * @typedef {object} SummaryData
 * @property {Record<string, SummaryMetric | undefined>} metrics
 * @property {K6Group} [root_group]
 * @property {{ testRunDurationMs?: number }} [state]
 * @property {unknown} [setup_data]
 */

/**
 * Every secret that could reach a report: the API keys and the tokens in the setup data.
 * @param {LoadConfig} cfg
 * @param {SummaryData} data
 * @returns {string[]}
 */
function secretsOf(cfg, data) {
  /** @type {string[]} */
  const out = [cfg.apiKey];
  if (cfg.apiKeyB) out.push(cfg.apiKeyB);
  const tokens = fieldOf(data.setup_data, 'tokens');
  if (tokens !== null && typeof tokens === 'object') {
    const list = /** @type {Record<string, unknown>} */ (tokens);
    for (const k of Object.keys(list)) if (typeof list[k] === 'string') out.push(/** @type {string} */ (list[k]));
  }
  return out;
}

/**
 * handleSummary() of both scripts: summary.json and junit.xml (in CONFORMANCE_OUT_DIR, default k6-out/) and text
 * on stdout, all redacted. k6's raw summary data (which includes setup_data, hence the tokens) is never written.
 * A test the scripts stopped has the verdict `error` and its cause (from the abort check, runErrorFromK6); when
 * setup() never handed over its data no probe ran, so no check is reported. The traffic figures (latency
 * percentiles, 429s per scenario) replace what k6's own end-of-test summary would have shown.
 * @param {LoadConfig} cfg
 * @param {string} script
 * @param {SummaryData} data
 * @param {CheckResult[]} checks
 * @param {Record<string, unknown>} details
 * @param {string[]} scenarios  the script's scenarios, for the traffic figures
 */
export function summarize(cfg, script, data, checks, details, scenarios) {
  const segment = fieldOf(data.setup_data, 'segment');
  const label = fieldOf(segment, 'label');
  const setupCompleted = segment !== undefined;
  const error = runErrorFromK6(data.root_group, setupCompleted);
  const metrics = data.metrics || {};
  const summary = buildSummary({
    script,
    baseUrl: cfg.baseUrl,
    timeScale: cfg.timeScale,
    // Without setup data the segment is not known here (k6 gives handleSummary no execution context).
    segment: typeof label === 'string' ? label : 'unknown',
    checks: setupCompleted ? checks : [],
    error,
    thresholds: thresholdResults(metrics, Object.keys(trafficThresholds(scenarios))),
    traffic: trafficFromMetrics(metrics, scenarios, cfg.timeScale),
    details,
    durationMs: data.state && data.state.testRunDurationMs ? data.state.testRunDurationMs : 0,
  });
  return summaryOutputs(summary, secretsOf(cfg, data), reportPaths(cfg));
}
