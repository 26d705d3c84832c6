// An organization that holds no VM before the run (a certifier's fresh account, a team's new project): every check
// either judges what the run made or says why it could not, and none fails a conforming target for the empty list.
import { afterAll, describe, expect, it } from 'vitest';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { optionsAgainst } from '../helpers.ts';

const target = await startReference({ port: 0, population: 0 });
afterAll(() => target.close());

const failures = (report: { checks: Array<{ id: string; status: string; message: string }> }) =>
  report.checks.filter((c) => c.status === 'failed' || c.status === 'warning').map((c) => `${c.id}: ${c.message}`);

describe('an organization with no VM before the run', () => {
  it('fails no check of the list when the run makes none (--only pagination): an empty list has a total of 0', async () => {
    const opts = optionsAgainst(target.settings, { profile: 'quick', only: ['pagination'], seed: 3 });
    const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
    expect(failures(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'pagination.total')).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('fails no check in quick, every group but the probes', async () => {
    const opts = optionsAgainst(target.settings, { profile: 'quick', seed: 3 });
    const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
    expect(failures(report)).toEqual([]);
    expect(report.ledger.leftBehind).toEqual([]);
  }, 180_000);
});
