// Generated from flow.js by test/load/dts.test.ts (UPDATE_LOAD_DTS=1 npx vitest run test/load/dts.test.ts); do not edit.
/**
 * A response header by name, whatever its case.
 * @param {HttpAnswer} answer
 * @param {string} name
 * @returns {string | undefined}
 */
export function header(answer: HttpAnswer, name: string): string | undefined;
/**
 * Options both scripts share: never follow redirects (only the given host is targeted), a recognisable user
 * agent, and a setup timeout long enough for token issuance to wait out one refused window. noUsageReport
 * states the intent, but k6 reads it only from its command line, environment or config file, never from a
 * script: run k6 with --no-usage-report or K6_NO_USAGE_REPORT=true (load/README.md).
 * @param {LoadConfig} cfg
 */
export function baseOptions(cfg: LoadConfig): {
    maxRedirects: number;
    userAgent: string;
    noUsageReport: boolean;
    setupTimeout: string;
};
/**
 * The plans of the three limit probes under a time scale (the scope probe uses the read plan).
 * @param {number} timeScale
 * @returns {Record<ProbeName, ProbePlan>}
 */
export function probePlans(timeScale: number): Record<ProbeName, ProbePlan>;
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
export function arrivalScenario(plan: ProbePlan, windows: number, fn: string, startMs: number, segments: number): {
    executor: "constant-arrival-rate";
    rate: number;
    timeUnit: string;
    duration: string;
    startTime: string;
    preAllocatedVUs: number;
    maxVUs: number;
    gracefulStop: string;
    exec: string;
};
/**
 * When each probe of rate-limits.js starts (real ms after setup). Reads and writes start at once, each on its own
 * token. The scope probe follows the read probe on the same two tokens (the read token and the write token, whose
 * read budget is untouched), once the read probe's last window has ended. The issuance probe waits one window
 * after setup(), whose issuances with the primary key must have left the key's window.
 * @param {LoadConfig} cfg
 */
export function probeStarts(cfg: LoadConfig): {
    reads: number;
    writes: number;
    scope: number;
    tokens: number;
};
/**
 * The options of rate-limits.js: its five scenarios and their per-window thresholds.
 * @param {LoadConfig} cfg
 */
export function rateLimitOptions(cfg: LoadConfig): {
    maxRedirects: number;
    userAgent: string;
    noUsageReport: boolean;
    setupTimeout: string;
} & {
    discardResponseBodies: boolean;
    scenarios: Record<string, {
        executor: "constant-arrival-rate";
        rate: number;
        timeUnit: string;
        duration: string;
        startTime: string;
        preAllocatedVUs: number;
        maxVUs: number;
        gracefulStop: string;
        exec: string;
    }>;
    thresholds: any;
};
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
export function issueToken(io: Io, cfg: LoadConfig, apiKey: string, purpose: string): string;
/**
 * This instance's execution segment, from k6's consolidated options.
 * @param {Io} io
 */
export function currentSegment(io: Io): import("./verdicts.js").SegmentInfo;
/**
 * setup(): checks this instance's execution segment, then issues one token per purpose for it with the primary
 * key.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {string[]} purposes
 * @param {{ enforceSegments: boolean }} opts  enforce CONFORMANCE_SEGMENTS (the rate-limit probes need it)
 * @returns {SetupData}
 */
export function setupTokens(io: Io, cfg: LoadConfig, purposes: string[], opts: {
    enforceSegments: boolean;
}): SetupData;
/**
 * Why setup data cannot be used by this instance, or undefined. If setup() ever ran once for a whole distributed
 * test and its data were shared, every segment would use one token and a per-token probe would be split across
 * segments: the scripts refuse to run rather than measure that.
 * @param {unknown} data
 * @param {SegmentInfo} mine
 */
export function setupDataProblem(data: unknown, mine: SegmentInfo): string | undefined;
/**
 * A guard for one VU: the first call checks the setup data against this instance's segment (aborting the test
 * when they do not match), later calls pass them through.
 * @param {Io} io
 * @returns {(data: unknown) => SetupData}
 */
export function setupGuard(io: Io): (data: unknown) => SetupData;
/**
 * The Authorization header for a purpose's token.
 * @param {Io} io
 * @param {SetupData} data
 * @param {string} purpose
 */
export function bearer(io: Io, data: SetupData, purpose: string): {
    Authorization: string;
};
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
export function probeIteration(io: Io, spec: ProbeSpec, elapsedMs: number): ProbeStep | undefined;
/**
 * The probe of rate-limits.js that a scenario function runs.
 * @param {LoadConfig} cfg
 * @param {SetupData} data
 * @param {Io} io
 * @param {'reads' | 'writes' | 'tokens' | 'scopeA' | 'scopeB'} which
 * @returns {ProbeSpec}
 */
export function probeSpec(cfg: LoadConfig, data: SetupData, io: Io, which: "reads" | "writes" | "tokens" | "scopeA" | "scopeB"): ProbeSpec;
/**
 * The checks of rate-limits.js from k6's end-of-test metrics, with the per-window details.
 * @param {Record<string, SummaryMetric | undefined>} metrics
 * @param {number} windows
 * @returns {{ checks: CheckResult[], details: Record<string, unknown> }}
 */
export function rateLimitResults(metrics: Record<string, SummaryMetric | undefined>, windows: number): {
    checks: CheckResult[];
    details: Record<string, unknown>;
};
/**
 * GET /v1/vms with a query; a 429 is waited out (Retry-After in target-seconds, scaled) up to 5 times.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {Record<string, string>} auth
 * @param {Record<string, number>} query
 * @param {Expect} expect
 */
export function listVms(io: Io, cfg: LoadConfig, auth: Record<string, string>, query: Record<string, number>, expect: Expect): HttpAnswer;
/**
 * The parsed body of a list answer and the ids of its vms array (undefined when there is no such array).
 * @param {HttpAnswer} answer
 * @returns {{ body: unknown, ids: unknown[] | undefined }}
 */
export function vmIds(answer: HttpAnswer): {
    body: unknown;
    ids: unknown[] | undefined;
};
/**
 * pagination.js: walks GET /v1/vms at per_page=100 from page 1 (page 1 is also the per_page=100 check), then asks
 * for per_page=101 and 1000 and judges them with what the walk learnt of the list's size.
 * @param {Io} io
 * @param {LoadConfig} cfg
 * @param {Record<string, string>} auth
 * @returns {CheckResult[]}
 */
export function paginate(io: Io, cfg: LoadConfig, auth: Record<string, string>): CheckResult[];
/**
 * Reports checks through k6 check(): one evaluation per name "<id>: <message>" (see checkName), which is how
 * handleSummary gets the messages back. A check that did not pass is also printed.
 * @param {Io} io
 * @param {CheckResult[]} results
 */
export function reportChecks(io: Io, results: CheckResult[]): void;
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
export function secretsOf(cfg: LoadConfig, data: SummaryData): string[];
/**
 * handleSummary() of both scripts: summary.json and junit.xml (in CONFORMANCE_OUT_DIR, default k6-out/) and text
 * on stdout, all redacted. k6's raw summary data (which includes setup_data, hence the tokens) is never written.
 * @param {LoadConfig} cfg
 * @param {string} script
 * @param {SummaryData} data
 * @param {CheckResult[]} checks
 * @param {Record<string, unknown>} details
 */
export function summarize(cfg: LoadConfig, script: string, data: SummaryData, checks: CheckResult[], details: Record<string, unknown>): Record<string, string>;
/** k6 scenario names of the limit probes. */
export const SCENARIOS: Readonly<{
    reads: "reads_over";
    writes: "writes_over";
    tokens: "tokens_over";
    scopeA: "scope_a";
    scopeB: "scope_b";
}>;
export type LoadConfig = import("./verdicts.js").LoadConfig;
export type SegmentInfo = import("./verdicts.js").SegmentInfo;
export type CheckResult = import("./verdicts.js").CheckResult;
export type ProbeName = import("./verdicts.js").ProbeName;
export type ProbePlan = import("./verdicts.js").ProbePlan;
export type Outcome = import("./verdicts.js").Outcome;
export type WalkPage = import("./verdicts.js").WalkPage;
export type SummaryMetric = import("./verdicts.js").SummaryMetric;
export type K6Group = import("./verdicts.js").K6Group;
export type HttpAnswer = {
    /**
     * 0 when there was no response
     */
    status: number;
    /**
     * null when the body was not read
     */
    body: string | null;
    headers: Record<string, string>;
    /**
     * why there was no response
     */
    error?: string | undefined;
};
/**
 * Which statuses k6 counts as expected (kept out of http_req_failed): 'ok' is 2xx and 429, 'ok-or-4xx' is 2xx
 * and every 4xx (a refusal of per_page above the maximum), 'write-probe' is 2xx, 400, 422 and 429.
 */
export type Expect = "ok" | "ok-or-4xx" | "write-probe";
export type RequestSpec = {
    method: "GET" | "POST";
    url: string;
    body: string | null;
    headers: Record<string, string>;
    tags: Record<string, string>;
    timeout: string;
    /**
     * the body is needed (a limit probe never reads it)
     */
    readBody: boolean;
    expect: Expect;
};
/**
 * Everything the glue asks of k6.
 */
export type Io = {
    request: (req: RequestSpec) => HttpAnswer;
    sleep: (seconds: number) => void;
    /**
     * real clock, milliseconds
     */
    now: () => number;
    /**
     * stop the whole test run (k6: exec.test.abort)
     */
    abort: (message: string) => void;
    warn: (message: string) => void;
    count: (metric: "limit_accepted" | "limit_refused", tags: Record<string, string>) => void;
    check: (name: string, ok: boolean, tags: Record<string, string>) => void;
    executionSegment: () => {
        segment: string | null;
        sequence: string | null;
    };
};
/**
 * What setup() hands to every VU of this instance. Tokens are issued by the instance's own setup(), for its own
 * execution segment (k6-operator runs setup() in every runner pod), and never logged.
 */
export type SetupData = {
    segment: SegmentInfo;
    tokens: Record<string, string>;
};
export type ProbeSpec = {
    /**
     * how answers are classified
     */
    probe: ProbeName;
    /**
     * the `probe` tag
     */
    label: string;
    plan: ProbePlan;
    /**
     * windows the probe measures
     */
    windows: number;
    /**
     * token issuance: the segment whose turn decides the windows
     */
    turnOf?: number | undefined;
    method: "GET" | "POST";
    url: string;
    body: string | null;
    headers: Record<string, string>;
    /**
     * the `name` tag of the request
     */
    name: string;
    expect: Expect;
};
export type ProbeStep = {
    window: number;
    limited: boolean;
    status: number;
    outcome: Outcome;
};
/**
 * The subset of k6's handleSummary() argument the scripts read.
 */
export type SummaryData = {
    metrics: Record<string, SummaryMetric | undefined>;
    root_group?: import("./verdicts.js").K6Group | undefined;
    state?: {
        testRunDurationMs?: number;
    } | undefined;
    setup_data?: unknown;
};
