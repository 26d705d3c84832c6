import { describe, it, expect } from 'vitest';
import { FAULTS, HOSTILE_FAULTS } from '../../fixtures/reference/faults.ts';
import { allChecks } from '../../suites/index.ts';
import { runAgainstReference, notPassing, REFERENCE_OVERLAY } from '../helpers.ts';
import { ALL_BUT_LIMITS, ALT_OVERLAY, CLAIMS_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { ALT_VARIANTS, CLAIMS_VARIANTS } from '../../fixtures/reference/variants.ts';
import { CATALOGUE_FILES } from './fault-catalogue.ts';

// The clean reference in every configuration the fault runs use; the catalogue's own runs are in
// test/suite/fault-catalogue.ts, split over three files.
describe('the clean reference target', () => {
  it('is conformant without an overlay, every seed-level property discovered', async () => {
    const report = await runAgainstReference({ only: ALL_BUT_LIMITS });
    expect(notPassing(report)).toEqual([]);
    expect(report.verdict).toBe('conformant');
  });

  it('is conformant with its own overlay, held to its declarations', async () => {
    const report = await runAgainstReference({ overlay: REFERENCE_OVERLAY, only: ALL_BUT_LIMITS });
    expect(notPassing(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'schema.declared-responses')?.status).toBe('passed');
  });

  it('is conformant under the variants of the second overlay, held to it: every declared check passed', async () => {
    const report = await runAgainstReference({
      overlay: ALT_OVERLAY,
      variants: [...ALT_VARIANTS],
      only: ALL_BUT_LIMITS,
    });
    expect(notPassing(report)).toEqual([]);
    // Designs this overlay leaves out (declared in the third overlay) stand aside as undeclared.
    expect(
      report.checks
        .filter((c) => c.level === 'declared' && c.status !== 'passed' && !c.undeclared)
        .map((c) => `${c.id}: ${c.status} ${c.message}`)
    ).toEqual([]);
    expect(report.ledger.entries.filter((e) => e.kind !== 'api-key-revoked' && e.cleanup !== 'deleted')).toEqual([]);
    expect(report.ledger.leftBehind).toEqual([]);
  });

  it('is conformant under the variants of the third overlay, held to it: every declared check it declares for passed', async () => {
    const report = await runAgainstReference({
      overlay: CLAIMS_OVERLAY,
      variants: [...CLAIMS_VARIANTS],
      only: ALL_BUT_LIMITS,
    });
    expect(notPassing(report)).toEqual([]);
    expect(
      report.checks
        .filter((c) => c.level === 'declared' && c.status !== 'passed' && !c.undeclared)
        .map((c) => `${c.id}: ${c.status} ${c.message}`)
    ).toEqual([]);
    // The choices the third overlay declares, each judged.
    for (const id of [
      'security.declared-roles',
      'security.cross-org-reference',
      'webhooks.declared-emitters',
      'vms.tag-filter-semantics',
      'webhooks.delivery-timeout',
    ])
      expect(report.checks.find((c) => c.id === id)?.status, id).toBe('passed');
    expect(report.ledger.entries.filter((e) => e.kind !== 'api-key-revoked' && e.cleanup !== 'deleted')).toEqual([]);
    expect(report.ledger.leftBehind).toEqual([]);
  });

  it('passes every limit probe at time scale 1', async () => {
    const report = await runAgainstReference({ only: ['limits'], timeScale: 1 });
    expect(notPassing(report)).toEqual([]);
    expect(report.checks.filter((c) => c.status === 'passed').map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'limits.token-limit',
        'limits.read-limit',
        'limits.write-limit',
        'limits.token-scope',
        'limits.key-scope',
        'limits.rejection-error-object',
        'limits.retry-after',
      ])
    );
  });

  it.each([
    { overlay: CLAIMS_OVERLAY, variants: CLAIMS_VARIANTS, kind: 'fixed' },
    { overlay: ALT_OVERLAY, variants: ALT_VARIANTS, kind: 'sliding' },
  ])(
    'holds the window kind $kind its overlay declares, told from a budget spent in two halves',
    async ({ overlay, variants, kind }) => {
      const report = await runAgainstReference({
        only: ['limits'],
        timeScale: 10,
        profile: 'full',
        overlay,
        variants: [...variants],
      });
      expect(notPassing(report)).toEqual([]);
      expect(report.checks.find((c) => c.id === 'limits.window-resets')?.message).toContain(
        `counts ${kind} windows, as declared`
      );
    }
  );

  it('passes every limit probe in the full profile, window reset included', async () => {
    const report = await runAgainstReference({ only: ['limits'], timeScale: 10, profile: 'full' });
    expect(notPassing(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'limits.window-resets')?.status).toBe('passed');
  });
});

describe('a tag filter that crosses organizations', () => {
  it("is caught with no tag on either organization's records: the run sets its own tag on a VM of each", async () => {
    const run = { only: ['vms'], overlay: REFERENCE_OVERLAY, variants: ['short-untagged-list'] };
    const [clean, faulty] = await Promise.all([
      runAgainstReference(run),
      runAgainstReference({ ...run, faults: ['tag-filter-cross-org'] }),
    ]);
    const strict = (r: typeof clean) => r.checks.find((c) => c.id === 'vms.tag-filter-strict')!;
    expect(strict(clean).status, strict(clean).message).toBe('passed');
    expect(strict(clean).message).toMatch(/no tag visible on the second organization's records/);
    expect(strict(clean).message).toMatch(
      /set on cc-\S+ and on cc-\S+-org-b-tagged of the second organization, returned each organization its own/
    );
    expect(strict(faulty).status).toBe('failed');
    expect(strict(faulty).message).toMatch(/returned cc-\S+-org-b-tagged, the second organization's VM/);
    // Made with the second organization's key, deleted with it.
    expect(clean.ledger.entries.filter((e) => e.createdBy === 'vms.tag-filter-strict').map((e) => e.cleanup)).toEqual([
      'deleted',
    ]);
  });
});

describe('the catalogue', () => {
  it('names only checks that exist, and every check has a fault', () => {
    const ids = new Set(allChecks.map((c) => c.id));
    for (const f of FAULTS) {
      expect(ids, f.name).toContain(f.check);
      for (const also of f.alsoCaughtBy ?? []) expect(ids, `${f.name} alsoCaughtBy`).toContain(also);
    }
    // Hostile faults (test/suite/hostile.test.ts) prove the transport-level checks.
    const covered = new Set([...FAULTS, ...HOSTILE_FAULTS].flatMap((f) => [f.check, ...(f.alsoCaughtBy ?? [])]));
    expect(
      allChecks
        .filter((c) => c.group !== 's3')
        .map((c) => c.id)
        .filter((id) => !covered.has(id))
    ).toEqual([]);
  });

  it("is run whole: each fault by the catalogue file of its check's group, each group by one file", () => {
    const groups: string[] = Object.values(CATALOGUE_FILES).flat();
    expect(new Set(groups).size).toBe(groups.length);
    for (const f of FAULTS) expect(groups, f.name).toContain(f.check.slice(0, f.check.indexOf('.')));
  });
});
