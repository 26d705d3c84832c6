// Issue 24, item 1: every report format shows each MUST clause's domain and what the run exercised of it; a verified
// clause exercised on part of it (the rest within reach) is partly verified, with what was left.
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_OVERLAY, runAgainstReference } from '../helpers.ts';
import { renderHtml } from '../../src/report/html.ts';
import { summaryLines } from '../../src/report/terminal.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

let report: RunReport;
beforeAll(async () => {
  report = await runAgainstReference({ only: ['vms', 'pagination', 'auth'], overlay: REFERENCE_OVERLAY });
}, 120_000);

describe('clause domains on the reference', () => {
  it('gives every clause with a domain its exercised points, and marks partly verified only verified clauses with a reachable rest', () => {
    const domains = report.coverage!.domains!;
    const vmList = domains.find((d) => d.clause === 'VM-LIST')!;
    expect(vmList.domain.operations).toEqual(['listVms']);
    expect(vmList.exercised.operations).toEqual(['listVms']);
    for (const clause of report.coverage!.partlyVerified!) {
      expect(report.coverage!.verified).toContain(clause);
      expect(domains.find((d) => d.clause === clause)!.missing.some((m) => m.possible)).toBe(true);
    }
    // The pagination checks walk the VM list only; the reference's overlay declares two more lists.
    const paging = domains.find((d) => d.clause === 'PAGE-PARAMS')!;
    expect(paging.exercised.operations).toEqual(['listVms']);
    expect(paging.missing.map((m) => m.point)).toEqual(['listWebhooks', 'searchAudit']);
    expect(report.coverage!.partlyVerified).toContain('PAGE-PARAMS');
  });

  it('counts the keys whose tokens the judging checks read or used', () => {
    const role = report.coverage!.domains!.find((d) => d.clause === 'AUTH-TOKEN-ROLE')!;
    expect(role.exercised.subjects).toEqual(['primary', 'readonly']);
    expect(role.missing).toEqual([]);
  });

  it('shows the domain in the terminal and in the HTML clause matrix', () => {
    const lines = summaryLines(report);
    expect(lines).toContain(`partly verified: ${report.coverage!.partlyVerified!.length} of the verified clauses were exercised on part of their domain (spec/clauses.yaml); not exercised:`);
    expect(lines.find((l) => l.startsWith('  PAGE-PARAMS'))).toMatch(/operations listWebhooks, searchAudit$/);
    const html = renderHtml(report);
    expect(html).toMatch(/id="c-PAGE-PARAMS"[^]*?<b>operations<\/b> 1\/3: <span class="dm-done">listVms<\/span> · not exercised: <span class="dm-open"[^>]*>listWebhooks<\/span>/);
    expect(html).toMatch(/id="c-PAGE-PARAMS"[^]*?partly verified/);
  });
});
