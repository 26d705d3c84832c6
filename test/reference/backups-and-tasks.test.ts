// The reference target (not the suite): backups and tasks, and the faults of the backups and tasks checks.
import { afterAll, describe, expect, it } from 'vitest';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, sleep } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('backups', () => {
  it('starts a backup, reads it and restores it', async () => {
    const s = await start({ timeScale: 100 });
    const t = await tokenFor(s);
    const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0];
    const b = await call(s, 'POST', `/v1/vms/${vm.id}/backups`, { token: t, json: { description: 'nightly' } });
    expect(b.status).toBe(202);
    expect(b.body.backup_id).toMatch(/^bk-/);
    expect((await call(s, 'POST', `/v1/vms/${vm.id}/backups`, { token: t, json: { description: 7 } })).status).toBe(
      400
    );
    expect((await call(s, 'POST', '/v1/vms/vm-missing/backups', { token: t, json: {} })).status).toBe(404);
    await sleep(40);
    const rec = await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t });
    expect(rec.body).toMatchObject({ id: b.body.backup_id, vm_id: vm.id, description: 'nightly', status: 'available' });
    const r = await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, json: {} });
    expect(r.status).toBe(202);
    await sleep(40);
    expect((await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).body).toMatchObject({
      status: 'succeeded',
      operation: 'restore_backup',
    });
  });
});

describeFaults('backups', 'tasks');
