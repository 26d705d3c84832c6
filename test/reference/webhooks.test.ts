// The reference target (not the suite): webhooks and their deliveries, and the faults of the webhooks checks.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, sleep, until, withReceiver, sign, firstVm, register, alarm } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('webhooks', () => {
  it('registers, lists and deletes webhooks, never echoing the secret', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const c = await call(s, 'POST', '/v1/webhooks', {
      token: t,
      json: { url: 'https://example.test/hook', events: ['backup.completed', 'alarm.triggered'], secret: 's3cret' },
    });
    expect(c.status).toBe(201);
    expect(c.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(c.body).toEqual({
      id: expect.stringMatching(/^wh-/),
      url: 'https://example.test/hook',
      events: ['backup.completed', 'alarm.triggered'],
      created_at: expect.stringMatching(/Z$/),
    });
    expect(c.text).not.toContain('s3cret');
    const l = await call(s, 'GET', '/v1/webhooks', { token: t });
    expect(l.body).toMatchObject({ webhooks: [c.body], total: 1 });
    expect(l.text).not.toContain('s3cret');
    const tb = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', '/v1/webhooks', { token: tb })).body.total).toBe(0);
    expect((await call(s, 'DELETE', `/v1/webhooks/${c.body.id}`, { token: tb })).status).toBe(404);
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    expect(
      (
        await call(s, 'POST', '/v1/webhooks', {
          token: viewer,
          json: { url: 'http://x.test/', events: ['backup.failed'] },
        })
      ).status
    ).toBe(403);
    expect((await call(s, 'DELETE', `/v1/webhooks/${c.body.id}`, { token: viewer })).status).toBe(403);
    const d = await call(s, 'DELETE', `/v1/webhooks/${c.body.id}`, { token: t });
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ id: c.body.id, deleted: true });
    expect((await call(s, 'GET', '/v1/webhooks', { token: t })).body).toMatchObject({ webhooks: [], total: 0 });
    expect((await call(s, 'DELETE', `/v1/webhooks/${c.body.id}`, { token: t })).status).toBe(404);
    expect((await call(s, 'GET', '/v1/webhooks', { token: t })).status).toBe(200);
    expect((await call(s, 'GET', '/v1/webhooks')).status).toBe(401);
  });

  it('refuses invalid registrations with invalid_request', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const bad: unknown[] = [
      {},
      [],
      { url: 'ftp://x.test/', events: ['backup.completed'] },
      { url: 'not a url', events: ['backup.completed'] },
      { url: 7, events: ['backup.completed'] },
      { url: 'http://x.test/', events: [] },
      { url: 'http://x.test/', events: 'backup.completed' },
      { url: 'http://x.test/', events: ['vm.created'] },
      { url: 'http://x.test/', events: ['backup.completed'], secret: 5 },
      { url: 'http://x.test/' },
    ];
    for (const json of bad) {
      const r = await call(s, 'POST', '/v1/webhooks', { token: t, json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  it('delivers a signed JSON backup.completed event to subscribed webhooks of the organization only, without polling', async () => {
    const s = await start({ timeScale: 100 });
    const t = await tokenFor(s);
    const tb = await tokenFor(s, s.apiKeyB);
    await withReceiver(async (rcv) => {
      const wh = await register(s, t, `${rcv.url}/signed`, ['backup.completed'], 'top-secret');
      await register(s, t, `${rcv.url}/unsigned`, ['backup.completed', 'backup.failed']);
      await register(s, t, `${rcv.url}/alarms-only`, ['alarm.triggered']);
      await register(s, tb, `${rcv.url}/org-b`, ['backup.completed']);
      const vm = await firstVm(s, t);
      const b = await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } });
      expect(b.status).toBe(202);
      expect(await until(() => rcv.posts.length >= 2)).toBe(true);
      await sleep(100);
      expect(rcv.posts.map((p) => p.path).sort()).toEqual(['/signed', '/unsigned']);
      const signed = rcv.posts.find((p) => p.path === '/signed')!;
      const unsigned = rcv.posts.find((p) => p.path === '/unsigned')!;
      expect(signed.headers['content-type']).toBe('application/json');
      const ev = JSON.parse(signed.body);
      expect(ev).toEqual({
        id: expect.stringMatching(/^evt-/),
        type: 'backup.completed',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        organization: decodeJwt(t).org,
        data: { backup_id: b.body.backup_id, vm_id: vm, task_id: b.body.task_id, status: 'succeeded' },
      });
      expect(signed.headers).toMatchObject({
        'x-event-id': ev.id,
        'x-event-type': 'backup.completed',
        'x-delivery-attempt': '1',
      });
      expect(signed.headers['x-signature']).toBe(sign('top-secret', signed.body));
      expect(unsigned.body).toBe(signed.body);
      expect(unsigned.headers['x-signature']).toBeUndefined();
      expect(wh.body.id).toMatch(/^wh-/);
    });
  });

  it('retries a failed delivery after 2 virtual seconds, 3 attempts at most', async () => {
    const s = await start({ timeScale: 100 }); // 2 virtual seconds = 20 ms
    const t = await tokenFor(s);
    // Fails the first attempt of /once; always fails /never.
    await withReceiver(
      async (rcv) => {
        await register(s, t, `${rcv.url}/once`, ['alarm.triggered']);
        await register(s, t, `${rcv.url}/never`, ['alarm.triggered']);
        await alarm(s, t);
        expect(await until(() => rcv.posts.filter((p) => p.path === '/never').length >= 3)).toBe(true);
        await sleep(200);
        const attempts = (path: string) =>
          rcv.posts.filter((p) => p.path === path).map((p) => p.headers['x-delivery-attempt']);
        expect(attempts('/once')).toEqual(['1', '2']);
        expect(attempts('/never')).toEqual(['1', '2', '3']);
        expect(new Set(rcv.posts.map((p) => p.body)).size).toBe(1);
        expect(new Set(rcv.posts.map((p) => p.headers['x-event-id'])).size).toBe(1);
      },
      (p) => (p.path === '/never' || (p.path === '/once' && p.headers['x-delivery-attempt'] === '1') ? 500 : 200)
    );
  });

  it('delivers nothing to deleted webhooks', async () => {
    const s = await start({ timeScale: 100 });
    const t = await tokenFor(s);
    await withReceiver(async (rcv) => {
      const gone = await register(s, t, `${rcv.url}/gone`, ['alarm.triggered']);
      await register(s, t, `${rcv.url}/kept`, ['alarm.triggered']);
      expect((await call(s, 'DELETE', `/v1/webhooks/${gone.body.id}`, { token: t })).status).toBe(200);
      await alarm(s, t);
      expect(await until(() => rcv.posts.length >= 1)).toBe(true);
      await sleep(100);
      expect(rcv.posts.map((p) => p.path)).toEqual(['/kept']);
    });
  });
});

describeFaults('webhooks');
