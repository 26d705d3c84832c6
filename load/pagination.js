// k6 script: pagination of GET /v1/vms (seed sections 4 and 8).
//   pagination.per-page-100   per_page=100 is accepted and yields at most 100 items
//   pagination.per-page-101   per_page=101 yields at most 100 items, or a 4xx refusal
//   pagination.per-page-1000  per_page=1000 likewise
//   pagination.walk           walking per_page=100 from page 1: no duplicate ids, no gaps
//   pagination.total          an integer total/count field (or CONFORMANCE_TOTAL_FIELD) equals the walked count
// One VU, one iteration: this is a conformance probe, not load. Each check is a k6 check() whose name carries
// its result message ("<id>: <message>"), so handleSummary can write it to summary.json and junit.xml.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { judgePerPage, judgeWalk, retryAfterRealSeconds, PER_PAGE_MAX, k6Duration, windowRealMs, checkName, checkResultsFromK6 } from './lib/verdicts.js';
import { config, baseOptions, setupTokens, checkedSetup, bearer, summarize } from './lib/k6common.js';

/** @typedef {import('./lib/k6common.js').SetupData} SetupData */
/** @typedef {import('./lib/k6common.js').SummaryData} SummaryData */
/** @typedef {import('./lib/verdicts.js').CheckResult} CheckResult */
/** @typedef {import('./lib/verdicts.js').WalkPage} WalkPage */

http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }, 429));
// Above the maximum a 4xx refusal is as good as clamping.
const OVER_MAX_EXPECTED = http.expectedStatuses({ min: 200, max: 299 }, { min: 400, max: 499 });

/** @type {import('k6/options').Options} */
export const options = {
  ...baseOptions,
  scenarios: {
    pagination: {
      executor: 'shared-iterations',
      vus: 1,
      iterations: 1,
      // Room for the walk to wait out a few read-limit windows on a long list.
      maxDuration: k6Duration(5 * 60_000 + 3 * windowRealMs(config.timeScale)),
      exec: 'paginate',
    },
  },
  thresholds: {
    // Every pagination check passed (an inconclusive one counts as not passed).
    'checks{scenario:pagination}': ['rate==1'],
  },
};

/** @returns {SetupData} */
export function setup() {
  return setupTokens(['pagination'], { enforceSegments: false });
}

/**
 * GET /v1/vms with a query; a 429 is waited out (Retry-After in target-seconds, scaled) up to 5 times.
 * @param {SetupData} data
 * @param {Record<string, number>} query
 * @param {import('k6/http').Params} [extra]
 */
function list(data, query, extra = {}) {
  const qs = Object.entries(query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
  for (let attempt = 0; ; attempt++) {
    const res = http.get(`${config.baseUrl}/v1/vms?${qs}`, {
      headers: bearer(data, 'pagination'),
      tags: { name: `GET /v1/vms?${Object.keys(query).join('&')}` },
      timeout: '30s',
      ...extra,
    });
    const wait = retryAfterRealSeconds(res.headers['Retry-After'], config.timeScale);
    if (res.status === 429 && attempt < 5) {
      sleep((wait ?? windowRealMs(config.timeScale) / 1000) + 0.05);
      continue;
    }
    return res;
  }
}

/**
 * The parsed body and the ids of its vms array (undefined when there is no such array).
 * @param {import('k6/http').RefinedResponse<import('k6/http').ResponseType | undefined>} res
 */
function parse(res) {
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(String(res.body ?? ''));
  } catch {
    body = undefined;
  }
  const vms = body && typeof body === 'object' ? /** @type {Record<string, unknown>} */ (body)['vms'] : undefined;
  const ids = Array.isArray(vms) ? vms.map((v) => (v && typeof v === 'object' ? /** @type {Record<string, unknown>} */ (v)['id'] : undefined)) : undefined;
  return { body, ids };
}

/** @param {CheckResult} r */
function report(r) {
  const name = checkName(r);
  check(null, { [name]: () => r.status === 'passed' }, { check_id: r.id });
  if (r.status !== 'passed') console.warn(name);
}

/** @param {SetupData} data */
export function paginate(data) {
  checkedSetup(data);
  for (const perPage of [PER_PAGE_MAX, PER_PAGE_MAX + 1, 1000]) {
    const res = list(data, { per_page: perPage }, perPage > PER_PAGE_MAX ? { responseCallback: OVER_MAX_EXPECTED } : {});
    report(judgePerPage(perPage, res.status, parse(res).ids?.length));
  }

  /** @type {WalkPage[]} */
  const pages = [];
  let outcome = { complete: false, stoppedBecause: `stopped at the page cap of ${config.maxPages} (CONFORMANCE_MAX_PAGES)` };
  for (let page = 1; page <= config.maxPages; page++) {
    const res = list(data, { per_page: PER_PAGE_MAX, page });
    const { body, ids } = parse(res);
    if (res.status < 200 || res.status > 299 || ids === undefined) {
      outcome = { complete: false, stoppedBecause: `page ${page} answered ${res.status || 'with no response'}${ids === undefined && res.status === 200 ? ' without a vms array' : ''}` };
      break;
    }
    pages.push({ page, status: res.status, ids, body });
    if (ids.length < PER_PAGE_MAX) {
      outcome = { complete: true, stoppedBecause: `page ${page} held ${ids.length} items, fewer than ${PER_PAGE_MAX}` };
      break;
    }
  }
  const judged = judgeWalk(pages, PER_PAGE_MAX, outcome, config.totalField);
  report(judged.walk);
  report(judged.total);
}

/** @param {SummaryData} data */
export function handleSummary(data) {
  const checks = checkResultsFromK6(data.root_group);
  return summarize('pagination.js', data, checks, { maxPages: config.maxPages, totalField: config.totalField ?? 'discovered' });
}
