// The reference target (not the suite): metric alarms, and the faults of the alarms checks.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, sleep, until, withReceiver, sign, firstVm, register, alarm } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('metric alarms', () => {
  it('fires once, 1 virtual second after creation, when the condition holds', async () => {
    const s = await start({ timeScale: 100 });
    const t = await tokenFor(s);
    const vm = await firstVm(s, t);
    await withReceiver(async (rcv) => {
      await register(s, t, rcv.url, ['alarm.triggered'], 'k');
      const hot = await alarm(s, t, 40);
      const cold = await alarm(s, t, 60);
      expect(hot.body).toEqual({
        id: expect.stringMatching(/^al-/),
        vm_id: vm,
        metric: 'cpu_utilization',
        comparison: 'gt',
        threshold: 40,
        state: 'ok',
        created_at: expect.stringMatching(/Z$/),
      });
      expect(await until(() => rcv.posts.length >= 1)).toBe(true);
      await sleep(150);
      expect(rcv.posts).toHaveLength(1);
      const ev = JSON.parse(rcv.posts[0]!.body);
      expect(ev).toMatchObject({
        type: 'alarm.triggered',
        organization: decodeJwt(t).org,
        data: { alarm_id: hot.body.id, vm_id: vm, metric: 'cpu_utilization', value: 50, threshold: 40 },
      });
      expect(rcv.posts[0]!.headers['x-signature']).toBe(sign('k', rcv.posts[0]!.body));
      expect((await call(s, 'GET', `/v1/alarms/${hot.body.id}`, { token: t })).body).toMatchObject({
        id: hot.body.id,
        state: 'alarm',
      });
      expect((await call(s, 'GET', `/v1/alarms/${cold.body.id}`, { token: t })).body).toMatchObject({
        id: cold.body.id,
        state: 'ok',
      });
    });
  });

  it('does not fire before 1 virtual second', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const a = await alarm(s, t, 10);
    expect((await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state).toBe('ok');
    await sleep(1100);
    expect((await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state).toBe('alarm');
  });

  it('validates alarms, scopes them to the organization and needs an existing VM', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const vm = await firstVm(s, t);
    const ok = { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold: 1 };
    for (const json of [
      {},
      { ...ok, metric: 'memory' },
      { ...ok, comparison: 'eq' },
      { ...ok, threshold: '1' },
      { ...ok, vm_id: 3 },
    ]) {
      const r = await call(s, 'POST', '/v1/alarms', { token: t, json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    const missing = await call(s, 'POST', '/v1/alarms', { token: t, json: { ...ok, vm_id: 'vm-nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const a = await call(s, 'POST', '/v1/alarms', { token: t, json: ok });
    expect(a.status).toBe(201);
    const tb = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: tb })).status).toBe(404);
    expect((await call(s, 'POST', '/v1/alarms', { token: tb, json: ok })).status).toBe(404);
    expect((await call(s, 'POST', '/v1/alarms', { token: await tokenFor(s, s.apiKeyReadonly), json: ok })).status).toBe(
      403
    );
    expect((await call(s, 'GET', '/v1/alarms/al-nope', { token: t })).status).toBe(404);
  });
});

describeFaults('alarms');
