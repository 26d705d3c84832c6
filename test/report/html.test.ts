import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { renderHtml } from '../../src/report/html.ts';
import { loadClausesSync } from '../../src/spec/clauses.ts';
import { clauseCounts, type RunReport } from '../../src/engine/run/report.ts';
import { allChecks } from '../../suites/index.ts';
import { runAgainstReference } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const HAVE_CHROMIUM = existsSync(CHROMIUM);
// In CI (.ci/run sets CONFORMANCE_REQUIRE_BROWSER=1 after installing chromium) a missing browser is a failure, not a skip.
const REQUIRED = process.env['CONFORMANCE_REQUIRE_BROWSER'] === '1';

if (!HAVE_CHROMIUM)
  console.warn(
    `test/report/html.test.ts: ${CHROMIUM} not found, the browser checks of the HTML report are skipped (apt-get install chromium to run them)`
  );

describe('the HTML report, rendered from a real run', () => {
  it('has Chromium where it is required', () => {
    if (REQUIRED) expect(HAVE_CHROMIUM, `${CHROMIUM} is required (CONFORMANCE_REQUIRE_BROWSER=1)`).toBe(true);
  });

  describe.skipIf(!HAVE_CHROMIUM)(`in headless Chromium (${CHROMIUM})`, () => {
    let report: RunReport;
    let html: string;
    let dir: string;
    let context: BrowserContext;
    let page: Page;
    const failedRequests: string[] = [];
    const requested: string[] = [];

    beforeAll(async () => {
      // auth and the probes at time scale 1 (a chart with real data), one must fault so a finding carries evidence.
      report = await runAgainstReference({ only: ['auth', 'limits'], timeScale: 1, faults: ['token-ttl-7200'] });
      html = renderHtml(report);
      dir = mkdtempSync(path.join(tmpdir(), 'cc-html-'));
      const file = path.join(dir, 'report.html');
      writeFileSync(file, html);
      context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: ARGS,
        viewport: { width: 1280, height: 900 },
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.on('requestfailed', (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
      page.on('request', (r) => requested.push(r.url()));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('shows the verdict', async () => {
      expect(report.verdict).toBe('nonconformant');
      const verdict = page.locator('#verdict');
      await expect(verdict.isVisible()).resolves.toBe(true);
      expect(await verdict.innerText()).toContain('Verdict: nonconformant');
      expect(await page.title()).toContain('nonconformant');
    });

    it('has one row per clause of spec/clauses.yaml in the coverage matrix', async () => {
      const ids = await page
        .locator('table.matrix tr[data-kind="clause"]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-clause')));
      expect(ids).toEqual(loadClausesSync().clauses.map((c) => c.id));
      const tokenTtl = page.locator('tr[data-clause="AUTH-TOKEN-TTL"] td:last-child .badge').first();
      expect(await tokenTtl.innerText()).toBe('failed');
      // Each clause says whether the run verified it; the banner under the verdict lists what it did not.
      for (const id of ['AUTH-TOKEN-TTL', 'PAGE-MAX-100', 'LIMIT-WRITE-60']) {
        expect(await page.locator(`tr[data-clause="${id}"]`).getAttribute('data-verified'), id).toBe(
          report.coverage!.failed?.includes(id) ? 'failed' : report.coverage!.verified.includes(id) ? 'yes' : 'no'
        );
      }
      // A failed clause is never shown verified beside it.
      expect(report.coverage!.failed).toContain('AUTH-TOKEN-TTL');
      expect(await page.locator('tr[data-clause="AUTH-TOKEN-TTL"] .badge', { hasText: 'verified' }).count()).toBe(0);
      const counts = clauseCounts(report.coverage!);
      expect(counts.notVerified).toBeGreaterThan(0);
      expect(await page.locator('#not-verified').innerText()).toContain(counts.words);
      // The list not verified has one line per clause, however many checks left it open.
      const listed = await page
        .locator('#not-verified li[data-clause]')
        .evaluateAll((li) => li.map((l) => l.getAttribute('data-clause')));
      expect(listed.length).toBe(new Set(listed).size);
      // A clause no check can observe says so.
      expect(await page.locator('tr[data-clause="CONSOLE-FEATURES"]').innerText()).toContain('not checkable');
    });

    it('draws each limit probe as an SVG chart with its requests', async () => {
      const charts = page.locator('figure.probe svg');
      expect(await charts.count()).toBe(report.limitProbes!.length);
      const reads = page.locator('figure.probe[data-probe="reads"]');
      const probe = report.limitProbes!.find((p) => p.what === 'reads')!;
      expect(await reads.locator('.pt').count()).toBe(probe.points.length);
      // Every request its numbers count is on the chart: the retries that watched the budget come back included.
      expect(probe.points.length).toBe(probe.stats!.requests);
      expect(await reads.locator('circle.pt.accepted').count()).toBeGreaterThanOrEqual(300);
      expect(await reads.locator('circle.pt.rejected').count()).toBeGreaterThanOrEqual(1);
      const box = await reads.locator('svg').boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(box!.height).toBeGreaterThan(100);
    });

    it('gives each failure its evidence and reproduction', async () => {
      const finding = page.locator('#f-auth\\.token-shape');
      expect(await finding.isVisible()).toBe(true);
      const text = await finding.innerText();
      expect(text).toContain('AUTH-TOKEN-TTL');
      expect(text).toContain('curl');
      // The rerun commands are folded: there, under one click.
      expect(await finding.locator('details.rerun').textContent()).toContain(report.reproduce);
      expect(text).toMatch(/HTTP 200/);
    });

    it('loads nothing but itself and leaves no secret in the page', async () => {
      expect(failedRequests).toEqual([]);
      expect(requested.filter((u) => !u.startsWith('file:'))).toEqual([]);
      expect(html).not.toMatch(/<script|<link |src="http|href="http/i);
      expect(html).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./);
    });

    it('leads with the finding: every failure a line on the first screen, linking to its evidence; the clause count one number', async () => {
      const lines = page.locator('#at-a-glance ol.glance li');
      const failing = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
      expect(await lines.count()).toBe(failing.length);
      const first = await lines.first().boundingBox();
      expect(first!.y).toBeLessThan(900 - 100);
      const href = await lines.first().locator('a').getAttribute('href');
      expect(await page.locator(`[id="${href!.slice(1)}"]`).count()).toBe(1);
      const counts = clauseCounts(report.coverage!);
      expect(await page.locator('nav.toc').innerText()).toContain(counts.words);
      expect(await page.locator('#verdict').innerText()).toContain(counts.words);
      expect(await page.locator('#not-verified strong').innerText()).toContain(counts.words);
      expect(await page.locator('.clause-summary').innerText()).toContain(counts.words);
      // The groups this run did not select: one line each, not a row per clause and check.
      const unselected = await page.locator('#not-verified li', { hasText: 'not selected' }).count();
      expect(unselected).toBeLessThanOrEqual(new Set(allChecks.map((c) => c.group)).size);
      mkdirSync('artifacts', { recursive: true });
      await page.screenshot({ path: 'artifacts/report-first-screen.png' });
    });

    it('saves a screenshot as an artifact of the test run', async () => {
      mkdirSync('artifacts', { recursive: true });
      await page.screenshot({ path: 'artifacts/report.png', fullPage: true });
      expect(existsSync('artifacts/report.png')).toBe(true);
    });
  });
});

describe('the HTML report, from a hand-made report', () => {
  it('escapes everything it takes from the report', () => {
    const hostile = '<script>alert(1)</script>"\'&';
    const report: RunReport = {
      tool: { name: 'cloud-api-conformance', version: '0.0.0' },
      target: { baseUrl: 'http://127.0.0.1:1/<b>', embedded: false },
      profile: 'quick',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:01.000Z',
      verdict: 'nonconformant',
      summary: { passed: 0, failed: 1, skipped: 0, warnings: 0 },
      checks: [
        {
          id: 'auth.token-shape',
          group: 'auth',
          clauses: ['AUTH-TOKEN-TTL'],
          level: 'must',
          status: 'failed',
          message: hostile,
          title: hostile,
          durationMs: 1,
          requestsAtEnd: 1,
          evidence: {
            exchanges: [
              {
                request: { method: 'GET', url: `http://x/${hostile}`, headers: { 'x-h': hostile } },
                response: { status: 500, headers: {}, body: hostile },
                curl: `curl ${hostile}`,
              },
            ],
          },
        },
      ],
      seed: 1,
      timeScale: 1,
      observations: { [hostile]: hostile },
      ledger: {
        entries: [{ kind: 'vm', name: hostile, createdBy: 'vms.create', cleanup: 'not-declared', note: hostile }],
        leftBehind: [
          {
            kind: 'vm',
            id: hostile,
            name: hostile,
            reason: hostile,
            owner: 'primary',
            listed: true,
            deleteCommand: `curl -X DELETE ${hostile}`,
          },
        ],
      },
      traffic: { requests: 1, writes: 0, tokensIssued: {}, pacedWaitMs: 0 },
      safety: { readOnly: false, insecure: false },
      reproduce: hostile,
      s3Capabilities: [{ operation: hostile, supported: false, evidence: hostile }],
      limitProbes: [
        {
          what: hostile,
          limit: 2,
          verdict: 'exact',
          detail: hostile,
          points: [
            { tMs: 0, outcome: 'accepted' },
            { tMs: 1, outcome: 'accepted' },
            { tMs: 2, outcome: 'rejected' },
          ],
        },
      ],
    } as RunReport;
    const html = renderHtml(report);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
  });
});
