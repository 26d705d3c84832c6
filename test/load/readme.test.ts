// load/README.md is what operators follow: its commands must keep k6 from sending its usage report (the scripts'
// own noUsageReport option is ignored by k6), and it must state the minimum k6 version the scripts check.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_K6_VERSION } from '../../load/lib/verdicts.js';

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
    for (const b of blocks.filter((x) => x.text.includes('k6 run') && !x.text.includes('kind: TestRun'))) expect(b.text).toMatch(/mkdir -p k6-out/);
  });
});
