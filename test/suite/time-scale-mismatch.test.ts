// The user's --time-scale is an input: given one the target does not run at, the run must not fail the target for
// a window it counted on its own clock. Found by the newcomer trial: a reference at time scale 10 run at 60, limits
// in full, failed limits.window-resets at MUST ("still refused a whole window"), while the target's own Retry-After
// had counted down 10 s of the 61 the run believed had passed.
import { afterAll, describe, expect, it } from 'vitest';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { optionsAgainst } from '../helpers.ts';

const target = await startReference({ port: 0, timeScale: 10 });
const faster = await startReference({ port: 0, timeScale: 600 });
afterAll(() => Promise.all([target.close(), faster.close()]));

describe('a --time-scale the target does not run at', () => {
  it('is said, with the scale the target runs at, and fails no check of the target', async () => {
    const opts = optionsAgainst(target.settings, { profile: 'full', only: ['limits'], timeScale: 60, seed: 1 });
    const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    const resets = report.checks.find((c) => c.id === 'limits.window-resets')!;
    expect(resets).toMatchObject({ status: 'skipped' });
    expect(resets.message).toMatch(/the target's clock runs at about ([5-9]|1[0-9])(\.\d)? times real time, not 60/);
  }, 120_000);

  it('slower than the target: every verdict stands, and the pass says the waits were longer than needed', async () => {
    const opts = optionsAgainst(faster.settings, { profile: 'full', only: ['limits'], timeScale: 60, seed: 1 });
    const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    const resets = report.checks.find((c) => c.id === 'limits.window-resets')!;
    expect(resets).toMatchObject({ status: 'passed' });
    expect(resets.message).toMatch(
      /Date advanced about ([5-9]|1[0-9])(\.\d)? times as fast as --time-scale 60 assumes/
    );
  }, 120_000);
});
