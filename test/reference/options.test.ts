// The reference target's options and fault catalogue, and the rule that every catalogued fault has its probe.
import { afterAll, describe, expect, it } from 'vitest';
import { startReference } from '../../fixtures/reference/server.ts';
import { FAULTS, HOSTILE_FAULTS } from '../../fixtures/reference/faults.ts';
import { start, closeStarted } from './harness.ts';
import { FAULT_CASES } from './faults/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

afterAll(closeStarted);

describe('options', () => {
  it('rejects unknown faults and bad time scales', async () => {
    await expect(startReference({ faults: ['nope'] })).rejects.toThrow(
      'unknown fault "nope"; see cloud-conformance reference --list-faults'
    );
    await expect(startReference({ timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(startReference({ timeScale: Number.NaN })).rejects.toThrow(/timeScale/);
  });

  it('prints a base URL without trailing slash or version', async () => {
    const s = await start();
    expect(s.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.apiKey).toMatch(/^ck_[0-9a-f]{32}$/);
    expect(new Set([s.apiKey, s.apiKeyB, s.apiKeyReadonly]).size).toBe(3);
  });

  it('has a catalogue of uniquely named faults, and 7 hostile ones, each naming its level, clauses and check', () => {
    expect(HOSTILE_FAULTS).toHaveLength(7);
    expect(new Set([...FAULTS, ...HOSTILE_FAULTS].map((f) => f.name)).size).toBe(FAULTS.length + HOSTILE_FAULTS.length);
    for (const f of FAULTS) {
      expect(['must', 'should', 'declared'], f.name).toContain(f.level);
      expect(f.clauses.length, f.name).toBeGreaterThan(0);
      expect(f.check, f.name).toMatch(/^[a-z0-9]+\.[a-z0-9-]+$/);
    }
  });
});

describe('faults', () => {
  it('covers every catalogued fault', () => {
    expect(
      Object.values(FAULT_CASES)
        .flat()
        .map((c) => c.name)
        .sort()
    ).toEqual(FAULTS.map((f) => f.name).sort());
    // Each probe sits with the group of the check its fault must fail (faults/<group>.ts), and each group is run.
    for (const [group, cases] of Object.entries(FAULT_CASES))
      for (const c of cases)
        expect(FAULTS.find((f) => f.name === c.name)!.check, c.name).toMatch(new RegExp(`^${group}\\.`));
    expect(groupsRun().sort()).toEqual(Object.keys(FAULT_CASES).sort());
  });
});

/** The groups that the test files of this folder hand to describeFaults. */
function groupsRun(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const texts = readdirSync(here)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(here, f), 'utf8'));
  return texts.flatMap((t) =>
    [...t.matchAll(/describeFaults\(([^)]*)\)/g)].flatMap((m) =>
      [...m[1]!.matchAll(/'([a-z0-9-]+)'/g)].map((g) => g[1]!)
    )
  );
}
