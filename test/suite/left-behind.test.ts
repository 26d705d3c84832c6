// Nothing left behind, ever silently: against a target whose lists are shaped unlike the reference's, the
// run removes everything it made; against one that does not let it delete a VM, what it leaves is in every report
// format, with the command that deletes it, and the exit code says so.
import { QUOTA_PROBE_CREATES, QUOTA_SIZE_CREATES } from '../../src/engine/target/certify.ts';
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCommand } from '../../src/cli/run.ts';
import { runOptions } from '../../src/cli/options.ts';
import { runAgainstReference, TEST_TIME_SCALE } from '../helpers.ts';
import { LEFT_BEHIND_EXIT, type RunReport } from '../../src/engine/run/report.ts';

const TOOL = { name: 'cloud-api-conformance', version: 'test' };

describe('nothing left behind', () => {
  it('removes every VM of the run from a list paged from 0, newest first, totals under meta, ids i-…', async () => {
    const report = await runAgainstReference({ variants: ['list-other-dialect'], only: ['vms', 'pagination'] });
    expect(report.verdict).toBe('conformant');
    const vms = report.ledger.entries.filter((e) => e.kind === 'vm');
    expect(vms.length).toBeGreaterThan(5);
    expect(vms.filter((e) => e.cleanup !== 'deleted')).toEqual([]);
    // The create answers name no VM: each id was found in the list, and ids look like the variant's.
    for (const e of vms) expect(e.id).toMatch(/^i-[0-9a-f]{8}$/);
    expect(report.ledger.leftBehind).toEqual([]);
    expect(report.ledger.sweeps?.find((s) => s.owner === 'primary')).toMatchObject({ complete: true, found: 0 });
  });

  it('deletes every backup whose start answered the backup record itself (its own id, no backup_id)', async () => {
    // Found by the newcomer trial on php-sockets (OCI style): 3 backups left, "no id", the delete said refused.
    const report = await runAgainstReference({ variants: ['backup-start-record'], only: ['backups', 'vms'] });
    const backups = report.ledger.entries.filter((e) => e.kind === 'backup');
    expect(backups.length).toBeGreaterThan(0);
    expect(backups.filter((e) => e.cleanup !== 'deleted').map((e) => `${e.id} ${e.note}`)).toEqual([]);
    for (const e of backups) expect(e.id).toMatch(/^bk-/);
    expect(report.ledger.leftBehind).toEqual([]);
  });

  it('certify on that list leaves nothing either (the quota probe’s VMs included)', async () => {
    const report = await runAgainstReference({
      variants: ['list-other-dialect'],
      profile: 'certify',
      only: ['vms'],
      timeScale: 60,
    });
    const vms = report.ledger.entries.filter((e) => e.kind === 'vm');
    const quota = vms.filter((e) => e.createdBy === 'vms.quota-refusal');
    expect(quota.length).toBeGreaterThan(50);
    expect(vms.filter((e) => e.cleanup !== 'deleted')).toEqual([]);
    expect(report.ledger.leftBehind).toEqual([]);
    // The quota probe said how many it would create before its first create.
    const said = report.announcements?.find((a) => a.by === 'vms.quota-refusal');
    expect(said?.message).toMatch(
      /^creating up to 60 VMs \(cc-[0-9a-f]{8}-quota001…\) to reach the organization's VM quota/
    );
    // At most: the standard creates, the largest VM's (each set announced before its first create), one more once
    // those have ended, and the three side by side at the quota.
    expect(quota.length).toBeLessThanOrEqual(QUOTA_PROBE_CREATES + QUOTA_SIZE_CREATES + 1 + 3);
    expect(Math.min(...quota.map((e) => e.createdIn!))).toBeGreaterThan(said!.afterRequests);
    const sized = quota.filter((e) => /-quotaL\d+$/.test(e.name ?? ''));
    // The reference's quota (500 VMs) is out of reach: every create of the largest VM is made, announced first.
    expect(sized).toHaveLength(QUOTA_SIZE_CREATES);
    const saidSized = report.announcements?.find((a) => a.by === 'vms.quota-refusal' && /quotaL001/.test(a.message));
    expect(saidSized?.message).toMatch(/^creating up to 20 VMs \(cc-[0-9a-f]{8}-quotaL001…, vcpus \d+, memory_gb \d+/);
    expect(Math.min(...sized.map((e) => e.createdIn!))).toBeGreaterThan(saidSized!.afterRequests);
  }, 300_000);

  it('reports a forced leak in the terminal, JSON, JUnit and HTML, and exits 4 where it would exit 0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-left-'));
    try {
      const lines: string[] = [];
      const files = { json: 'r.json', junit: 'r.xml', html: 'r.html' } as const;
      const { exitCode, report } = await runCommand(
        runOptions({
          only: ['vms'],
          timeScale: TEST_TIME_SCALE,
          quiet: false,
          reports: Object.entries(files).map(([format, f]) => ({
            format: format as keyof typeof files,
            path: path.join(dir, f),
          })),
        }),
        TOOL,
        (l) => lines.push(l),
        { variants: ['vm-delete-not-offered'], noDefaultOverlay: true }
      );
      expect(report.verdict).toBe('conformant');
      expect(exitCode).toBe(LEFT_BEHIND_EXIT);
      const left = report.ledger.leftBehind;
      const created = report.ledger.entries.filter((e) => e.kind === 'vm').length;
      expect(left.length).toBe(created);
      expect(left[0]).toMatchObject({
        kind: 'vm',
        owner: 'primary',
        listed: true,
        reason: expect.stringMatching(/405/),
        // The token goes to curl on its standard input, so ps never shows it.
        deleteCommand: expect.stringMatching(
          /^printf 'header = "authorization: Bearer %s"\\n' "\$CONFORMANCE_TOKEN" \| curl .*-K - -X DELETE '.*\/v1\/vms\/vm-\d+'$/
        ),
      });
      const terminal = lines.join('\n');
      expect(terminal).toMatch(new RegExp(`LEFT BEHIND: ${left.length} resources`));
      // Control characters in a name are shown escaped, so they never act on the terminal.
      const shown = (name: string) =>
        name.replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      for (const l of left) expect(terminal).toContain(shown(l.name!));
      expect(terminal).toContain(left[0]!.deleteCommand!);

      const json = JSON.parse(readFileSync(path.join(dir, files.json), 'utf8')) as RunReport;
      expect(json.ledger.leftBehind.map((l) => l.name)).toEqual(left.map((l) => l.name));
      const junit = readFileSync(path.join(dir, files.junit), 'utf8');
      expect(junit).toMatch(/<testsuite name="cleanup" tests="1" failures="0" errors="1"/);
      expect(junit).toContain(`${left.length} resources the run created are still on the target`);
      const html = readFileSync(path.join(dir, files.html), 'utf8');
      // At the head of the page: right after the verdict, before the findings.
      const at = html.indexOf('id="left-behind"');
      expect(at).toBeGreaterThan(html.indexOf('id="verdict"'));
      expect(at).toBeLessThan(html.indexOf('id="findings"'));
      for (const l of left) expect(html).toContain(l.name!);
      // Never a secret: the token is a variable.
      expect(terminal + html + junit).not.toMatch(/Bearer (?!\$CONFORMANCE_TOKEN)[A-Za-z0-9._-]{20,}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
