// Generated from verdicts.js by test/load/dts.test.ts (UPDATE_LOAD_DTS=1 npx vitest run test/load/dts.test.ts); do not edit.
/**
 * The one-line error for a k6 that lacks features the scripts call, or undefined when all are there.
 * @param {Record<string, boolean>} present  feature name → found
 */
export function k6FeatureProblem(present: Record<string, boolean>): string | undefined;
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
export function readConfig(env: Record<string, string | undefined>): LoadConfig;
/**
 * Where handleSummary writes its reports: CONFORMANCE_SUMMARY_JSON / CONFORMANCE_JUNIT when given, else
 * summary.json and junit.xml in CONFORMANCE_OUT_DIR (k6-out by default, never the repository root).
 * @param {Pick<LoadConfig, 'outDir' | 'summaryJson' | 'junit'>} cfg
 */
export function reportPaths(cfg: Pick<LoadConfig, "outDir" | "summaryJson" | "junit">): {
    json: string;
    junit: string;
};
/**
 * Real milliseconds of one 60-target-second window under a time scale.
 * @param {number} timeScale
 */
export function windowRealMs(timeScale: number): number;
/**
 * A k6 duration string for real milliseconds (whole milliseconds; k6 accepts "6000ms").
 * @param {number} ms
 */
export function k6Duration(ms: number): string;
/**
 * Real seconds to wait for a Retry-After header given in target-seconds (an HTTP date is not scaled).
 * Returns undefined when the header is absent or unreadable.
 * @param {string | undefined | null} header
 * @param {number} timeScale
 * @param {number} [nowMs]  real clock, for HTTP-date values
 */
export function retryAfterRealSeconds(header: string | undefined | null, timeScale: number, nowMs?: number): number | undefined;
/**
 * @typedef {object} ProbePlan
 * @property {number} limit          documented accepted requests per window
 * @property {number} over           requests sent beyond the limit in each window ("just above" the rate)
 * @property {number} guard          idle arrival slots per window (no request sent): lead + tail
 * @property {number} lead           idle slots at the start of every window but the first
 * @property {number} slotsPerWindow arrival-rate iterations per window = limit + over + guard
 * @property {number} windowMs       real length of a window
 * @property {number} slotMs         real spacing of the arrival slots
 */
/**
 * How a probe paces one limit: each window sends `limit + over` requests and keeps `guard` arrival slots idle,
 * so the limit is pushed about 10% above its rate. The idle slots sit on both sides of every window boundary
 * (`lead` at the start of each window after the first, the rest at the end), so no request is sent close to a
 * boundary: a request that reaches the target a little early or late still lands in its own window. The first
 * window starts with a request: the probe's first request opens the target's window.
 * @param {number} limit
 * @param {number} timeScale
 * @returns {ProbePlan}
 */
export function probePlan(limit: number, timeScale: number): ProbePlan;
/**
 * @typedef {object} Slot
 * @property {number} window     window index counted from the start of the scenario (-1 before it)
 * @property {number} position   arrival slot within the window
 */
/**
 * Which window and slot a moment belongs to, from the real time elapsed since the probe started: the moment a
 * request is sent decides its window, so a late or dropped iteration never shifts a later one.
 * @param {number} elapsedMs
 * @param {ProbePlan} plan
 * @returns {Slot}
 */
export function slotAt(elapsedMs: number, plan: ProbePlan): Slot;
/**
 * @typedef {object} SlotRole
 * @property {boolean} send     a request is sent in this slot
 * @property {boolean} limited  the documented limit says this request is over the allowance
 */
/**
 * What a slot of a probe window does: the first window sends from its first slot (that request opens the
 * target's window), every later window after `lead` idle slots; then `limit + over` requests; then idle.
 * @param {ProbePlan} plan
 * @param {number} probeWindow  window index within the probe
 * @param {number} position
 * @returns {SlotRole}
 */
export function slotRole(plan: ProbePlan, probeWindow: number, position: number): SlotRole;
/**
 * When a probe that follows another on the same tokens may start: one window plus 10% after the earlier one
 * started its last window, so the target's last window of the earlier probe has ended.
 * @param {ProbePlan} plan
 * @param {number} windows  windows of the earlier probe
 */
export function afterProbeMs(plan: ProbePlan, windows: number): number;
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
export function parseSegment(segment: string | null | undefined, sequence: string | null | undefined): SegmentInfo;
/**
 * Checks that the run is split the way the scripts were told (CONFORMANCE_SEGMENTS equal segments), because the
 * arrival rates were multiplied by that number so that each segment pushes the full limit on its own token.
 * Returns an error message, or undefined when consistent.
 * @param {SegmentInfo} seg
 * @param {number} declaredSegments
 */
export function segmentMismatch(seg: SegmentInfo, declaredSegments: number): string | undefined;
/**
 * The token-issuance limit is per API key, and a segment cannot get its own key, so segments take turns:
 * segment i probes the key during windows [i*(n+1), i*(n+1)+n) of the scenario and stays idle otherwise (one idle
 * window between turns lets the previous turn's window expire). Returns the window within the turn, or -1.
 * @param {number} scenarioWindow  window index since the scenario started
 * @param {number} segmentIndex
 * @param {number} windows         windows per turn
 */
export function tokenTurnWindow(scenarioWindow: number, segmentIndex: number, windows: number): number;
/**
 * Windows the token-issuance scenario lasts so that every segment has its turn.
 * @param {number} segments
 * @param {number} windows
 */
export function tokenScenarioWindows(segments: number, windows: number): number;
/** @typedef {'accepted' | 'refused' | 'unanswered'} Outcome */
/**
 * Whether a status is a success. The seed shows no status for any success, so every 2xx counts.
 * @param {number} status
 */
export function isSuccess(status: number): boolean;
/**
 * What a response means for a limit probe. Reads and token requests are accepted on 2xx. The write probe sends an
 * invalid create body ({}), so a write is accepted (it passed the limiter and was processed) on 2xx, 400 or 422.
 * Every other status is a refusal (429 is the usual one; the seed does not show which). Status 0 means no
 * response (timeout, connection error): the target may or may not have counted it.
 * @param {ProbeName} probe
 * @param {number} status
 * @returns {Outcome}
 */
export function classifyStatus(probe: ProbeName, status: number): Outcome;
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
export function issuanceOutcome(status: number, body: string | null | undefined, retryAfter: string | null | undefined, timeScale: number): IssuanceOutcome;
/**
 * JSON.parse that answers undefined for anything that is not JSON.
 * @param {string | null | undefined} body
 * @returns {unknown}
 */
export function parseJson(body: string | null | undefined): unknown;
/**
 * A field of a JSON object, or undefined when the value is not an object.
 * @param {unknown} value
 * @param {string} name
 * @returns {unknown}
 */
export function fieldOf(value: unknown, name: string): unknown;
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
 * Judges one 60-target-second window of a limit probe, on the requests sent inside it.
 * - not more than `limit` sent: inconclusive (not filled; nothing it shows can be told from the target's windows
 *   lying elsewhere than the probe's);
 * - more than `limit` accepted: looser (the target let through more than documented);
 * - exactly `limit` accepted: pass;
 * - fewer than `limit` accepted while refusals came before the limit could have been used up (even counting every
 *   unanswered request as accepted): stricter;
 * - otherwise inconclusive: unanswered requests hide the count.
 * @param {number} limit
 * @param {WindowCounts} counts
 * @param {number} [index]
 * @returns {WindowVerdict}
 */
export function judgeWindow(limit: number, counts: WindowCounts, index?: number): WindowVerdict;
/**
 * @typedef {object} ProbeVerdict
 * @property {Verdict} verdict
 * @property {string} message
 * @property {WindowVerdict[]} windows
 */
/**
 * Judges each window of a probe. A window that follows one that was not filled is inconclusive whatever its
 * counts: the target's previous window may have had budget left, which this window's first requests could
 * have spent and been counted for.
 * @param {number} limit
 * @param {WindowCounts[]} windows
 * @returns {WindowVerdict[]}
 */
export function judgeWindows(limit: number, windows: WindowCounts[]): WindowVerdict[];
/**
 * Judges a whole probe from its windows. Pass needs every window to pass; a looser (or stricter) window makes the
 * probe looser (stricter) unless other windows point the other way, which happens when the target's windows are
 * not aligned with the probe's (e.g. clock-aligned windows): that is inconclusive. No windows: inconclusive.
 * @param {number} limit
 * @param {WindowCounts[]} windows
 * @returns {ProbeVerdict}
 */
export function judgeProbe(limit: number, windows: WindowCounts[]): ProbeVerdict;
/**
 * @typedef {object} ScopeVerdict
 * @property {Verdict} verdict   pass, shared, or inconclusive
 * @property {string} message
 * @property {WindowVerdict[]} a  windows of the first token
 * @property {WindowVerdict[]} b  windows of the second token
 */
/**
 * Judges the scope probe: two tokens of one API key, each pushed over the read limit at the same time.
 * - every window of both tokens passes: each token had its own budget (pass);
 * - in a window where both tokens were filled, the two together got no more than one token's limit: the budget
 *   is shared by the key's tokens, or by the address they come from (shared: the seed says per token);
 * - otherwise inconclusive (a per-token budget of another size is the read probe's finding, not this one's).
 * @param {number} limit
 * @param {WindowCounts[]} a
 * @param {WindowCounts[]} b
 * @returns {ScopeVerdict}
 */
export function judgeScope(limit: number, a: WindowCounts[], b: WindowCounts[]): ScopeVerdict;
/**
 * The name k6 gives a submetric: `metric{tag:value,...}` with the tags in the order given. The scripts build
 * their thresholds and read the end-of-test summary with this one function, so the names always match.
 * @param {string} metric
 * @param {Record<string, string | number>} tags
 */
export function submetricName(metric: string, tags: Record<string, string | number>): string;
/**
 * Names of the per-window submetrics of one probe scenario.
 * @param {string} scenario
 * @param {number} window
 */
export function windowMetricNames(scenario: string, window: number): {
    sent: string;
    accepted: string;
    refused: string;
};
/**
 * Thresholds of one probe scenario: in every window more than `limit` requests were sent (the limit was pushed),
 * exactly `limit` were accepted (the documented limit), and some were refused (the limit is enforced).
 * @param {string} scenario
 * @param {number} limit
 * @param {number} windows
 * @returns {Record<string, string[]>}
 */
export function probeThresholds(scenario: string, limit: number, windows: number): Record<string, string[]>;
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
export function windowCountsFromMetrics(metrics: Record<string, SummaryMetric | undefined>, scenario: string, windows: number): WindowCounts[];
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
export function analyzeWalk(pages: WalkPage[], perPage: number): WalkAnalysis;
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
export function discoverTotalField(bodies: unknown[], walkedCount: number, declared?: string): TotalDiscovery;
/**
 * Dot paths of integer fields named like a total, exact names first.
 * @param {unknown} body
 * @returns {string[]}
 */
export function totalCandidatePaths(body: unknown): string[];
/**
 * @param {unknown} obj
 * @param {string} path
 * @returns {unknown}
 */
export function readPath(obj: unknown, path: string): unknown;
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
export function shortListReason(list: ListSize): string | undefined;
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
export function judgeWalk(pages: WalkPage[], perPage: number, outcome: {
    complete: boolean;
    stoppedBecause: string;
}, declaredTotal?: string): {
    walk: CheckResult;
    total: CheckResult;
    analysis: WalkAnalysis;
    discovery: TotalDiscovery;
    list: ListSize;
};
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
export function judgePerPage(perPage: number, status: number, items: number | undefined, list?: ListSize): CheckResult;
/**
 * The conformance check of a limit probe.
 * @param {ProbeName} probe
 * @param {ProbeVerdict} v
 * @returns {CheckResult}
 */
export function limitCheck(probe: ProbeName, v: ProbeVerdict): CheckResult;
/**
 * The conformance check of the scope probe.
 * @param {ScopeVerdict} v
 * @returns {CheckResult}
 */
export function scopeCheck(v: ScopeVerdict): CheckResult;
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
export function k6Checks(group: K6Group | undefined): Array<{
    name: string;
    passes: number;
    fails: number;
}>;
/**
 * The k6 check() name that carries a check's result: "<id>: <message>", or "<id>: skipped: <message>". With one
 * iteration per check, each name is evaluated once, so the name is the report line.
 * @param {CheckResult} r
 */
export function checkName(r: CheckResult): string;
/**
 * Check results back from k6's summary group tree (the inverse of checkName). A name evaluated several times
 * fails if any evaluation failed; names that are not "<id>: ..." keep the whole name as id.
 * @param {K6Group | undefined} group
 * @returns {CheckResult[]}
 */
export function checkResultsFromK6(group: K6Group | undefined): CheckResult[];
/** The documented limits (seed section 8): requests accepted per 60-second window. */
export const LIMITS: Readonly<{
    reads: Readonly<{
        limit: 300;
        scope: "token";
        clause: "LIMIT-READ-300";
        title: "Read requests: 300 per minute per token";
    }>;
    writes: Readonly<{
        limit: 60;
        scope: "token";
        clause: "LIMIT-WRITE-60";
        title: "Write requests: 60 per minute per token";
    }>;
    tokens: Readonly<{
        limit: 10;
        scope: "API key";
        clause: "LIMIT-TOKEN-10";
        title: "Token issuance: 10 per minute per API key";
    }>;
}>;
/** Documented maximum of per_page (seed sections 4 and 8). */
export const PER_PAGE_MAX: 100;
/** Length of a limit window in target time. */
export const WINDOW_TARGET_MS: 60000;
/**
 * The oldest k6 the scripts run on: k6/execution's test.options (read by setup() for the execution segment)
 * arrived in v0.38.0. The syntax (ES2015 modules) is older than that; see load/README.md.
 */
export const MIN_K6_VERSION: "0.38.0";
/** Default directory of summary.json and junit.xml (relative to k6's working directory). */
export const DEFAULT_OUT_DIR: "k6-out";
/** @typedef {'reads' | 'writes' | 'tokens'} ProbeName */
/** @typedef {'pass' | 'stricter' | 'looser' | 'shared' | 'inconclusive'} Verdict */
/**
 * The k6 APIs the scripts call that older k6 lacks, with the release that brought each. k6 gives a script no
 * version number, so the scripts look for these instead.
 */
export const K6_FEATURES: readonly {
    name: string;
    since: string;
}[];
/** The scope check: two tokens of one key each get the read budget (seed section 8: "per token"). */
export const SCOPE_CHECK: Readonly<{
    id: "limits.token-scope";
    clause: "LIMIT-READ-300";
    title: "Read requests are limited per token: two tokens of one API key each get 300 per minute";
}>;
/** Clauses and level of the checks the scripts report through k6 check() names. */
export const CHECK_META: Readonly<{
    'pagination.per-page-100': {
        clauses: string[];
        level: "must";
    };
    'pagination.per-page-101': {
        clauses: string[];
        level: "must";
    };
    'pagination.per-page-1000': {
        clauses: string[];
        level: "must";
    };
    'pagination.walk': {
        clauses: string[];
        level: "must";
    };
    'pagination.total': {
        clauses: string[];
        level: "must";
    };
}>;
export type LoadConfig = {
    baseUrl: string;
    apiKey: string;
    apiKeyB: string | undefined;
    /**
     * target-seconds per real second
     */
    timeScale: number;
    /**
     * limit windows measured per probe
     */
    windows: number;
    /**
     * equal execution segments the run is split into (k6-operator parallelism)
     */
    segments: number;
    /**
     * declared name (dot path) of the list's total field
     */
    totalField: string | undefined;
    /**
     * bound on a page walk
     */
    maxPages: number;
    /**
     * directory of summary.json and junit.xml
     */
    outDir: string;
    /**
     * explicit path of summary.json (overrides outDir)
     */
    summaryJson: string | undefined;
    /**
     * explicit path of junit.xml (overrides outDir)
     */
    junit: string | undefined;
};
export type ProbePlan = {
    /**
     * documented accepted requests per window
     */
    limit: number;
    /**
     * requests sent beyond the limit in each window ("just above" the rate)
     */
    over: number;
    /**
     * idle arrival slots per window (no request sent): lead + tail
     */
    guard: number;
    /**
     * idle slots at the start of every window but the first
     */
    lead: number;
    /**
     * arrival-rate iterations per window = limit + over + guard
     */
    slotsPerWindow: number;
    /**
     * real length of a window
     */
    windowMs: number;
    /**
     * real spacing of the arrival slots
     */
    slotMs: number;
};
export type Slot = {
    /**
     * window index counted from the start of the scenario (-1 before it)
     */
    window: number;
    /**
     * arrival slot within the window
     */
    position: number;
};
export type SlotRole = {
    /**
     * a request is sent in this slot
     */
    send: boolean;
    /**
     * the documented limit says this request is over the allowance
     */
    limited: boolean;
};
export type SegmentInfo = {
    /**
     * 0-based position of this instance's segment in the sequence
     */
    index: number;
    /**
     * number of segments in the sequence
     */
    count: number;
    /**
     * segment start as a fraction of the test
     */
    start: number;
    end: number;
    /**
     * e.g. "0:1" or "1/3:2/3"
     */
    label: string;
};
export type Outcome = "accepted" | "refused" | "unanswered";
export type IssuanceOutcome = {
    kind: "token";
    token: string;
} | {
    kind: "wait";
    seconds: number;
    message: string;
} | {
    kind: "error";
    message: string;
};
export type WindowCounts = {
    sent: number;
    accepted: number;
    refused: number;
};
export type WindowVerdict = {
    window: number;
    sent: number;
    accepted: number;
    refused: number;
    unanswered: number;
    verdict: Verdict;
    reason: string;
};
export type ProbeVerdict = {
    verdict: Verdict;
    message: string;
    windows: WindowVerdict[];
};
export type ScopeVerdict = {
    /**
     * pass, shared, or inconclusive
     */
    verdict: Verdict;
    message: string;
    /**
     * windows of the first token
     */
    a: WindowVerdict[];
    /**
     * windows of the second token
     */
    b: WindowVerdict[];
};
export type SummaryMetric = {
    type?: string | undefined;
    values?: Record<string, number> | undefined;
    thresholds?: Record<string, {
        ok: boolean;
    }> | undefined;
};
export type WalkPage = {
    page: number;
    status: number;
    /**
     * ids of the page's items, in order
     */
    ids: unknown[];
    /**
     * parsed response body (for the total field)
     */
    body?: unknown;
};
export type WalkAnalysis = {
    /**
     * items over all pages
     */
    count: number;
    /**
     * distinct ids
     */
    distinct: number;
    /**
     * ids seen more than once, with the pages they were on
     */
    duplicates: Array<{
        id: string;
        pages: number[];
    }>;
    /**
     * pages before the last that hold fewer than per_page items (a gap)
     */
    shortPages: number[];
    /**
     * pages holding more than per_page items
     */
    overfullPages: number[];
    /**
     * items without an id
     */
    missingIds: number;
};
export type CheckStatus = "passed" | "failed" | "skipped";
export type CheckResult = {
    id: string;
    clauses: string[];
    level: "must" | "should";
    status: CheckStatus;
    message: string;
    verdict?: Verdict | undefined;
};
export type ListSize = {
    /**
     * items the walk saw
     */
    atLeast: number;
    /**
     * the walk reached the last page, so atLeast is the list's size
     */
    complete: boolean;
};
export type K6Group = {
    name?: string | undefined;
    groups?: K6Group[] | undefined;
    checks?: {
        name: string;
        passes: number;
        fails: number;
    }[] | undefined;
};
export type ProbeName = "reads" | "writes" | "tokens";
export type Verdict = "pass" | "stricter" | "looser" | "shared" | "inconclusive";
export type TotalDiscovery = {
    /**
     * dot path of the total field, when one qualifies
     */
    field: string | undefined;
    /**
     * the field came from CONFORMANCE_TOTAL_FIELD
     */
    declared: boolean;
    message: string;
    candidates: Array<{
        field: string;
        values: unknown[];
    }>;
};
