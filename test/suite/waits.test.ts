// Quick stays quick, held by cause and not by a timer: the README's first command (quick, every group, the embedded
// reference at real time) waits on no budget, no Retry-After and no limit window. A change that makes it wait on one
// of those fails here with the cause and the time, whatever the machine's speed. The other waits are the target's
// (task polls, deliveries) or the checks' own (a completed task read again 3 s later), and are reported beside them.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runCommand } from '../../src/cli/run.ts';
import { runOptions } from '../../src/cli/options.ts';
import { AVOIDABLE_WAITS, WAIT_CAUSES } from '../../src/engine/transport/waits.ts';
import { readPlanFile } from '../../src/cli/plan.ts';

/** The deliberate waits quick may make of the avoidable causes, in all (real milliseconds). */
const QUICK_AVOIDABLE_WAIT_BOUND_MS = 5000;

describe('the quick profile at real time', () => {
  it('waits on no budget, no Retry-After and no limit window, and still verifies what it verified', async () => {
    // As `cloud-conformance run --profile quick` runs it: the embedded reference with its own overlay, at real time.
    const { report } = await runCommand(
      runOptions({ profile: 'quick', timeScale: 1, seed: 1 }),
      { name: 'cloud-api-conformance', version: 'test' },
      () => {},
      {}
    );
    const waits = report.traffic.waits!;
    expect(Object.keys(waits).sort()).toEqual([...WAIT_CAUSES].sort());
    const avoidable = [...AVOIDABLE_WAITS, 'limit-window' as const].map((cause) => ({ cause, ...waits[cause] }));
    const total = avoidable.reduce((sum, w) => sum + w.ms, 0);
    expect(total, `waits by cause: ${JSON.stringify(avoidable)}`).toBeLessThan(QUICK_AVOIDABLE_WAIT_BOUND_MS);
    expect(
      report.verdict,
      report.checks
        .filter((c) => c.status === 'failed' || c.status === 'error')
        .map((c) => `${c.id}: ${c.message}`)
        .join('; ')
    ).toBe('conformant');
    expect(report.coverage!.verified.length).toBeGreaterThanOrEqual(48);
    // The numbers docs/checks-and-levels.md gives for this very run hold (to within 15%), so the docs cannot drift.
    const doc = readFileSync('docs/checks-and-levels.md', 'utf8');
    const [, requests, writes] =
      /A quick run against the reference \(seed 1\) makes about ([\d,]+) requests, about ([\d,]+) of them writes/.exec(
        doc
      ) ?? [];
    const near = (actual: number, documented: string) =>
      Math.abs(actual - Number(documented.replace(/,/g, ''))) / actual;
    expect(
      near(report.traffic.requests, requests!),
      `documented ${requests} requests, made ${report.traffic.requests}`
    ).toBeLessThan(0.15);
    expect(
      near(report.traffic.writes, writes!),
      `documented ${writes} writes, made ${report.traffic.writes}`
    ).toBeLessThan(0.15);
    // What --dry-run prints for this selection (suites/plan.json) is what the run sends: in all, and per endpoint.
    const plan = readPlanFile().plans.find((p) => p.profile === 'quick' && p.overlay === 'reference' && !p.only)!;
    expect(
      near(report.traffic.requests, String(plan.requests)),
      `planned ${plan.requests} requests, made ${report.traffic.requests}: run npm run plan`
    ).toBeLessThan(0.15);
    expect(
      near(report.traffic.writes, String(plan.writes)),
      `planned ${plan.writes} writes, made ${report.traffic.writes}: run npm run plan`
    ).toBeLessThan(0.15);
    for (const [endpoint, n] of Object.entries(report.traffic.byEndpoint ?? {}).filter(([, n]) => n >= 20)) {
      expect(
        near(n, String(plan.byEndpoint[endpoint] ?? 0)),
        `${endpoint}: planned ${plan.byEndpoint[endpoint] ?? 0}, made ${n}: run npm run plan`
      ).toBeLessThan(0.15);
    }
    console.log(`quick at scale 1: ${report.traffic.requests} requests, waits ${JSON.stringify(waits)}`);
  }, 180_000);
});
