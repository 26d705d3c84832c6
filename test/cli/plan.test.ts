// --dry-run answers from the plans committed in suites/plan.json (measured by `npm run plan`) where one applies, and
// measures the rest. A committed plan is held to the checks here (a check added or removed makes it stale: this fails
// until `npm run plan` measures again) and to a real quick run in test/suite/waits.test.ts (within 15%).
import { describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/index.ts';
import { runOptions } from '../../src/cli/options.ts';
import { dryRunCommand } from '../../src/cli/run.ts';
import { checksOf, committedPlan, planSelectionOf, readPlanFile, type PlanSelection } from '../../src/cli/plan.ts';

const file = readPlanFile();
const groups = [...new Set(allChecks.map((c) => c.group))];
const TOOL = { name: 'cloud-api-conformance', version: 'test' };

describe('the committed plans', () => {
  const wanted: PlanSelection[] = (['quick', 'full', 'certify'] as const).flatMap((profile) =>
    (['reference', 'none'] as const).flatMap((overlay) => [
      { profile, overlay },
      ...(profile === 'quick' ? groups.map((only) => ({ profile, overlay, only })) : []),
    ])
  );

  it.each(wanted.map((s) => ({ ...s, name: `${s.profile}, overlay ${s.overlay}, ${s.only ?? 'every group'}` })))(
    'answer $name with the checks it runs today',
    (selection) => {
      const plan = committedPlan(
        { profile: selection.profile, overlay: selection.overlay, ...(selection.only ? { only: selection.only } : {}) },
        file
      );
      expect('measure' in plan ? `stale: ${plan.measure}; run npm run plan` : 'current').toBe('current');
    }
  );

  it('count what they send: writes within requests, and the endpoints add up to the requests', () => {
    for (const plan of file.plans) {
      expect(plan.writes, `${plan.profile} ${plan.overlay} ${plan.only}`).toBeLessThanOrEqual(plan.requests);
      expect(
        Object.values(plan.byEndpoint).reduce((a, b) => a + b, 0),
        `${plan.profile} ${plan.overlay} ${plan.only}`
      ).toBe(plan.requests);
    }
  });

  it('go stale when a check is added or removed, and say which', () => {
    const selection = { profile: 'quick' as const, overlay: 'reference' as const };
    const current = committedPlan(selection, file);
    expect('measure' in current).toBe(false);
    const older = {
      ...file,
      plans: file.plans.map((p) =>
        p.profile === 'quick' && p.overlay === 'reference' && !p.only
          ? { ...p, checks: [...p.checks.filter((id) => id !== 'auth.token-shape'), 'auth.retired-check'] }
          : p
      ),
    };
    expect(committedPlan(selection, older)).toEqual({
      measure: 'the committed plan predates auth.token-shape (added), auth.retired-check (removed)',
    });
    expect(checksOf(selection)).toContain('auth.token-shape');
  });
});

describe('a dry run', () => {
  it('prints the committed plan of its selection, sending nothing and running nothing', async () => {
    const lines: string[] = [];
    expect(await dryRunCommand(runOptions({ dryRun: true, quiet: false }), TOOL, (l) => lines.push(l))).toBe(0);
    const plan = file.plans.find((p) => p.profile === 'quick' && p.overlay === 'reference' && !p.only)!;
    expect(lines[0]).toBe('dry run: nothing was sent to the embedded reference target.');
    expect(lines[1]).toContain(`with seed ${plan.seed}, committed in suites/plan.json`);
    expect(lines).toContain(`  requests: ${plan.requests}, of which ${plan.writes} writes or token exchanges`);
    expect(lines.some((l) => /^ {2}waits it plans .*task-polling/.test(l))).toBe(true);
  });

  it('of a named target without an overlay, one group, prints the plan measured without an overlay', async () => {
    const lines: string[] = [];
    await dryRunCommand(
      runOptions({ dryRun: true, baseUrl: 'http://127.0.0.1:9', apiKey: 'k'.repeat(24), only: ['webhooks'] }),
      TOOL,
      (l) => lines.push(l)
    );
    const plan = file.plans.find((p) => p.profile === 'quick' && p.overlay === 'none' && p.only === 'webhooks')!;
    expect(lines[0]).toBe('dry run: nothing was sent to http://127.0.0.1:9.');
    expect(lines).toContain(`  requests: ${plan.requests}, of which ${plan.writes} writes or token exchanges`);
  });

  it.each([
    [{ overlay: 'mine.yaml' }, 'an overlay of your own decides which declared checks run'],
    [{ readOnly: true }, '--read-only'],
    [{ only: ['auth', 'vms'] }, 'several groups share their setup'],
    [{ timeScale: 60 }, '--time-scale'],
    [{ timeScale: 10, baseUrl: 'http://127.0.0.1:9' }, '--time-scale'],
    [{ runs: 3 }, '--runs'],
    [{ maxCreates: 5 }, '--max-creates'],
  ])('with %o is measured on the spot, and says why (%s)', (partial, reason) => {
    expect(planSelectionOf(runOptions({ dryRun: true, ...partial }))).toEqual({ measure: reason });
  });

  it("answers the embedded reference's own clock (10) and real time from the committed plan", () => {
    for (const timeScale of [1, 10])
      expect(planSelectionOf(runOptions({ dryRun: true, timeScale }))).toEqual({
        profile: 'quick',
        overlay: 'reference',
      });
  });
});
