// A clean target whose audit export passes 64 KiB was judged nonconformant ("line 160 is not JSON"): the
// check parsed the recorded copy, cut at 65,536 characters. Exports are read whole now, as they arrive, up to
// --max-body-bytes (64 MiB by default), and a target that cuts its export still fails.
import { describe, expect, it } from 'vitest';
import { ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import { ALT_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { REFERENCE_OVERLAY, runAgainstReference, type ReferenceRun } from '../helpers.ts';

const exportCheck = async (run: ReferenceRun) => {
  const report = await runAgainstReference({ only: ['audit'], ...run });
  return report.checks.find((c) => c.id === 'audit.export')!;
};
/** The bytes of each format's export, as the check's message gives them ("json: the same 330 entries (140213 bytes)"). */
const sizes = (message: string) =>
  Object.fromEntries(
    [...message.matchAll(/(\w+): the same \d+ entries \((\d+) bytes\)/g)].map((m) => [m[1], Number(m[2])])
  );

const MiB = 1024 * 1024;

describe('audit exports larger than the recorded copy are judged whole', () => {
  const overlays: Array<[string, ReferenceRun, string[]]> = [
    ['JSON and CSV (reference.yaml)', { overlay: REFERENCE_OVERLAY }, ['json', 'csv']],
    [
      'JSON Lines and CSV (reference-alt.yaml)',
      { overlay: ALT_OVERLAY, variants: [...ALT_VARIANTS] },
      ['jsonl', 'csv'],
    ],
  ];
  for (const [what, run, formats] of overlays) {
    it(`${what}: over 64 KiB, conformant`, async () => {
      const c = await exportCheck({ ...run, variants: [...(run.variants ?? []), 'audit-history'] });
      expect(c.status, c.message).toBe('passed');
      const got = sizes(c.message);
      for (const f of formats) expect(got[f], c.message).toBeGreaterThan(64 * 1024);
    });

    it(`${what}: over 10 MiB, conformant`, async () => {
      const c = await exportCheck({ ...run, variants: [...(run.variants ?? []), 'audit-history-large'] });
      expect(c.status, c.message).toBe('passed');
      const got = sizes(c.message);
      for (const f of formats) expect(got[f], c.message).toBeGreaterThan(10 * MiB);
    });

    it(`${what}: over 10 MiB and cut halfway by the target, nonconformant`, async () => {
      const c = await exportCheck({
        ...run,
        variants: [...(run.variants ?? []), 'audit-history-large'],
        faults: ['audit-export-truncated'],
      });
      expect(c.status, c.message).toBe('failed');
    });
  }
});

describe('audit exports read while another client fails calls', () => {
  it('a failure logged between the search and the export is not counted extra: conformant', async () => {
    const c = await exportCheck({ overlay: REFERENCE_OVERLAY, variants: ['audit-busy-neighbour'] });
    expect(c.status, c.message).toBe('passed');
  });

  it('an export that drops its oldest entry still fails beside that neighbour', async () => {
    const c = await exportCheck({
      overlay: ALT_OVERLAY,
      variants: [...ALT_VARIANTS, 'audit-busy-neighbour'],
      faults: ['audit-jsonl-missing-entry'],
    });
    expect(c.status, c.message).toBe('failed');
  });
});
