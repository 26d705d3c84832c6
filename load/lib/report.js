// Pure rendering of the load scripts' end-of-test reports: summary.json, junit.xml and the text on stdout.
// No k6 imports here (vitest imports this module). Secrets are removed by redact() before anything is returned.
import { DEFAULT_OUT_DIR, reportPaths } from './decisions.js';

/** @typedef {import('./decisions.js').CheckResult} CheckResult */
/** @typedef {import('./decisions.js').RunError} RunError */
/** @typedef {import('./decisions.js').Traffic} Traffic */
/** @typedef {import('./decisions.js').ScenarioTraffic} ScenarioTraffic */

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
 * @property {'conformant' | 'nonconformant' | 'inconclusive' | 'error'} verdict
 * @property {RunError | null} error   why the test was stopped (verdict error), else null
 * @property {{ passed: number, failed: number, skipped: number }} summary
 * @property {CheckResult[]} checks
 * @property {ThresholdResult[]} thresholds
 * @property {Traffic | null} traffic  latency percentiles and 429s, for the run and per scenario
 * @property {Record<string, unknown>} details
 * @property {number} durationMs
 */

/**
 * @typedef {object} SummaryMetricLike
 * @property {Record<string, { ok: boolean }>} [thresholds]
 */

/**
 * Threshold results from k6's summary data (`data.metrics`), sorted by metric name, leaving out the metrics named
 * (the traffic submetrics, whose thresholds only keep them in the summary and gate nothing).
 * @param {Record<string, SummaryMetricLike | undefined>} metrics
 * @param {string[]} [leaveOut]
 * @returns {ThresholdResult[]}
 */
export function thresholdResults(metrics, leaveOut) {
  /** @type {ThresholdResult[]} */
  const out = [];
  for (const name of Object.keys(metrics).sort()) {
    if (leaveOut && leaveOut.indexOf(name) >= 0) continue;
    const m = metrics[name];
    const t = m ? m.thresholds : undefined;
    if (!t) continue;
    for (const [expression, r] of Object.entries(t)) out.push({ metric: name, expression, ok: !!(r && r.ok) });
  }
  return out;
}

/**
 * Assembles the JSON report. The verdict is error when the test was stopped (setup() aborted, or a VU did),
 * nonconformant when a must check failed, inconclusive when none failed but one was skipped (not enough
 * evidence), conformant otherwise.
 * @param {{ script: string, baseUrl: string, timeScale: number, segment: string, checks: CheckResult[], thresholds: ThresholdResult[], error?: RunError, traffic?: Traffic, details?: Record<string, unknown>, durationMs?: number }} input
 * @returns {LoadSummary}
 */
export function buildSummary(input) {
  const passed = input.checks.filter((c) => c.status === 'passed').length;
  const failed = input.checks.filter((c) => c.status === 'failed').length;
  const skipped = input.checks.filter((c) => c.status === 'skipped').length;
  const mustFailed = input.checks.some((c) => c.status === 'failed' && c.level === 'must');
  return {
    script: input.script,
    target: { baseUrl: input.baseUrl },
    timeScale: input.timeScale,
    segment: input.segment,
    verdict: input.error
      ? 'error'
      : mustFailed
        ? 'nonconformant'
        : skipped > 0 || input.checks.length === 0
          ? 'inconclusive'
          : 'conformant',
    error: input.error || null,
    summary: { passed, failed, skipped },
    checks: input.checks,
    thresholds: input.thresholds,
    traffic: input.traffic || null,
    details: input.details || {},
    durationMs: input.durationMs || 0,
  };
}

/**
 * Where a stopped test stopped, as the reports name it.
 * @param {RunError} e
 */
function errorTitle(e) {
  return e.where === 'setup' ? 'setup() aborted' : 'test aborted';
}

/**
 * What a stop means for the checks.
 * @param {RunError} e
 */
function errorConsequence(e) {
  return e.where === 'setup'
    ? 'The test never started: no check ran.'
    : 'The checks were judged on what ran before the stop.';
}

// XML 1.0 allows tab, LF, CR and #x20 and above, minus U+FFFE/U+FFFF and unpaired surrogates (a pair is a
// character above U+FFFF). Written without the u flag, which the oldest supported k6 need not have.
const XML_INVALID = /[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/g;

/**
 * Escapes text for XML content and attribute values, replacing characters XML cannot carry with U+FFFD.
 * @param {unknown} value
 */
export function escapeXml(value) {
  return String(value)
    .replace(XML_INVALID, (c) => (c.length === 2 ? c : '\uFFFD'))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * JUnit XML: one testsuite for the script, one testcase per check, named with its level and clause ids (as the
 * suite's own JUnit report names them). Failed checks carry <failure>, inconclusive/skipped ones <skipped>.
 * @param {LoadSummary} s
 */
export function renderJUnit(s) {
  const seconds = (s.durationMs / 1000).toFixed(3);
  const errors = s.error ? 1 : 0;
  const tests = s.checks.length + errors;
  const classname = escapeXml(`load.${s.script.replace(/\.js$/, '')}`);
  const counts = `tests="${tests}" failures="${s.summary.failed}" errors="${errors}" skipped="${s.summary.skipped}" time="${seconds}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cloud-api-conformance load" ${counts}>`,
    `  <testsuite name="${escapeXml(`load/${s.script}`)}" ${counts}>`,
    '    <properties>',
    `      <property name="baseUrl" value="${escapeXml(s.target.baseUrl)}"/>`,
    `      <property name="timeScale" value="${escapeXml(s.timeScale)}"/>`,
    `      <property name="segment" value="${escapeXml(s.segment)}"/>`,
    `      <property name="verdict" value="${escapeXml(s.verdict)}"/>`,
    '    </properties>',
  ];
  if (s.error) {
    // A CI view lists test cases: the cause is the case's name, so it shows without opening k6's log.
    const title = `${errorTitle(s.error)}: ${s.error.message}`;
    lines.push(
      `    <testcase classname="${classname}" name="${escapeXml(title)}" time="0">`,
      `      <error message="${escapeXml(s.error.message)}" type="aborted">${escapeXml(`${title}. ${errorConsequence(s.error)}`)}</error>`,
      '    </testcase>'
    );
  }
  for (const c of s.checks) {
    const name = `${c.id} [${c.level}] ${c.clauses.join(' ')}`.trim();
    const open = `    <testcase classname="${classname}" name="${escapeXml(name)}" time="0"`;
    if (c.status === 'passed') {
      lines.push(`${open}>`, `      <system-out>${escapeXml(c.message)}</system-out>`, '    </testcase>');
    } else if (c.status === 'failed') {
      lines.push(
        `${open}>`,
        `      <failure message="${escapeXml(c.message)}" type="${escapeXml(c.verdict || 'failed')}">${escapeXml(c.message)}</failure>`,
        '    </testcase>'
      );
    } else {
      lines.push(`${open}>`, `      <skipped message="${escapeXml(c.message)}"/>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/**
 * The JSON report text.
 * @param {LoadSummary} s
 */
function renderJson(s) {
  return JSON.stringify(s, null, 2) + '\n';
}

/**
 * Plain text for stdout: one line per check and per threshold, then the verdict.
 * @param {LoadSummary} s
 */
function renderText(s) {
  const mark = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };
  const lines = [
    `cloud-api-conformance load/${s.script} against ${s.target.baseUrl} (time scale ${s.timeScale}, segment ${s.segment})`,
    '',
  ];
  if (s.error)
    lines.push(`ERROR  ${errorTitle(s.error)}: ${s.error.message}`, `       ${errorConsequence(s.error)}`, '');
  lines.push('checks:');
  for (const c of s.checks)
    lines.push(`  ${mark[c.status]}  ${c.id} [${c.level}] ${c.clauses.join(' ')}: ${c.message}`);
  if (s.thresholds.length) {
    lines.push('', 'thresholds:');
    for (const t of s.thresholds) lines.push(`  ${t.ok ? 'ok  ' : 'FAIL'}  ${t.metric}: ${t.expression}`);
  }
  if (s.traffic) {
    lines.push('');
    for (const l of renderTraffic(s.traffic)) lines.push(l);
  }
  lines.push(
    '',
    `verdict: ${s.verdict} (${s.summary.passed} passed, ${s.summary.failed} failed, ${s.summary.skipped} inconclusive or skipped)`,
    ''
  );
  return lines.join('\n');
}

/**
 * The traffic table of the text summary: per scenario (and for the whole run) the requests, how many were answered
 * 429 and their share, and the latency percentiles of http_req_duration in milliseconds.
 * @param {Traffic} t
 * @returns {string[]}
 */
function renderTraffic(t) {
  const names = Object.keys(t.scenarios);
  const width = Math.max(10, ...names.map((n) => n.length));
  const ms = (/** @type {number | null} */ v) => (v === null ? '-' : v.toFixed(2));
  const cells = [
    pad('scenario', width, true),
    pad('requests', 9),
    pad('429', 7),
    pad('share', 7),
    pad('p50', 9),
    pad('p90', 9),
    pad('p95', 9),
    pad('p99', 9),
    pad('max', 9),
  ];
  /**
   * @param {string} name
   * @param {ScenarioTraffic} r
   */
  const row = (name, r) =>
    [
      pad(name, width, true),
      pad(String(r.requests), 9),
      pad(String(r.status429), 7),
      pad(r.share429 === null ? '-' : `${(r.share429 * 100).toFixed(1)}%`, 7),
      pad(ms(r.latencyMs.p50), 9),
      pad(ms(r.latencyMs.p90), 9),
      pad(ms(r.latencyMs.p95), 9),
      pad(ms(r.latencyMs.p99), 9),
      pad(ms(r.latencyMs.max), 9),
    ].join(' ');
  // k6 measures real time; at a time scale other than 1 the suite's own numbers are target seconds: say both.
  const scale =
    t.timeScale && t.timeScale !== 1
      ? ` (time scale ${t.timeScale}: target seconds = real ms × ${t.timeScale} / 1000; summary JSON: latencyTargetSeconds)`
      : '';
  return [`traffic (requests, answered 429, latency of http_req_duration in real ms${scale}):`, `  ${cells.join(' ')}`]
    .concat(names.map((n) => `  ${row(n, t.scenarios[n])}`))
    .concat([`  ${row('all', t.all)}`, `  ('all' counts every request, setup()'s included)`]);
}

/**
 * @param {string} text
 * @param {number} width
 * @param {boolean} [left]
 */
function pad(text, width, left) {
  const fill = width > text.length ? new Array(width - text.length + 1).join(' ') : '';
  return left ? text + fill : fill + text;
}

/**
 * Replaces every occurrence of each secret (API keys, tokens) with a marker. Secrets shorter than 4 characters
 * are still replaced; empty ones are ignored.
 * @param {string} text
 * @param {Array<string | undefined | null>} secrets
 */
export function redact(text, secrets) {
  let out = text;
  const list = secrets.filter((s) => typeof s === 'string' && s.length > 0);
  // Longest first, so a secret containing another is replaced whole.
  list.sort((a, b) => String(b).length - String(a).length);
  for (const secret of list) out = out.split(String(secret)).join('[REDACTED]');
  return out;
}

/**
 * The three outputs handleSummary returns, redacted: stdout, and the JSON and JUnit reports at the given paths
 * (by default in k6-out/, never the working directory itself).
 * @param {LoadSummary} s
 * @param {Array<string | undefined | null>} secrets
 * @param {{ json: string, junit: string }} [paths]
 * @returns {Record<string, string>}
 */
export function summaryOutputs(s, secrets, paths) {
  const where = paths || reportPaths({ outDir: DEFAULT_OUT_DIR, summaryJson: undefined, junit: undefined });
  // Redact the values first (a secret would otherwise survive in its XML-escaped form), then the rendered text.
  const clean = /** @type {LoadSummary} */ (redactValue(s, secrets));
  /** @type {Record<string, string>} */
  const out = { stdout: redact(renderText(clean), secrets) };
  out[where.json] = redact(renderJson(clean), secrets);
  out[where.junit] = redact(renderJUnit(clean), secrets);
  return out;
}

/**
 * A deep copy of a JSON-like value with every string (keys included) redacted.
 * @param {unknown} value
 * @param {Array<string | undefined | null>} secrets
 * @returns {unknown}
 */
function redactValue(value, secrets) {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value !== null && typeof value === 'object') {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [k, v] of Object.entries(value)) out[redact(k, secrets)] = redactValue(v, secrets);
    return out;
  }
  return value;
}
