// Every report format shows each MUST clause's domain and what the run exercised of it; a verified
// clause exercised on part of it (the rest within reach) is partly verified, with what was left.
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_OVERLAY, runAgainstReference } from '../helpers.ts';
import { renderHtml } from '../../src/report/html.ts';
import { summaryLines } from '../../src/report/terminal.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

let report: RunReport;
let withPagination: RunReport;
beforeAll(async () => {
  [report, withPagination] = await Promise.all([
    // Without the auth group: the read-only key's view of the list is read by auth.token-organization only.
    runAgainstReference({ only: ['vms', 'tasks'], overlay: REFERENCE_OVERLAY }),
    runAgainstReference({ only: ['vms', 'pagination', 'auth'], overlay: REFERENCE_OVERLAY }),
  ]);
}, 120_000);

describe('clause domains on the reference', () => {
  it('gives every clause with a domain its exercised points, and marks partly verified only verified clauses with a reachable rest', () => {
    const domains = report.coverage!.domains!;
    const vmList = domains.find((d) => d.clause === 'VM-LIST')!;
    expect(vmList.domain.operations).toEqual(['listVms']);
    expect(vmList.exercised.operations).toEqual(['listVms']);
    expect(vmList.exercised.subjects).toEqual(['primary', 'second']);
    expect(vmList.missing.map((m) => `${m.dimension} ${m.point} ${m.possible}`)).toEqual(['subjects readonly true']);
    expect(report.coverage!.partlyVerified).toEqual(['VM-LIST']);
    for (const clause of report.coverage!.partlyVerified!) {
      expect(report.coverage!.verified).toContain(clause);
      expect(domains.find((d) => d.clause === clause)!.missing.some((m) => m.possible)).toBe(true);
    }
    // Both organizations create (vms.create-second-organization, with --subnet-id-b).
    const create = domains.find((d) => d.clause === 'VM-CREATE')!;
    expect(create.exercised.subjects).toEqual(['primary', 'second']);
    // The key revocation is out of reach of every clause but revocation's own: it would revoke a key the run needs.
    const signed = withPagination.coverage!.domains!.find((d) => d.clause === 'AUTH-TOKEN-SIGNED')!;
    expect(signed.missing.map((m) => `${m.point} ${m.possible}`)).toEqual(['revokeCurrentKey false']);
    expect(withPagination.coverage!.partlyVerified).not.toContain('AUTH-TOKEN-SIGNED');
  });

  it('counts the declared lists once pagination.declared-lists has paged them', () => {
    for (const clause of ['PAGE-PARAMS', 'PAGE-MAX-100', 'PAGE-TOTAL']) {
      const paging = withPagination.coverage!.domains!.find((d) => d.clause === clause)!;
      expect(paging.exercised.operations, clause).toEqual(['listVms', 'listWebhooks', 'searchAudit']);
      expect(withPagination.coverage!.partlyVerified).not.toContain(clause);
    }
  });

  it('counts the keys whose tokens the judging checks read or used', () => {
    const role = withPagination.coverage!.domains!.find((d) => d.clause === 'AUTH-TOKEN-ROLE')!;
    expect(role.exercised.subjects).toEqual(['primary', 'readonly']);
    expect(role.missing).toEqual([]);
  });

  it('shows the domain in the terminal and in the HTML clause matrix', () => {
    const lines = summaryLines(report);
    expect(lines).toContain(
      `partly verified: ${report.coverage!.partlyVerified!.length} of the verified clauses were exercised on part of their domain (spec/clauses.yaml); not exercised:`
    );
    expect(lines.find((l) => l.startsWith('  VM-LIST'))).toMatch(/subjects readonly$/);
    const html = renderHtml(report);
    expect(html).toMatch(
      /id="c-VM-LIST"[^]*?<b>subjects<\/b> 2\/3: <span class="dm-done">primary<\/span> <span class="dm-done">second<\/span> · not exercised: <span class="dm-open"[^>]*>readonly<\/span>/
    );
    expect(html).toMatch(/id="c-VM-LIST"[^]*?partly verified/);
  });
});
