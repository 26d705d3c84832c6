// k6 script: pagination of GET /v1/vms (seed sections 4 and 8).
//   pagination.per-page-100   per_page=100 is accepted and yields at most 100 items
//   pagination.per-page-101   per_page=101 yields at most 100 items, or a 4xx refusal
//   pagination.per-page-1000  per_page=1000 likewise
//   pagination.walk           walking per_page=100 from page 1: no duplicate ids, no gaps
//   pagination.total          an integer total/count field (or CONFORMANCE_TOTAL_FIELD) equals the walked count
// A list of 100 items or fewer cannot show clamping, page boundaries or a total of all pages: those checks are
// then inconclusive and say how many more VMs the list needs. One VU, one iteration: a conformance probe, not
// load. Needs k6 v0.38.0 or later; run it with --no-usage-report. See load/README.md.
import { config, io } from './lib/k6common.js';
import {
  PAGINATION_SCENARIO,
  bearer,
  paginate,
  paginationOptions,
  reportChecks,
  setupGuard,
  setupTokens,
  summarize,
} from './lib/flow.js';
import { checkResultsFromK6 } from './lib/decisions.js';

/** @typedef {import('./lib/flow.js').SetupData} SetupData */
/** @typedef {import('./lib/flow.js').SummaryData} SummaryData */

/** @type {import('k6/options').Options} */
export const options = paginationOptions(config);

/** @returns {SetupData} */
export function setup() {
  return setupTokens(io, config, ['pagination'], { enforceSegments: false });
}

const guard = setupGuard(io);

/** @param {unknown} data */
export function paginateVms(data) {
  const d = guard(data);
  reportChecks(io, paginate(io, config, bearer(io, d, 'pagination')));
}

/** @param {SummaryData} data */
export function handleSummary(data) {
  return summarize(
    config,
    'pagination.js',
    data,
    checkResultsFromK6(data.root_group),
    { maxPages: config.maxPages, totalField: config.totalField || 'discovered' },
    [PAGINATION_SCENARIO]
  );
}
