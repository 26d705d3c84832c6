// The reference target (not the suite): virtual machines and their tasks, and the faults of the vms checks.
import { afterAll, describe, expect, it } from 'vitest';
import { call, start, type Answer, type Res, closeStarted } from './harness.ts';
import { tokenFor, sleep, vmBody } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('virtual machines and tasks', () => {
  it('creates a VM through a task that succeeds', async () => {
    // A task completes 300 real ms after creation: room to see it provisioning on a busy machine (75 ms was not).
    const s = await start({ timeScale: 5 });
    const t = await tokenFor(s);
    const c = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { env: 'test' } }) });
    expect(c.status).toBe(202);
    expect(c.body.task_id).toMatch(/^task-/);
    expect(c.body.vm_id).toMatch(/^vm-/);
    expect(c.headers.get('location')).toBe(`/v1/tasks/${c.body.task_id}`);
    const vm0 = await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t });
    expect(vm0.body.status).toBe('provisioning');
    expect(vm0.body.tags).toEqual({ env: 'test' });
    const listed = await call(s, 'GET', '/v1/vms?tag=env:test', { token: t });
    expect(listed.body.vms.map((v) => v.id)).toEqual([c.body.vm_id]);

    let task: Answer | undefined;
    for (let i = 0; i < 200; i++) {
      task = (await call(s, 'GET', `/v1/tasks/${c.body.task_id}`, { token: t })).body;
      if (task.status === 'succeeded' || task.status === 'failed') break;
      expect(['queued', 'running']).toContain(task.status);
      await sleep(5);
    }
    expect(task).toMatchObject({
      id: c.body.task_id,
      status: 'succeeded',
      operation: 'create_vm',
      resource_id: c.body.vm_id,
    });
    expect(task?.created_at).toMatch(/Z$/);
    expect((await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.status).toBe('running');

    // Delete: 202 + task, then gone.
    const d = await call(s, 'DELETE', `/v1/vms/${c.body.vm_id}`, { token: t });
    expect(d.status).toBe(202);
    await sleep(450);
    expect((await call(s, 'GET', `/v1/tasks/${d.body.task_id}`, { token: t })).body.status).toBe('succeeded');
    expect((await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).status).toBe(404);
  });

  it('validates create requests and enforces roles', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: undefined }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(64) }, 'name'],
      [{ vcpus: 0 }, 'vcpus'],
      [{ vcpus: 1.5 }, 'vcpus'],
      [{ memory_gb: 513 }, 'memory_gb'],
      [{ image: 'windows' }, 'image'],
      [{ system_disk_gb: 9 }, 'system_disk_gb'],
      [{ subnet_id: 'subnet-nope' }, 'subnet_id'],
      [{ tags: { a: 1 } }, 'tags'],
    ];
    for (const [extra, field] of bad) {
      const body = vmBody(s, extra);
      const r = await call(s, 'POST', '/v1/vms', { token: t, json: body });
      expect(r.status, field).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toContain(field);
    }
    expect((await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), extra: 1 } })).status).toBe(202);
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    const f = await call(s, 'POST', '/v1/vms', { token: viewer, json: vmBody(s) });
    expect(f.status).toBe(403);
    expect(f.body.error.code).toBe('forbidden');
    // Org B cannot use org A's subnet nor see org A's VMs.
    const tb = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'POST', '/v1/vms', { token: tb, json: vmBody(s) })).status).toBe(400);
    const listA = await call(s, 'GET', '/v1/vms', { token: t });
    expect((await call(s, 'GET', `/v1/vms/${listA.body.vms[0].id}`, { token: tb })).status).toBe(404);
  });

  it('enforces the 500-VM quota', async () => {
    const s = await start();
    let t = '';
    let last: Res | undefined;
    for (let i = 0; i < 371; i++) {
      if (i % 50 === 0) t = await tokenFor(s); // each token has its own 60-write budget
      last = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      if (last.status !== 202) break;
    }
    expect(last!.status).toBe(403);
    expect(last!.body.error.code).toBe('quota_exceeded');
  });
});

describeFaults('vms');
