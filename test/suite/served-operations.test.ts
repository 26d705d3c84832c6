// The registry of served operations in a run: without an overlay, the reference's VM delete and record read are found
// in an Allow, ranged over and reported; where no answer lists the delete, it is judged only on the run's own VM, and
// the sweeps on absent ids say it was not verified, with the declaration that would reach it.
import { describe, expect, it } from 'vitest';
import { notPassing, runAgainstReference } from '../helpers.ts';

const AUTH = ['auth', 'security'];
const messageOf = (r: Awaited<ReturnType<typeof runAgainstReference>>, id: string) =>
  r.checks.find((c) => c.id === id)?.message ?? '';

describe('the operations a target serves, zero-config', () => {
  it('finds the VM delete and record read in an Allow, ranges the sweeps over them and reports why', async () => {
    const report = await runAgainstReference({ only: AUTH });
    expect(notPassing(report)).toEqual([]);
    const found = report.observations.servedOperations?.operations.filter((o) => o.source === 'allow');
    expect(found?.map((o) => [o.operation, o.shown])).toEqual([
      ['GET /v1/vms/{id}', true],
      ['DELETE /v1/vms/{id}', true],
    ]);
    expect(found?.[1]?.why).toMatch(/^listed by Allow: OPTIONS \/v1\/vms\/\{id\} \(ids that exist nowhere\) → 405/);
    // The altered and the expired token on the delete of an absent VM too; no token on every operation, the VM delete
    // of a VM that exists among them.
    expect(messageOf(report, 'auth.tampered-token')).toMatch(/the first on 2 writes to ids that exist nowhere/);
    // Two writes on absent ids (a backup start, the VM delete) and the create.
    expect(messageOf(report, 'auth.token-expiry')).toMatch(/on 3 writes; a new token worked$/);
    expect(messageOf(report, 'auth.bearer-required')).toMatch(/on 6 operations/);
    expect(report.traffic.byEndpoint?.['OPTIONS (other paths)']).toBe(4);
    expect(messageOf(report, 'auth.tampered-token')).not.toMatch(/not verified/);
    // The clause's domain shows them ranged over.
    const signed = report.coverage?.domains?.find((d) => d.clause === 'AUTH-TOKEN-SIGNED');
    expect(signed?.exercised.operations).toEqual(expect.arrayContaining(['GET /v1/vms/{id}', 'DELETE /v1/vms/{id}']));
    expect(signed?.missing).toEqual([]);
  });

  it('judges a delete no answer lists only on the run own VM, and says what would reach the rest', async () => {
    // 405 answers without Allow: the registry learns nothing beyond the document.
    const report = await runAgainstReference({ only: AUTH, faults: ['method-not-allowed-no-allow'] });
    expect(notPassing(report)).toEqual([]);
    const ops = report.observations.servedOperations?.operations ?? [];
    expect(ops.filter((o) => o.source !== 'document').map((o) => [o.operation, o.source, o.shown])).toEqual([
      ['DELETE /v1/vms/{id}', 'conventional', false],
    ]);
    const unreached =
      'not verified on DELETE /v1/vms/{id} (not shown: no Allow answer lists it; declare it in the overlay, x-cleanup-for: createVm)';
    expect(messageOf(report, 'auth.tampered-token')).toContain(unreached);
    expect(messageOf(report, 'auth.token-expiry')).toContain(unreached);
    // Out of this run's reach, with what would reach it: it leaves the clause verified, not partly.
    const signed = report.coverage?.domains?.find((d) => d.clause === 'AUTH-TOKEN-SIGNED');
    expect(signed?.missing).toEqual([
      expect.objectContaining({
        point: 'DELETE /v1/vms/{id}',
        possible: false,
        howToVerify: 'declare it in the overlay (x-cleanup-for: createVm)',
      }),
    ]);
    expect(report.coverage?.partlyVerified).toEqual([]);
    // Without a token and with the read-only key, the delete is still tried on the VM made for it, and refused.
    expect(messageOf(report, 'security.readonly-write-refused')).toContain("a delete of the organization's VM (403)");
    expect(messageOf(report, 'auth.bearer-required')).not.toMatch(/not tried on a VM delete/);
  });
});
