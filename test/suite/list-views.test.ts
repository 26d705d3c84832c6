// List properties under every filter and on every page: each view of the list (no filter, the tag filter × the first
// page, a later one) is decided or left partly verified with why; certify tags a population large enough to decide
// them; tags are found under whatever field and shape the records keep them in.
import { describe, expect, it } from 'vitest';
import { runAgainstReference, statusOf } from '../helpers.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

const views = (r: RunReport, clause: string) => r.coverage!.domains!.find((d) => d.clause === clause)!;
const message = (r: RunReport, id: string) => r.checks.find((c) => c.id === id)?.message ?? '';

describe.concurrent('the per_page cap over the views of the list', () => {
  it('where per_page past 100 is clamped, quick leaves PAGE-MAX-100 partly verified, each undecided view with why; certify tags 202 VMs and decides every view', async () => {
    const run = { only: ['vms', 'pagination'], variants: ['per-page-over-max-clamp'] };
    const [quick, certify] = await Promise.all([
      runAgainstReference({ ...run, profile: 'quick' }),
      runAgainstReference({ ...run, profile: 'certify' }),
    ]);
    expect(statusOf(quick, 'pagination.per-page-max'), message(quick, 'pagination.per-page-max')).toBe('passed');
    expect(quick.coverage!.partlyVerified).toContain('PAGE-MAX-100');
    const open = views(quick, 'PAGE-MAX-100').missing.filter((m) => m.dimension === 'views');
    expect(open.map((m) => m.point)).toEqual(['unfiltered/later-page', 'tag/first-page', 'tag/later-page']);
    for (const m of open) {
      expect(m.possible).toBe(true);
      expect(m.reason).toMatch(/fewer than the (101|202) that would show a missing cap/);
      expect(m.howToVerify).toMatch(/--profile certify/);
    }

    expect(statusOf(certify, 'pagination.per-page-max'), message(certify, 'pagination.per-page-max')).toBe('passed');
    const prep = certify.observations['certify'] as { wanted: { list: number; tagged: number }; populated: number };
    expect(prep.wanted.list).toBe(202);
    expect(prep.wanted.tagged).toBeGreaterThan(200);
    expect(prep.populated).toBeGreaterThanOrEqual(prep.wanted.tagged);
    expect(views(certify, 'PAGE-MAX-100').exercised.views).toEqual([
      'unfiltered/first-page',
      'unfiltered/later-page',
      'tag/first-page',
      'tag/later-page',
    ]);
    expect(certify.coverage!.partlyVerified).not.toContain('PAGE-MAX-100');
    expect(certify.ledger.entries.filter((e) => e.kind === 'vm' && e.cleanup !== 'deleted')).toEqual([]);
  });

  it('a cap skipped under a filter: the reference refuses per_page past 100 only without one, which quick cannot see on its tags of 65; certify tags 202 VMs and fails it', async () => {
    const run = { only: ['vms', 'pagination'], faults: ['per-page-cap-skipped-with-filter'] };
    const [quick, certify] = await Promise.all([
      runAgainstReference({ ...run, profile: 'quick' }),
      runAgainstReference({ ...run, profile: 'certify' }),
    ]);
    expect(statusOf(quick, 'pagination.per-page-max')).toBe('passed');
    expect(quick.coverage!.partlyVerified).toContain('PAGE-MAX-100');
    expect(views(quick, 'PAGE-MAX-100').missing.map((m) => m.point)).toEqual(['tag/first-page', 'tag/later-page']);
    expect(statusOf(certify, 'pagination.per-page-max')).toBe('failed');
    expect(message(certify, 'pagination.per-page-max')).toMatch(/under tag=cc-run:\S+ returned 1\d\d items/);
  });

  it('where the quota forbids the population, the cap is not verified and says what would verify it: certify is incomplete', async () => {
    const r = await runAgainstReference({
      only: ['vms', 'pagination'],
      variants: ['per-page-over-max-clamp', 'small-org-quota'],
      profile: 'certify',
    });
    expect(r.checks.filter((c) => c.status === 'failed' || c.status === 'warning').map((c) => c.id)).toEqual([]);
    const open = r.coverage!.notVerified.find((n) => n.check === 'pagination.per-page-max');
    expect(open?.reason).toMatch(/fewer than the 101 that would show a missing cap, although certify filled the list/);
    expect(open?.howToVerify).toMatch(/--max-creates \d+ \(or an organization with quota for 202 more small VMs\)/);
    expect(r.coverage!.verified).not.toContain('PAGE-MAX-100');
    expect(r.verdict).toBe('incomplete');
  });
});

describe.concurrent('tags found where the records keep them', () => {
  it('as {Key, Value} objects under Tags: read, confirmed by the filter, set by the run, and held to the filter', async () => {
    const [quick, certify] = await Promise.all([
      runAgainstReference({ only: ['vms', 'pagination'], variants: ['tags-ec2-style'] }),
      runAgainstReference({
        only: ['vms', 'pagination'],
        variants: ['tags-ec2-style', 'short-untagged-list'],
        profile: 'certify',
      }),
    ]);
    expect(quick.observations['tagShape']).toBe('{Key, Value} objects under Tags');
    expect(message(quick, 'vms.tag-filter')).toMatch(/read from the records/);
    expect(message(quick, 'pagination.filtered-pages')).toMatch(/the run's own tag \(discovered Tags\)/);
    // No record shows a tag here: the field the records show empty is tried in each list shape before "tags".
    const prep = certify.observations['certify'] as { tags: { field: string; shape: string } };
    expect(prep.tags).toEqual({ field: 'Tags', shape: 'pascal-objects', declared: false });
    expect(statusOf(certify, 'vms.tag-filter')).toBe('passed');
  });

  it("under labels: another organization's tagged records serve the cross-organization filter", async () => {
    const r = await runAgainstReference({
      only: ['vms'],
      variants: ['tags-as-labels'],
      faults: ['tag-filter-cross-org-labels'],
    });
    expect(statusOf(r, 'vms.tag-filter-strict')).toBe('failed');
    expect(message(r, 'vms.tag-filter-strict')).toMatch(/returned \d+ VMs of the second organization/);
  });
});
