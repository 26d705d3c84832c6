// The reference's quotas under creates side by side, a VM that refuses deletes while it is provisioning, and the
// Retry-After and write-count faults the run's tolerances and concurrent writes must tell apart: each behaves as its
// catalogue entry says, and the clean target does not.
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it.each(['quota-check-race', 'quota-counts-finished-only'])('fault %s takes all three', async (fault) => {
    const s = await start({ faults: [fault], timeScale: 60 });
    expect(await sideBySideAtQuota(s, 3)).toEqual([202, 202, 202]);
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

describe('fault quota-code-busy-delete', () => {
  it('refuses past the quota 409 vm_limit_reached, and a VM still provisioning refuses deletes 409 invalid_state', async () => {
    const [clean, faulty] = await Promise.all([
      start({ timeScale: 60 }),
      start({ faults: ['quota-code-busy-delete'], timeScale: 60 }),
    ]);
    const probe = async (s: ReferenceSettings) => {
      const t = await token(s);
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, `b${i}`) }));
      const del = await call(s, 'DELETE', `/v1/vms/${made[0]!.body.vm_id}`, { token: t });
      return [made.map((m) => m.status), made[2]!.body.error?.code ?? null, del.status];
    };
    expect(await probe(clean)).toEqual([[202, 202, 202], null, 202]);
    expect(await probe(faulty)).toEqual([[202, 202, 409], 'vm_limit_reached', 409]);
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

/** Spends the write budget of a fresh token with 61 empty creates, 8 in flight: how many were not refused 429. */
async function writesServed(s: ReferenceSettings): Promise<number> {
  const t = await token(s);
  let next = 0;
  let served = 0;
  const worker = async () => {
    while (next++ < 61) if ((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status !== 429) served++;
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return served;
}

describe('rate-limit faults', () => {
  it('fault retry-after-date-past dates Retry-After before the answer it is on', async () => {
    const s = await start({ faults: ['retry-after-date-past'] });
    let refused;
    for (let i = 0; i < 12 && !refused; i++) {
      const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      if (r.status === 429) refused = r;
    }
    expect(refused).toBeDefined();
    const at = Date.parse(refused!.headers.get('retry-after')!);
    expect(at).toBeLessThan(Date.parse(refused!.headers.get('date')!));
  });

  it('fault write-count-race serves all 61 writes of a burst 8 in flight; the clean reference serves 60', async () => {
    const [clean, faulty] = await Promise.all([start(), start({ faults: ['write-count-race'] })]);
    expect(await writesServed(clean)).toBe(60);
    expect(await writesServed(faulty)).toBe(61);
  });
});

describe('fault retry-delays-tenth', () => {
  /** Gaps in ms between the attempts of a test event the receiver fails (503), under the alternative schedule. */
  async function gaps(faults: string[]): Promise<number[]> {
    const times: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        times.push(Date.now());
        res.writeHead(503).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      // Delays of 10 and 30 target-seconds: 100 and 300 ms at time scale 100.
      const s = await start({ faults, variants: ['retry-exponential'], timeScale: 100 });
      const t = await token(s);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/h`;
      const w = await call(s, 'POST', '/v1/webhooks', { token: t, json: { url, events: ['backup.completed'] } });
      await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
      for (let i = 0; i < 200 && times.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
      return times.slice(1, 3).map((at, i) => at - times[i]!);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }

  it('retries a tenth of each declared delay after the failure; the clean target waits the delay', async () => {
    const [clean, faulty] = await Promise.all([gaps([]), gaps(['retry-delays-tenth'])]);
    expect(clean[0]).toBeGreaterThanOrEqual(90);
    expect(clean[1]).toBeGreaterThanOrEqual(280);
    expect(faulty[0]).toBeLessThan(60);
    expect(faulty[1]).toBeLessThan(150);
  });
});
