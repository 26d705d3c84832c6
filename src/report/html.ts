import type { RunReport } from '../engine/report.ts';

const esc = (s: string) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** One self-contained HTML file: verdict, summary, each check with its clauses, message and evidence. */
export function renderHtml(report: RunReport): string {
  const rows = report.checks
    .map(
      (c) => `<tr class="${c.status}"><td><code>${esc(c.id)}</code></td><td>${esc(c.level)}</td><td>${esc(c.clauses.join(', '))}</td><td class="st">${esc(c.status)}</td><td>${esc(c.message)}${
        c.evidence && c.status !== 'passed' ? `<details><summary>evidence</summary><pre>${esc(JSON.stringify(c.evidence, null, 2))}</pre></details>` : ''
      }</td></tr>`,
    )
    .join('\n');
  const s = report.summary;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cloud-conformance: ${esc(report.verdict)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2rem;color:#222}
h1 .conformant{color:#17702f}h1 .nonconformant,h1 .error{color:#b3261e}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
tr.failed .st{color:#b3261e;font-weight:600}tr.warning .st{color:#9a6700;font-weight:600}tr.passed .st{color:#17702f}tr.skipped .st{color:#666}
pre{white-space:pre-wrap;max-height:30rem;overflow:auto;background:#f6f6f6;padding:.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
</style></head><body>
<h1>Verdict: <span class="${esc(report.verdict)}">${esc(report.verdict)}</span></h1>
<dl><dt>Target</dt><dd>${esc(report.target.baseUrl)}${report.target.embedded ? ' (embedded reference)' : ''}</dd>
<dt>Tool</dt><dd>${esc(report.tool.name)} ${esc(report.tool.version)}</dd>
<dt>Profile</dt><dd>${esc(report.profile)}, seed ${report.seed}, time scale ${report.timeScale}</dd>
<dt>Overlay</dt><dd>${esc(report.overlay ?? 'none')}</dd>
<dt>Time</dt><dd>${esc(report.startedAt)} – ${esc(report.finishedAt)}</dd>
<dt>Summary</dt><dd>${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped</dd>
<dt>Reproduce</dt><dd><code>${esc(report.reproduce)}</code></dd></dl>
<h2>Checks</h2>
<table><thead><tr><th>Check</th><th>Level</th><th>Clauses</th><th>Status</th><th>Message</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Created resources</h2>
<pre>${esc(JSON.stringify(report.ledger, null, 2))}</pre>
<h2>Observed choices</h2>
<pre>${esc(JSON.stringify(report.observations, null, 2))}</pre>
</body></html>
`;
}
