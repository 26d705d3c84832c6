import { DOMAIN_DIMENSIONS } from '../spec/clauses.ts';
import type { EvidenceExchange } from '../engine/run/check.ts';
import {
  ledgerOf,
  levelShown,
  overviewOf,
  type CheckReport,
  type DomainCoverage,
  type LimitProbeStats,
  type LimitProbeTrace,
  type RunReport,
} from '../engine/run/report.ts';
import { loadClausesSync, type ClauseList } from '../spec/clauses.ts';

// The certification report: one self-contained HTML file (inline CSS and SVG, no script, no external resource)
// a certifier can hand over. Everything taken from the report is escaped; the evidence is already redacted.

const esc = (s: unknown): string =>
  String(s ?? '').replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!
  );

/** Long bodies are cut for reading; the JSON report keeps them whole. */
const MAX_BODY_CHARS = 6000;
const cut = (s: string) =>
  s.length > MAX_BODY_CHARS
    ? `${s.slice(0, MAX_BODY_CHARS)}\n… (${s.length - MAX_BODY_CHARS} more characters in the JSON report)`
    : s;

const STATUS_RANK: Record<string, number> = { failed: 5, error: 4, warning: 3, passed: 2, skipped: 1 };
const badge = (status: string, text = status) => `<span class="badge ${esc(status)}">${esc(text)}</span>`;

function metaRows(r: RunReport): string {
  const d = r.digests;
  const digestLines = d
    ? [
        d.seed
          ? `seed <code>${esc(d.seed.path)}</code> sha256 <code class="hash">${esc(d.seed.sha256)}</code>`
          : 'seed document not present where the run was made',
        `<code>spec/clauses.yaml</code> sha256 <code class="hash">${esc(d.clauses)}</code>`,
        `<code>spec/openapi.yaml</code> sha256 <code class="hash">${esc(d.openapi)}</code>`,
      ].join('<br>')
    : 'not recorded';
  const safety = (r as Partial<RunReport>).safety;
  const rows: Array<[string, string]> = [
    [
      'Target',
      `${esc(r.target.baseUrl)}${r.target.embedded ? ' <span class="muted">(embedded reference target)</span>' : ''}`,
    ],
    ['Tool', `${esc(r.tool.name)} ${esc(r.tool.version)}`],
    ['Profile', `${esc(r.profile)} · seed ${esc(r.seed)} · time scale ${esc(r.timeScale)}`],
    ['Overlay', r.overlay ? `<code>${esc(r.overlay)}</code>` : 'none (choices the seed leaves open were discovered)'],
    ['Time', `${esc(r.startedAt)} → ${esc(r.finishedAt)}`],
    ['Documents', digestLines],
    [
      'Traffic',
      `${esc(r.traffic.requests)} requests, ${esc(r.traffic.writes)} writes, tokens issued ${esc(
        Object.entries(r.traffic.tokensIssued)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || 'none'
      )}`,
    ],
  ];
  if (safety)
    rows.push([
      'Restrictions',
      [
        safety.readOnly ? 'read-only (no writes)' : '',
        safety.insecure ? '<strong>TLS certificates NOT verified (--insecure)</strong>' : '',
      ]
        .filter(Boolean)
        .join(', ') || 'none',
    ]);
  const connection = (r as Partial<RunReport>).connection;
  if (connection) rows.push(['Connection', connectionHtml(connection)]);
  rows.push(['Reproduce', `<code>${esc(r.reproduce)}</code>${readsHtml(r)}`]);
  // The JSON report is the one verify checks; the HTML names its digest and signing key so the two can be matched.
  const integrity = r.integrity;
  if (integrity)
    rows.push([
      'Integrity',
      `JSON report sha256 <code class="hash">${esc(integrity.report)}</code> (${esc(integrity.algorithm)}; <code>cloud-conformance verify</code>)${integrity.signature ? `<br>signed (Ed25519) by key <code class="hash">${esc(integrity.signature.key)}</code>` : '<br>not signed'}`,
    ]);
  return rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('\n');
}

/** The variables the rerun line reads its secrets from, named once beside it (no secret is on it). */
function readsHtml(r: Pick<RunReport, 'reproduceReads'>): string {
  const reads = r.reproduceReads ?? [];
  return reads.length
    ? `<br><span class="muted">reads ${reads.map((v) => `<code>${esc(v)}</code>`).join(', ')} from the environment or .env (no key is on its line)</span>`
    : '';
}

/** Trusted CA file, client certificate and the way each client went (proxy URLs are already without credentials). */
function connectionHtml(c: NonNullable<RunReport['connection']>): string {
  const parts: string[] = [];
  if (c.referenceTls) parts.push('embedded targets over HTTPS (a CA made for the run)');
  if (c.caFile) parts.push(`CA file <code>${esc(c.caFile)}</code> trusted besides Node's own`);
  if (c.clientCert) parts.push(`client certificate <code>${esc(c.clientCert)}</code>`);
  if (c.proxy) {
    const way = (v: string) => (v === 'direct' ? 'directly' : `through proxy <code>${esc(v)}</code>`);
    parts.push(
      `API ${way(c.proxy.api)}${c.proxy.s3 ? `, object storage ${way(c.proxy.s3)}` : ''}${c.proxy.noProxy ? ` (NO_PROXY <code>${esc(c.proxy.noProxy)}</code>)` : ''}`
    );
  }
  return parts.join('; ');
}

function exchangeHtml(ex: EvidenceExchange, i: number): string {
  const req = ex.request;
  const reqText = [
    `${req.method} ${req.url}`,
    ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
    ...(req.body !== undefined ? ['', cut(req.body)] : []),
  ].join('\n');
  const partial = ex.incompleteResponse;
  const resText = ex.response
    ? [
        `HTTP ${ex.response.status}`,
        ...Object.entries(ex.response.headers).map(([k, v]) => `${k}: ${v}`),
        '',
        cut(ex.response.body),
      ].join('\n')
    : partial
      ? [
          `HTTP ${partial.status} (headers after ${partial.headersAfterMs} ms)`,
          ...Object.entries(partial.headers).map(([k, v]) => `${k}: ${v}`),
          '',
          `[body incomplete: ${partial.receivedBytes} bytes, then ${ex.transportError ?? 'unknown'}]`,
        ].join('\n')
      : `no response: ${ex.transportError ?? 'unknown'}`;
  return `<div class="exchange"><div class="exh">Exchange ${i + 1}</div>
<div class="pair"><div><div class="lbl">request</div><pre>${esc(reqText)}</pre></div><div><div class="lbl">response</div><pre>${esc(resText)}</pre></div></div>
<div class="lbl">curl</div><pre class="curl">${esc(ex.curl)}</pre></div>`;
}

/** An assertion's details and exchanges: the first two shown, the rest folded (they are usually more of the same). */
function evidenceHtml(ev: CheckReport['evidence']): string {
  const details =
    ev?.details && Object.keys(ev.details).length
      ? `<div class="lbl">details</div><pre class="details">${esc(cut(JSON.stringify(ev.details, null, 2)))}</pre>`
      : '';
  const SHOWN = 2;
  const all = ev?.exchanges ?? [];
  const exchanges = all.length
    ? all.slice(0, SHOWN).map(exchangeHtml).join('\n') +
      (all.length > SHOWN
        ? `<details class="more"><summary>${all.length - SHOWN} more exchange${all.length - SHOWN > 1 ? 's' : ''}</summary>${all
            .slice(SHOWN)
            .map((ex, i) => exchangeHtml(ex, i + SHOWN))
            .join('\n')}</details>`
        : '')
    : '<p class="muted">No exchanges recorded.</p>';
  return `${details}\n${exchanges}`;
}

/** The assertions that failed beside the lead one (JUnit carries them too), each at its own level with its evidence. */
function secondaryHtml(c: CheckReport): string {
  const rest = c.findings?.slice(1) ?? [];
  if (!rest.length) return '';
  const items = rest.map(
    (f) =>
      `<div class="secondary" data-level="${esc(f.level)}"><p>${badge(f.level === 'should' ? 'warning' : 'failed', `also (${f.level})`)} ${esc(f.message)}</p><details class="more"><summary>its evidence</summary>${evidenceHtml(f.evidence)}</details></div>`
  );
  return `<div class="lbl">other failed assertions (${rest.length})</div>${items.join('\n')}`;
}

function findingHtml(c: CheckReport, reproduce: string): string {
  const only = c.group ? `${reproduce.replace(/ --only \S+/, '')} --only ${c.group}` : reproduce;
  return `<article class="finding ${esc(c.status)}" id="f-${esc(c.id)}">
<h3>${badge(c.status, `${c.status === 'warning' ? 'warning' : 'failed'} (${levelShown(c)})`)}${c.expected ? ` ${badge('skipped', 'expected')}` : ''} <code>${esc(c.id)}</code> <span class="muted">${esc(c.title)}</span></h3>
${c.expected ? `<p class="muted">Expected (the expectations file lists it)${c.expected.reason ? `: ${esc(c.expected.reason)}` : ''}${c.expected.reference ? ` — ${esc(c.expected.reference)}` : ''}</p>` : ''}
<p class="clauses">Clauses: ${c.clauses.map((id) => `<a href="#c-${esc(id)}"><code>${esc(id)}</code></a>`).join(' ')}</p>
<p class="msg">${esc(c.message)}</p>
<details class="more rerun"><summary>rerun this run, or this check's group alone</summary><pre class="curl">${esc(reproduce)}\n# or this check's group alone:\n${esc(only)}</pre></details>
${evidenceHtml(c.evidence)}
${secondaryHtml(c)}
</article>`;
}

/** The run could not start: what the target did with the token request, and the exchange that shows it. */
function startupFailureHtml(r: RunReport): string {
  const f = r.startupFailure!;
  const details =
    f.evidence.details && Object.keys(f.evidence.details).length
      ? `<div class="lbl">details</div><pre class="details">${esc(cut(JSON.stringify(f.evidence.details, null, 2)))}</pre>`
      : '';
  return `<article class="finding failed" id="startup-failure">
<h3>${badge('failed', f.kind === 'input-refused' ? 'stopped: a usage error' : 'could not start')} <code>${esc(f.kind)}</code> <span class="muted">no check is judged</span></h3>
<p class="msg">${esc(f.message)}</p>
<div class="lbl">reproduce</div><pre class="curl">${esc(r.reproduce)}</pre>${readsHtml(r)}
${details}
${f.evidence.exchanges.map(exchangeHtml).join('\n')}
</article>`;
}

interface ClauseRow {
  id: string;
  section: string;
  text: string;
  kind: 'clause' | 'unshown';
  status: string;
  note: string;
  checks: CheckReport[];
  notRun: string[];
  /** Why the run could not verify the clause, and what would (from the report's coverage). */
  notVerified: Array<{ check: string; reason: string; howToVerify: string; blocking: boolean }>;
  verified: boolean;
  /** A check holding it failed (the report's coverage.failed): shown failed, not verified. */
  failed: boolean;
  /** The clause's domain and what the run exercised of it; partly: verified on part of it. */
  domain?: DomainCoverage;
  partly: boolean;
}

function clauseRows(r: RunReport, list: ClauseList): ClauseRow[] {
  const citing = (id: string) => r.checks.filter((c) => c.clauses.includes(id));
  const open = (id: string) => (r.coverage?.notVerified ?? []).filter((n) => n.clause === id);
  // Checks of groups that were not selected appear in the coverage as "not selected".
  const notRun = (id: string) =>
    open(id)
      .filter((n) => !r.checks.some((c) => c.id === n.check))
      .map((n) => n.check);
  const verified = (id: string) => r.coverage?.verified.includes(id) ?? false;
  const failed = (id: string) => r.coverage?.failed?.includes(id) ?? false;
  const aggregate = (checks: CheckReport[]) =>
    checks.reduce((best, c) => ((STATUS_RANK[c.status] ?? 0) > (STATUS_RANK[best] ?? 0) ? c.status : best), 'skipped');
  const rows: ClauseRow[] = [];
  for (const cl of list.clauses) {
    const checks = citing(cl.id);
    let status: string;
    let note = '';
    if (cl.checkable === false) {
      status = 'not-checkable';
      note = cl.reason ?? '';
    } else if (checks.length) status = aggregate(checks);
    else if (cl.deferred) {
      status = 'deferred';
      note = `deferred to issue ${cl.deferred.issue} (${cl.deferred.group})`;
    } else status = notRun(cl.id).length ? 'not-run' : 'uncovered';
    if (checks.length && cl.checkable === false) status = aggregate(checks);
    rows.push({
      id: cl.id,
      section: cl.section,
      text: cl.text,
      kind: 'clause',
      status,
      note,
      checks,
      notRun: notRun(cl.id),
      notVerified: open(cl.id),
      verified: verified(cl.id),
      failed: failed(cl.id),
      domain: r.coverage?.domains?.find((d) => d.clause === cl.id),
      partly: r.coverage?.partlyVerified?.includes(cl.id) ?? false,
    });
  }
  // Items the seed leaves unshown: held at declared level where an overlay declares them, else discovered.
  for (const u of list.unshown) {
    const checks = citing(u.id);
    if (!checks.length && !notRun(u.id).length) continue;
    rows.push({
      id: u.id,
      section: u.section,
      text: u.text,
      kind: 'unshown',
      status: checks.length ? aggregate(checks) : 'not-run',
      note: 'unshown in the seed',
      checks,
      notRun: notRun(u.id),
      notVerified: open(u.id),
      verified: verified(u.id),
      failed: failed(u.id),
      partly: false,
    });
  }
  return rows;
}

const STATUS_LABEL: Record<string, string> = {
  'not-checkable': 'not checkable',
  deferred: 'deferred',
  'not-run': 'not run',
  uncovered: 'no check',
};

/** The run's one clause count, then the statements of the list it does not judge (not checkable, deferred, no check). */
function clauseSummary(r: RunReport, rows: ClauseRow[]): string {
  const counts = overviewOf(r).clauses;
  const judged = new Set([...(r.coverage?.verified ?? []), ...(r.coverage?.notVerified ?? []).map((n) => n.clause)]);
  const beside = rows.filter((x) => x.kind === 'clause' && !judged.has(x.id));
  const count = (st: string) => beside.filter((x) => x.status === st).length;
  const parts = (['not-checkable', 'deferred', 'uncovered', 'not-run', 'passed', 'warning', 'skipped'] as const)
    .filter((st) => count(st))
    .map((st) => `<span>${badge(st, STATUS_LABEL[st] ?? st)} ${count(st)}</span>`);
  return `<p class="clause-summary">${counts ? `<strong>${esc(counts.words)}</strong>.` : 'Clauses: not judged.'}${parts.length ? ` Beside them, ${beside.length} statements this run does not judge: ${parts.join(' ')}` : ''}</p>`;
}

function clauseMatrix(rows: ClauseRow[]): string {
  const body = rows
    .map((row) => {
      const checks = row.checks
        .map(
          (c) =>
            `<li>${badge(c.status)} <a href="#k-${esc(c.id)}"><code>${esc(c.id)}</code></a> <span class="lvl">${esc(c.level)}</span></li>`
        )
        .join('');
      const notRun = row.notRun.length
        ? `<li class="muted">not in this run: ${row.notRun.map((id) => `<code>${esc(id)}</code>`).join(', ')}</li>`
        : '';
      const why = row.notVerified
        .map(
          (n) =>
            `<li class="nv"><code>${esc(n.check)}</code>: ${esc(n.reason)} <span class="how">to verify: ${esc(n.howToVerify)}</span></li>`
        )
        .join('');
      const { domain, partly } = row;
      // A failed clause shows failed (its status), never verified beside it.
      const proof = row.failed
        ? ''
        : row.verified
          ? partly
            ? badge('warning', 'partly verified')
            : badge('passed', 'verified')
          : row.notVerified.length
            ? badge(row.notVerified.some((n) => n.blocking) ? 'not-verified' : 'skipped', 'not verified')
            : '';
      return `<tr class="${row.kind}" id="c-${esc(row.id)}" data-clause="${esc(row.id)}" data-kind="${row.kind}" data-verified="${row.failed ? 'failed' : row.verified ? 'yes' : row.notVerified.length ? 'no' : 'n/a'}"><td class="cid"><code>${esc(row.id)}</code><div class="muted">§ ${esc(row.section)}</div></td><td>${esc(row.text)}${row.note ? `<div class="muted">${esc(row.note)}</div>` : ''}${domain ? domainHtml(domain) : ''}</td><td><ul class="checks">${checks}${notRun}${why}</ul></td><td>${badge(row.status, STATUS_LABEL[row.status] ?? row.status)} ${proof}</td></tr>`;
    })
    .join('\n');
  return `<table class="matrix"><thead><tr><th>Clause</th><th>Statement</th><th>Checks citing it</th><th>Status</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A clause's domain in the matrix: per dimension, the points exercised and those not (with why, when out of reach). */
function domainHtml(d: DomainCoverage): string {
  const dims = DOMAIN_DIMENSIONS.filter((dim) => d.domain[dim]?.length);
  const cell = (dim: (typeof dims)[number]) => {
    const done = d.exercised[dim] ?? [];
    const missing = d.missing.filter((m) => m.dimension === dim);
    const left = missing
      .map(
        (m) =>
          `<span class="${m.possible ? 'dm-open' : 'dm-beyond'}" title="${esc(`${m.reason}; to verify: ${m.howToVerify}`)}">${esc(m.point)}</span>`
      )
      .join(' ');
    return `<div class="domain"><b>${dim}</b> ${done.length}/${d.domain[dim]!.length}${done.length ? `: ${done.map((p) => `<span class="dm-done">${esc(p)}</span>`).join(' ')}` : ''}${left ? ` · not exercised: ${left}` : ''}</div>`;
  };
  return dims.map(cell).join('');
}

function notVerifiedBanner(r: RunReport): string {
  const { notVerified: open, clauses: counts } = overviewOf(r);
  const errors = r.errors ?? [];
  if (!open.clauses.length && !open.unselected.length && !errors.length)
    return counts
      ? `<section class="banner proved" id="not-verified"><strong>${counts.failed ? `${esc(counts.words)}.` : `Every MUST clause${r.overlay ? ' and every declared choice' : ''} was verified.`}</strong></section>`
      : '';
  // Groups left out with --only: one line each, not one per clause and check.
  const groupItems = open.unselected.map(
    (g) =>
      `<li class="muted">group <code>${esc(g.group)}</code> not selected (<code>--only</code>): ${g.clauses} clause${g.clauses === 1 ? '' : 's'} need${g.clauses === 1 ? 's' : ''} its checks</li>`
  );
  // One line per clause: its checks that gave the same reason together.
  const items = open.clauses.map(
    (c) =>
      `<li data-clause="${esc(c.clause)}"><a href="#c-${esc(c.clause)}"><code>${esc(c.clause)}</code></a>${c.blocking ? '' : ' <span class="muted">(not blocking)</span>'}: ${c.reasons
        .map(
          (x) =>
            `${x.checks.map((id) => `<code>${esc(id)}</code>`).join(', ')}: ${esc(x.reason)} <span class="how">to verify: ${esc(x.howToVerify)}</span>`
        )
        .join('; ')}</li>`
  );
  const errs = errors.map((e) => `<li><code>${esc(e.check)}</code> could not run: ${esc(e.message)}</li>`);
  const head = counts
    ? counts.words
    : `${open.clauses.length} clause${open.clauses.length === 1 ? '' : 's'} not verified`;
  return `<section class="banner not-verified" id="not-verified"><strong>${esc(head)}${errors.length ? `, ${errors.length} check${errors.length === 1 ? '' : 's'} could not run` : ''}.</strong>${r.requireComplete ? ' This run requires every MUST clause verified.' : ''}<ul>${[...errs, ...items, ...groupItems].join('')}</ul></section>`;
}

/** Every failure and warning in a line, linking to its evidence, and what --expect made of them: the report's opening. */
function glanceHtml(r: RunReport): string {
  const o = overviewOf(r);
  const expected = o.expected ? `<p class="expected-line"><strong>${esc(o.expected)}</strong></p>` : '';
  if (!o.findings.length) return `<section id="at-a-glance">${expected}</section>`;
  const items = o.findings.map(
    (f) =>
      `<li data-check="${esc(f.check)}" data-level="${esc(f.level)}">${badge(f.status, `${f.status === 'warning' ? 'warning' : 'failed'} (${f.level})`)}${f.expected ? ` ${badge('skipped', 'expected')}` : ''} <a href="#f-${esc(f.check)}"><code>${esc(f.check)}</code></a> ${esc(f.message)} <span class="muted">(${f.clauses.map(esc).join(', ')}${f.more ? `; ${f.more} more failed assertion${f.more === 1 ? '' : 's'}` : ''})</span></li>`
  );
  return `<section id="at-a-glance">${expected}<ol class="glance">${items.join('\n')}</ol></section>`;
}

function checksTable(checks: CheckReport[]): string {
  const rows = checks
    .map(
      (c) =>
        `<tr class="${esc(c.status)}" id="k-${esc(c.id)}" data-check="${esc(c.id)}"><td><code>${esc(c.id)}</code><div class="muted">${esc(c.title)}</div></td><td>${esc(c.level)}</td><td>${c.clauses.map((id) => `<a href="#c-${esc(id)}"><code>${esc(id)}</code></a>`).join(' ')}</td><td>${badge(c.status)}</td><td>${esc(c.message)}${
          c.status === 'failed' || c.status === 'warning' ? ` <a href="#f-${esc(c.id)}">evidence</a>` : ''
        }</td></tr>`
    )
    .join('\n');
  return `<table class="checks-table"><thead><tr><th>Check</th><th>Level</th><th>Clauses</th><th>Status</th><th>Message</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

const COLOURS = { accepted: '#1a7f37', rejected: '#cf222e', other: '#9a6700' } as const;

function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** One probe as an SVG chart: each request a dot at (send time, its number in the probe), coloured by outcome, with the documented limit. */
function probeChart(p: LimitProbeTrace, timeScale: number): string {
  const W = 720;
  const H = 260;
  const m = { l: 56, r: 16, t: 16, b: 40 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const maxT = Math.max(1, ...p.points.map((x) => x.tMs));
  const maxY = Math.max(p.limit + 1, ...p.points.map((pt, i) => pt.n ?? i + 1));
  const x = (t: number) => m.l + (t / maxT) * pw;
  const y = (v: number) => m.t + ph - (v / maxY) * ph;
  const fx = (v: number) => v.toFixed(1);
  const xStep = niceStep(maxT, 6);
  const yStep = niceStep(maxY, 5);
  const grid: string[] = [];
  for (let t = 0; t <= maxT + 1e-9; t += xStep)
    grid.push(
      `<line x1="${fx(x(t))}" y1="${m.t}" x2="${fx(x(t))}" y2="${m.t + ph}" class="grid"/><text x="${fx(x(t))}" y="${m.t + ph + 16}" text-anchor="middle">${t >= 1000 && xStep >= 100 ? `${(t / 1000).toFixed(xStep >= 1000 ? 0 : 1)} s` : `${Math.round(t)} ms`}</text>`
    );
  for (let v = 0; v <= maxY; v += yStep)
    grid.push(
      `<line x1="${m.l}" y1="${fx(y(v))}" x2="${m.l + pw}" y2="${fx(y(v))}" class="grid"/><text x="${m.l - 6}" y="${fx(y(v) + 4)}" text-anchor="end">${v}</text>`
    );
  const bursts = new Set(p.points.map((pt) => pt.burst ?? 0)).size;
  const dots = p.points
    .map((pt, i) => {
      const seq = pt.n ?? i + 1;
      const b = pt.burst ?? 0;
      // The confirming burst (fresh budget) is drawn hollow: its numbering starts again at 1.
      const style =
        b === 0 ? `fill="${COLOURS[pt.outcome]}"` : `fill="#fff" stroke="${COLOURS[pt.outcome]}" stroke-width="1.2"`;
      // A retry that watched the budget come back is a square: the chart holds every request the stats count.
      if (pt.retry)
        return `<rect class="pt ${pt.outcome} retry" x="${fx(x(pt.tMs) - 4)}" y="${fx(y(seq) - 4)}" width="8" height="8" ${style}><title>retry after a refusal, request ${seq} at ${pt.tMs} ms: ${pt.outcome}</title></rect>`;
      return `<circle class="pt ${pt.outcome}" cx="${fx(x(pt.tMs))}" cy="${fx(y(seq))}" r="${pt.outcome === 'accepted' ? 2.6 : 4}" ${style}><title>${b ? 'second burst, ' : ''}request ${seq} at ${pt.tMs} ms: ${pt.outcome}</title></circle>`;
    })
    .join('');
  const counts = { accepted: 0, rejected: 0, other: 0 };
  for (const pt of p.points) counts[pt.outcome]++;
  const limitY = fx(y(p.limit));
  return `<figure class="probe" data-probe="${esc(p.what)}">
<figcaption><strong>${esc(p.what)}</strong>: limit ${esc(p.limit)} per window · ${badge(p.verdict === 'exact' ? 'passed' : p.verdict === 'inconclusive' ? 'skipped' : 'failed', p.verdict)} <span class="muted">${esc(p.detail ?? '')}</span></figcaption>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(`${p.what}: ${counts.accepted} accepted, ${counts.rejected} rejected, ${counts.other} other`)}">
<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" class="plot"/>
${grid.join('\n')}
<line x1="${m.l}" y1="${limitY}" x2="${m.l + pw}" y2="${limitY}" class="limit"/><text x="${m.l + pw - 4}" y="${fx(Number(limitY) - 5)}" text-anchor="end" class="limit-label">documented limit ${esc(p.limit)}</text>
${dots}
<text x="${m.l + pw / 2}" y="${H - 4}" text-anchor="middle" class="axis">time since the probe's first request (real time; time scale ${esc(timeScale)})</text>
<text transform="translate(14 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle" class="axis">requests sent</text>
</svg>
<div class="legend"><span><i style="background:${COLOURS.accepted}"></i>accepted ${counts.accepted}</span><span><i style="background:${COLOURS.rejected}"></i>rejected (limit) ${counts.rejected}</span><span><i style="background:${COLOURS.other}"></i>other ${counts.other}</span>${bursts > 1 ? '<span><i style="background:#fff;border:1.5px solid #57606a"></i>hollow: second burst on a fresh budget (numbered from 1)</span>' : ''}${p.points.some((pt) => pt.retry) ? '<span><i style="border-radius:0;background:#57606a"></i>square: a retry after a refusal, watching the budget come back</span>' : ''}</div>
${p.stats ? probeStatsHtml(p.stats) : ''}
</figure>`;
}

/** Each limit check's own requests, one row each, in the model's words (every duration in target seconds). */
function limitChecksHtml(report: RunReport): string {
  const checks = report.limitChecks ?? [];
  if (!checks.length) return '';
  const head = checks[0]!.stats.parts.map(([k]) => `<th>${esc(k)}</th>`).join('');
  const rows = checks
    .map(
      (c) =>
        `<tr data-limit-check="${esc(c.check)}" data-words="${esc(c.stats.words)}"><td><code>${esc(c.check)}</code></td>${c.stats.parts.map(([, v]) => `<td>${esc(v)}</td>`).join('')}</tr>`
    )
    .join('\n');
  return `<h3>Each limit check's own requests</h3>
<table class="limit-checks"><thead><tr><th>check</th>${head}</tr></thead><tbody>
${rows}
</tbody></table><p class="muted">Target seconds: real seconds × time scale ${esc(report.timeScale)}.</p>`;
}

/** A probe's numbers for an operator, as the model gives them (every duration in target seconds, labelled so). */
function probeStatsHtml(s: LimitProbeStats): string {
  const rows = s.parts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  return `<table class="probe-stats" data-words="${esc(s.words)}"><tbody>${rows}</tbody></table><p class="muted">Target seconds: real seconds × time scale ${esc(s.timeScale)}.</p>`;
}

function s3Matrix(r: RunReport): string {
  if (!r.s3Capabilities?.length) return '<p class="muted">The s3 group did not run.</p>';
  const rows = r.s3Capabilities
    .map(
      (c) =>
        `<tr data-s3="${esc(c.operation)}"><td>${esc(c.operation)}</td><td>${c.supported === true ? badge('passed', 'supported') : c.supported === false ? badge('warning', 'not supported') : badge('skipped', 'not determined')}</td><td class="muted">${esc(c.evidence)}</td></tr>`
    )
    .join('\n');
  const cleanup = r.s3Cleanup
    ? `<p>Buckets created: ${r.s3Cleanup.buckets.length}, removed: ${r.s3Cleanup.removed.length}${r.s3Cleanup.failed.length ? `, <strong>not removed: ${r.s3Cleanup.failed.map((f) => `${esc(f.bucket)} (${esc(f.error)})`).join(', ')}</strong>` : ''}.</p>`
    : '';
  return `<table><thead><tr><th>Operation</th><th>Supported</th><th>Evidence</th></tr></thead><tbody>\n${rows}\n</tbody></table>${cleanup}`;
}

function ledgerTable(r: RunReport): string {
  const entries = ledgerOf(r).entries;
  if (!entries.length) return '<p class="muted">The run created nothing.</p>';
  const rows = entries
    .map(
      (e) =>
        `<tr><td>${esc(e.kind)}</td><td><code>${esc(e.id ?? '')}</code></td><td>${esc(e.name ?? '')}</td><td><code>${esc(e.createdBy)}</code></td><td>${badge(e.cleanup === 'deleted' ? 'passed' : e.cleanup === 'delete-failed' ? 'failed' : 'skipped', e.cleanup)}</td><td class="muted">${esc(e.note ?? '')}</td></tr>`
    )
    .join('\n');
  return `<table><thead><tr><th>Kind</th><th>Id</th><th>Name</th><th>Created by</th><th>Cleanup</th><th>Note</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

/** What the run said it would create before it did (the quota probe, certify's list), in order. */
function announcementsHtml(r: RunReport): string {
  if (!r.announcements?.length) return '';
  return `<p>Announced before it was done:</p><ul class="announcements">${r.announcements.map((a) => `<li><code>${esc(a.by)}</code>: ${esc(a.message)}</li>`).join('')}</ul>`;
}

/** What the run left on the target, at the top of the report: each resource, why, and the command that deletes it. */
function leftBehindHtml(r: RunReport): string {
  const left = ledgerOf(r).leftBehind;
  if (!left.length) return '';
  const items = left
    .map(
      (l) =>
        `<li><strong>${esc(l.kind)} ${esc(l.name ?? l.id ?? '(no name)')}</strong>${l.id && l.name ? ` <code>${esc(l.id)}</code>` : ''}: ${esc(l.reason)}${l.deleteCommand ? `<pre class="curl">${esc(l.deleteCommand)}</pre>` : ''}</li>`
    )
    .join('\n');
  const token =
    left.some((l) => l.deleteCommand) && r.tokenCommand
      ? `<p class="muted">Set the token first (with CONFORMANCE_API_KEY set${left.some((l) => l.deleteCommand && l.owner === 'second') ? '; CONFORMANCE_TOKEN_B the same way from CONFORMANCE_API_KEY_B' : ''}): <code>${esc(r.tokenCommand)}</code></p>`
      : '';
  return `<section class="banner left-behind" id="left-behind"><strong>Left behind: ${left.length} resource${left.length === 1 ? '' : 's'} the run created ${left.length === 1 ? 'is' : 'are'} still on the target</strong> (exit code 4 unless the run failed)\n<ul>\n${items}\n</ul>${token}</section>`;
}

function observationsTable(r: RunReport): string {
  const entries = Object.entries(r.observations);
  if (!entries.length) return '<p class="muted">None.</p>';
  return `<table><thead><tr><th>Observation</th><th>Value</th></tr></thead><tbody>\n${entries
    .map(
      ([k, v]) =>
        `<tr><td><code>${esc(k)}</code></td><td><pre class="inline">${esc(cut(typeof v === 'string' ? v : JSON.stringify(v).length <= 100 ? JSON.stringify(v) : JSON.stringify(v, null, 2)))}</pre></td></tr>`
    )
    .join('\n')}\n</tbody></table>`;
}

const CSS = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mute:#57606a;--line:#d0d7de;--bg2:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1200px;margin:0 auto;padding:1.5rem 2rem 4rem}
h1{margin:.2rem 0 1rem;font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}h3{font-size:1.05rem;margin:.2rem 0}
.verdict{border-radius:8px;padding:1rem 1.4rem;margin:0 0 1rem;color:#fff;display:flex;gap:2rem;align-items:center;flex-wrap:wrap}
.verdict.conformant{background:var(--ok)}.verdict.nonconformant,.verdict.error{background:var(--bad)}.verdict.incomplete{background:var(--warn)}
.banner{border-radius:6px;padding:.6rem 1rem;margin:0 0 1rem;border:1px solid var(--line)}.banner.left-behind{background:#ffebe9;border-color:var(--bad)}.banner.not-verified{background:#fff8c5;border-color:#d4a72c}.banner.proved{background:#dafbe1;border-color:#4ac26b}.banner ul{margin:.4rem 0 0;padding-left:1.2rem}.how{color:var(--mute);font-style:italic}
.domain{font-size:.85em;color:var(--mute);margin-top:.2rem}.dm-done{color:var(--ok)}.dm-open{color:var(--warn);font-weight:600}.dm-beyond{color:var(--mute);text-decoration:line-through}
.badge.not-verified{color:var(--warn);background:#fff8c5}.badge.error{color:var(--bad)}
.verdict .v{font-size:1.9rem;font-weight:700;letter-spacing:.02em}.verdict .counts span{margin-right:1.2rem;font-size:1.05rem}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.2rem;margin:0}dl.meta dt{font-weight:600;color:var(--mute)}dl.meta dd{margin:0;word-break:break-word}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}code.hash{font-size:11.5px;color:var(--mute)}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:var(--bg2);position:sticky;top:0}
.badge{display:inline-block;border-radius:10px;padding:0 .55rem;font-size:12px;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.badge.passed{color:var(--ok)}.badge.failed{color:var(--bad);background:#ffebe9}.badge.warning{color:var(--warn);background:#fff8c5}.badge.skipped,.badge.not-run,.badge.not-checkable,.badge.deferred,.badge.uncovered{color:var(--mute)}
.muted{color:var(--mute)}td.cid code,a code{white-space:nowrap}td.cid{min-width:14rem}details.more summary{cursor:pointer;color:#0969da;margin:.4rem 0}.clause-summary span{margin-right:1rem}ol.glance{margin:.2rem 0 1rem;padding-left:1.6rem}ol.glance li{margin:.15rem 0}.secondary{border-top:1px dashed var(--line);margin-top:.5rem;padding-top:.3rem}.lvl{color:var(--mute);font-size:12px}
ul.checks{list-style:none;margin:0;padding:0}ul.checks li{margin:.1rem 0}
tr.unshown td:first-child code{font-style:italic}
nav.toc{background:var(--bg2);border:1px solid var(--line);border-radius:6px;padding:.6rem 1rem;margin:1rem 0}nav.toc a{margin-right:1rem}
pre{white-space:pre-wrap;word-break:break-all;background:var(--bg2);border:1px solid var(--line);border-radius:4px;padding:.5rem;margin:.2rem 0 .6rem;max-height:18rem;overflow:auto;font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre.inline{margin:0;max-height:12rem}pre.details{max-height:11rem}pre.curl{background:#0d1117;color:#e6edf3;border-color:#0d1117}
.finding{border:1px solid var(--line);border-left:5px solid var(--bad);border-radius:6px;padding:.6rem 1rem;margin:1rem 0}.finding.warning{border-left-color:var(--warn)}
.finding .msg{font-weight:600}.lbl{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--mute);margin-top:.4rem}
.exchange{margin-top:.6rem}.exh{font-weight:600;font-size:12.5px}.pair{display:grid;grid-template-columns:1fr 1fr;gap:.8rem}
figure.probe{margin:1rem 0;border:1px solid var(--line);border-radius:6px;padding:.6rem 1rem}figure.probe svg{display:block;max-width:760px}
svg text{font:11px system-ui,sans-serif;fill:#57606a}svg .axis{font-size:11.5px}svg .plot{fill:#fff;stroke:#d0d7de}svg .grid{stroke:#eaeef2}svg .limit{stroke:#cf222e;stroke-dasharray:6 4;stroke-width:1.3}svg .limit-label{fill:#cf222e;font-weight:600}
.legend span{margin-right:1.2rem;font-size:12.5px}.legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:.3rem;vertical-align:middle}
footer{margin-top:3rem;color:var(--mute);font-size:12px}
@media print{main{max-width:none;padding:0}pre{max-height:none}th{position:static}.finding,figure.probe{break-inside:avoid}}
`;

/** The certification report as one self-contained HTML file. */
export function renderHtml(report: RunReport, clauses: ClauseList = loadClausesSync()): string {
  const s = report.summary;
  const findings = report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warning')
    .sort((a, b) => (STATUS_RANK[b.status] ?? 0) - (STATUS_RANK[a.status] ?? 0));
  const rows = clauseRows(report, clauses);
  const counts = overviewOf(report).clauses;
  const probes = report.limitProbes ?? [];
  const title = `Conformance report: ${report.verdict} — ${report.target.baseUrl}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${CSS}</style></head><body><main>
<h1>Cloud Platform REST API — conformance report</h1>
<section class="verdict ${esc(report.verdict)}" id="verdict"><div class="v">Verdict: ${esc(report.verdict)}</div>
<div class="counts"><span>${s.passed} passed</span><span>${s.failed} failed</span><span>${s.warnings} warnings</span><span>${s.skipped} skipped</span>${report.errors?.length ? `<span>${report.errors.length} errors</span>` : ''}</div>${counts ? `<div class="clauses">${esc(counts.words)}</div>` : ''}</section>
${leftBehindHtml(report)}
${glanceHtml(report)}
${notVerifiedBanner(report)}
<nav class="toc"><a href="#findings">Findings (${findings.length})</a><a href="#not-verified">${counts ? esc(counts.words) : 'Clauses: not judged'}</a><a href="#clauses">Clause coverage</a><a href="#checks">Checks (${report.checks.length})</a><a href="#limits">Limit probes (${probes.length})</a><a href="#s3">Object storage</a><a href="#ledger">Created resources (${ledgerOf(report).entries.length})</a><a href="#observations">Observations</a></nav>

<h2 id="findings">Findings</h2>
${report.startupFailure ? startupFailureHtml(report) : findings.length ? findings.map((c) => findingHtml(c, report.reproduce)).join('\n') : '<p>No check failed and none warned.</p>'}

<dl class="meta">
${metaRows(report)}
</dl>

<h2 id="clauses">Clause coverage</h2>
<p class="muted">Every statement of the seed (<code>spec/clauses.yaml</code>), the checks that cite it and their status in this run; items the seed leaves unshown follow where a check cites them. A clause's status is its worst check's.</p>
${clauseSummary(report, rows)}
${clauseMatrix(rows)}

<h2 id="checks">Checks</h2>
${checksTable(report.checks)}

<h2 id="limits">Limit probes</h2>
${probes.length ? `<p class="muted">Each dot is one request of a probe, placed at the time it was sent and at its number in the probe; the dashed line is the documented limit. A conformant target serves exactly the limit and refuses the next.</p>\n${probes.map((p) => probeChart(p, report.timeScale)).join('\n')}` : '<p class="muted">The limits group did not run.</p>'}
${limitChecksHtml(report)}

<h2 id="s3">Object storage capabilities</h2>
${s3Matrix(report)}

<h2 id="ledger">Created resources</h2>
${announcementsHtml(report)}${ledgerTable(report)}

<h2 id="observations">Observations</h2>
${observationsTable(report)}

<footer>Generated by ${esc(report.tool.name)} ${esc(report.tool.version)} at ${esc(report.finishedAt)}. API keys and tokens are redacted throughout; curl lines use <code>$CONFORMANCE_TOKEN</code>.</footer>
</main></body></html>
`;
}
