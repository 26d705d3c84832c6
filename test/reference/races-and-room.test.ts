// The reference's quotas under creates side by side once one VM is deleted, a quota refused 400, and a VM that refuses
// deletes while it is provisioning. The faults of these races and of the rate-limit tolerances (quota-check-race,
// quota-counts-finished-only, quota-code-busy-delete, retry-after-date-past, write-count-race, retry-delays-tenth) are
// probed with the others in faults/vms.ts, faults/limits.ts and faults/webhooks.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReferenceSettings } from '../../fixtures/reference/server.ts';
import { call, closeStarted, start } from './harness.ts';

afterAll(closeStarted);

async function token(s: ReferenceSettings, key = s.apiKey): Promise<string> {
  return (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } })).body.token;
}

const vmBody = (s: ReferenceSettings, name: string) => ({
  name,
  vcpus: 1,
  memory_gb: 1,
  image: s.image,
  system_disk_gb: 20,
  subnet_id: s.subnetId,
});

/** Creates one at a time until one is refused (at most 5), then `n` creates side by side once one VM is deleted: the statuses. */
async function sideBySideAtQuota(s: ReferenceSettings, n: number): Promise<number[]> {
  const t = await token(s);
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, `q${i}`) });
    if (r.status >= 400) break;
    made.push(r.body.vm_id);
    // One at a time, each finished before the next (1.5 target-seconds: 25 ms at time scale 60).
    await new Promise((done) => setTimeout(done, 60));
  }
  const del = await call(s, 'DELETE', `/v1/vms/${made[0]}`, { token: t });
  expect(del.status).toBe(202);
  // The delete's task ends, and the VM is gone, before the creates.
  for (let i = 0; i < 100 && (await call(s, 'GET', `/v1/vms/${made[0]}`, { token: t })).status !== 404; i++)
    await new Promise((r) => setTimeout(r, 20));
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, `race${i}`) }))
  );
  return answers.map((a) => a.status);
}

describe('quotas and creates side by side', () => {
  it('the clean quota (variant vm-quota-low) takes one of three creates once one VM is deleted', async () => {
    const s = await start({ variants: ['vm-quota-low'], timeScale: 60 });
    const statuses = await sideBySideAtQuota(s, 3);
    expect(statuses.filter((x) => x === 202)).toHaveLength(1);
    expect(statuses.filter((x) => x === 403)).toHaveLength(2);
  });

  it('variant vm-quota-400 refuses a create past the quota 400 quota_exceeded', async () => {
    const s = await start({ variants: ['vm-quota-400'] });
    const t = await token(s);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, `q${i}`) })).status);
    const refused = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, 'q3') });
    expect(statuses).toEqual([202, 202, 400]);
    expect(refused.body.error.code).toBe('quota_exceeded');
  });
});

describe('a VM still provisioning refuses deletes (variant vm-delete-refused-while-provisioning)', () => {
  it('answers 409 invalid_state until its create task has ended, then takes the delete', async () => {
    const s = await start({ variants: ['vm-delete-refused-while-provisioning'], timeScale: 600 });
    const t = await token(s);
    const created = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, 'busy') });
    const early = await call(s, 'DELETE', `/v1/vms/${created.body.vm_id}`, { token: t });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_state');
    // 30 target-seconds of provisioning: 50 ms at time scale 600.
    for (let i = 0; i < 100; i++) {
      const task = await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: t });
      if (task.body.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await call(s, 'DELETE', `/v1/vms/${created.body.vm_id}`, { token: t })).status).toBe(202);
  });

  it('the clean reference takes a delete of a VM still provisioning', async () => {
    const s = await start();
    const t = await token(s);
    const created = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, 'busy') });
    expect((await call(s, 'DELETE', `/v1/vms/${created.body.vm_id}`, { token: t })).status).toBe(202);
  });
});
