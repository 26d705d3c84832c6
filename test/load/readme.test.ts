// load/README.md is what operators follow: its commands must keep k6 from sending its usage report (k6 reads that
// setting only from its command line, environment or config), give each k6 process on one host its own API address,
// and state the minimum k6 version the scripts check.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_K6_VERSION, parseSegment } from '../../load/lib/verdicts.js';

const readme = readFileSync(new URL('../../load/README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));

describe('load/README.md', () => {
  it('every k6 run in its examples passes --no-usage-report', () => {
    const runs = blocks.flatMap((b) => b.text.split('\n').filter((l) => /\bk6 run\b/.test(l)));
    expect(runs.length).toBeGreaterThanOrEqual(8);
    expect(runs.filter((l) => !l.includes('--no-usage-report'))).toEqual([]);
  });

  it('the CI and k6-operator examples also set K6_NO_USAGE_REPORT, and the TestRun passes the flag to its runners', () => {
    const yaml = blocks.filter((b) => b.lang === 'yaml');
    expect(yaml.length).toBeGreaterThanOrEqual(3);
    for (const b of yaml) expect(b.text).toMatch(/K6_NO_USAGE_REPORT/);
    expect(yaml.find((b) => b.text.includes('kind: TestRun'))!.text).toMatch(/arguments: --no-usage-report/);
  });

  it('states the minimum k6 version that the scripts check at load time', () => {
    expect(readme).toContain(`**The scripts need k6 v${MIN_K6_VERSION} or later.**`);
    expect(readme).toMatch(/ES2015 modules/);
  });

  it('creates the report directory before every run (k6 does not create it)', () => {
    for (const b of blocks.filter((x) => x.text.includes('k6 run') && !x.text.includes('kind: TestRun')))
      expect(b.text).toMatch(/mkdir -p k6-out/);
  });

  it('k6 processes run side by side on one host each have their own --address (k6 serves its API on localhost:6565 by default) and report directory', () => {
    const sideBySide = blocks.filter((b) => b.text.split('\n').filter((l) => /\bk6 run\b.*&\s*$/.test(l)).length > 1);
    expect(sideBySide.length).toBeGreaterThanOrEqual(1);
    for (const b of sideBySide) {
      const runs = b.text.split('\n').filter((l) => /\bk6 run\b/.test(l));
      const addresses = runs.map((l) => /--address (\S+)/.exec(l)?.[1]);
      expect(
        addresses.every((a) => a !== undefined && !/:6565$/.test(a)),
        runs.join('\n')
      ).toBe(true);
      expect(new Set(addresses).size).toBe(runs.length);
      const outDirs = runs.map((l) => /CONFORMANCE_OUT_DIR=(\S+)/.exec(l)?.[1]);
      expect(new Set(outDirs).size).toBe(runs.length);
      for (const dir of outDirs) expect(b.text).toMatch(new RegExp(`mkdir -p .*${dir}`));
      // One process per segment of the sequence, and CONFORMANCE_SEGMENTS says how many.
      const segments = runs.map((l) =>
        parseSegment(/--execution-segment (\S+)/.exec(l)?.[1], /--execution-segment-sequence (\S+)/.exec(l)?.[1])
      );
      expect(segments.map((x) => x.index)).toEqual(runs.map((_, i) => i));
      expect(segments.every((x) => x.count === runs.length)).toBe(true);
      expect(b.text).toContain(`CONFORMANCE_SEGMENTS=${runs.length}`);
    }
  });
});
