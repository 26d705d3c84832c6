// Generated from report.js by test/load/dts.test.ts (UPDATE_LOAD_DTS=1 npx vitest run test/load/dts.test.ts); do not edit.
/** @typedef {import('./verdicts.js').CheckResult} CheckResult */
/**
 * @typedef {object} ThresholdResult
 * @property {string} metric
 * @property {string} expression
 * @property {boolean} ok
 */
/**
 * @typedef {object} LoadSummary
 * @property {string} script
 * @property {{ baseUrl: string }} target
 * @property {number} timeScale
 * @property {string} segment
 * @property {'conformant' | 'nonconformant' | 'inconclusive'} verdict
 * @property {{ passed: number, failed: number, skipped: number }} summary
 * @property {CheckResult[]} checks
 * @property {ThresholdResult[]} thresholds
 * @property {Record<string, unknown>} details
 * @property {number} durationMs
 */
/**
 * @typedef {object} SummaryMetricLike
 * @property {Record<string, { ok: boolean }>} [thresholds]
 */
/**
 * Threshold results from k6's summary data (`data.metrics`), sorted by metric name.
 * @param {Record<string, SummaryMetricLike | undefined>} metrics
 * @returns {ThresholdResult[]}
 */
export function thresholdResults(metrics: Record<string, SummaryMetricLike | undefined>): ThresholdResult[];
/**
 * Assembles the JSON report. The verdict is nonconformant when a must check failed, inconclusive when none failed
 * but one was skipped (not enough evidence), conformant otherwise.
 * @param {{ script: string, baseUrl: string, timeScale: number, segment: string, checks: CheckResult[], thresholds: ThresholdResult[], details?: Record<string, unknown>, durationMs?: number }} input
 * @returns {LoadSummary}
 */
export function buildSummary(input: {
    script: string;
    baseUrl: string;
    timeScale: number;
    segment: string;
    checks: CheckResult[];
    thresholds: ThresholdResult[];
    details?: Record<string, unknown>;
    durationMs?: number;
}): LoadSummary;
/**
 * Escapes text for XML content and attribute values, replacing characters XML cannot carry with U+FFFD.
 * @param {unknown} value
 */
export function escapeXml(value: unknown): string;
/**
 * JUnit XML: one testsuite for the script, one testcase per check, named with its level and clause ids (as the
 * suite's own JUnit report names them). Failed checks carry <failure>, inconclusive/skipped ones <skipped>.
 * @param {LoadSummary} s
 */
export function renderJUnit(s: LoadSummary): string;
/**
 * The JSON report text.
 * @param {LoadSummary} s
 */
export function renderJson(s: LoadSummary): string;
/**
 * Plain text for stdout: one line per check and per threshold, then the verdict.
 * @param {LoadSummary} s
 */
export function renderText(s: LoadSummary): string;
/**
 * Replaces every occurrence of each secret (API keys, tokens) with a marker. Secrets shorter than 4 characters
 * are still replaced; empty ones are ignored.
 * @param {string} text
 * @param {Array<string | undefined | null>} secrets
 */
export function redact(text: string, secrets: Array<string | undefined | null>): string;
/**
 * The three outputs handleSummary returns, redacted: stdout, and the JSON and JUnit reports at the given paths
 * (by default in k6-out/, never the working directory itself).
 * @param {LoadSummary} s
 * @param {Array<string | undefined | null>} secrets
 * @param {{ json: string, junit: string }} [paths]
 * @returns {Record<string, string>}
 */
export function summaryOutputs(s: LoadSummary, secrets: Array<string | undefined | null>, paths?: {
    json: string;
    junit: string;
}): Record<string, string>;
/**
 * A deep copy of a JSON-like value with every string (keys included) redacted.
 * @param {unknown} value
 * @param {Array<string | undefined | null>} secrets
 * @returns {unknown}
 */
export function redactValue(value: unknown, secrets: Array<string | undefined | null>): unknown;
export type CheckResult = import("./verdicts.js").CheckResult;
export type ThresholdResult = {
    metric: string;
    expression: string;
    ok: boolean;
};
export type LoadSummary = {
    script: string;
    target: {
        baseUrl: string;
    };
    timeScale: number;
    segment: string;
    verdict: "conformant" | "nonconformant" | "inconclusive";
    summary: {
        passed: number;
        failed: number;
        skipped: number;
    };
    checks: CheckResult[];
    thresholds: ThresholdResult[];
    details: Record<string, unknown>;
    durationMs: number;
};
export type SummaryMetricLike = {
    thresholds?: Record<string, {
        ok: boolean;
    }> | undefined;
};
