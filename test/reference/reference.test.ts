// Tests of the embedded reference target itself (not of the suite): clean behaviour, limits, and every fault.
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startReference, type ReferenceSettings } from '../../fixtures/reference/server.ts';
import { call, closeStarted, exportedEntries, start, type Answer, type AuditEntryAnswer, type Res } from './harness.ts';
import { FAULTS, HOSTILE_FAULTS } from '../../fixtures/reference/faults.ts';
import { VARIANTS, ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import { createRequire } from 'node:module';

const { Webhook: StandardWebhook } = createRequire(import.meta.url)(
  'standardwebhooks'
) as typeof import('standardwebhooks');

afterAll(closeStarted);

async function tokenFor(s: ReferenceSettings, key = s.apiKey): Promise<string> {
  const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 10 ms until it holds or `ms` real milliseconds have passed; returns whether it held. */
async function until(cond: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

interface Post {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver on 127.0.0.1 collecting every POST; `respond` picks the status of each answer. */
async function receiver(respond: (p: Post, n: number) => number = () => 204) {
  const posts: Post[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p: Post = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      posts.push(p);
      res.writeHead(respond(p, posts.length));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

/** How many VMs tag=kk:a:b finds once one is created tagged kk=a:b. */
async function colonTagFound(s: ReferenceSettings): Promise<number> {
  const t = await tokenFor(s);
  expect((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { kk: 'a:b' } }) })).status).toBe(202);
  return (await call(s, 'GET', '/v1/vms?tag=kk:a:b&per_page=1', { token: t })).body.total;
}

/**
 * A test event sent to a receiver that holds its answer to the first attempt for holdMs, and
 * how many attempts had arrived countAtMs after the send. A target whose delivery timeout is shorter than the hold
 * has retried by then; one that waits for the answer has not.
 */
async function attemptsWhenHeld(s: ReferenceSettings, holdMs: number, countAtMs: number): Promise<number> {
  let posts = 0;
  const timers: NodeJS.Timeout[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (++posts > 1) return void res.writeHead(204).end();
      timers.push(setTimeout(() => void (res.destroyed || res.writeHead(204).end()), holdMs));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const t = await tokenFor(s);
    const w = await register(s, t, `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`, [
      'backup.completed',
    ]);
    expect((await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t })).status).toBe(202);
    await sleep(countAtMs);
    return posts;
  } finally {
    timers.forEach(clearTimeout);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Runs `fn` with a fresh receiver that is always closed afterwards. */
async function withReceiver<T>(fn: (r: Receiver) => Promise<T>, respond?: (p: Post, n: number) => number): Promise<T> {
  const r = await receiver(respond);
  try {
    return await fn(r);
  } finally {
    await r.close();
  }
}

const sign = (secret: string, body: string) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

async function firstVm(s: ReferenceSettings, t: string): Promise<string> {
  return (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id as string;
}

async function register(s: ReferenceSettings, t: string, url: string, events: string[], secret?: string): Promise<Res> {
  const r = await call(s, 'POST', '/v1/webhooks', {
    token: t,
    json: secret === undefined ? { url, events } : { url, events, secret },
  });
  expect(r.status).toBe(201);
  return r;
}

async function alarm(s: ReferenceSettings, t: string, threshold = 40): Promise<Res> {
  const vm = await firstVm(s, t);
  const r = await call(s, 'POST', '/v1/alarms', {
    token: t,
    json: { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold },
  });
  expect(r.status).toBe(201);
  return r;
}

function vmBody(s: ReferenceSettings, extra: Record<string, unknown> = {}) {
  return {
    name: 'test-vm',
    vcpus: 2,
    memory_gb: 4,
    image: s.image,
    system_disk_gb: 20,
    subnet_id: s.subnetId,
    ...extra,
  };
}

function tamper(token: string): string {
  const [h, p, sig] = token.split('.');
  const i = Math.floor(sig.length / 2);
  return `${h}.${p}.${sig.slice(0, i)}${sig[i] === 'A' ? 'B' : 'A'}${sig.slice(i + 1)}`;
}

describe('options', () => {
  it('rejects unknown faults and bad time scales', async () => {
    await expect(startReference({ faults: ['nope'] })).rejects.toThrow(
      'unknown fault "nope"; see cloud-conformance reference --list-faults'
    );
    await expect(startReference({ timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(startReference({ timeScale: Number.NaN })).rejects.toThrow(/timeScale/);
  });

  it('prints a base URL without trailing slash or version', async () => {
    const s = await start();
    expect(s.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.apiKey).toMatch(/^ck_[0-9a-f]{32}$/);
    expect(new Set([s.apiKey, s.apiKeyB, s.apiKeyReadonly]).size).toBe(3);
  });

  it('has a catalogue of uniquely named faults, and 7 hostile ones, each naming its level, clauses and check', () => {
    expect(HOSTILE_FAULTS).toHaveLength(7);
    expect(new Set([...FAULTS, ...HOSTILE_FAULTS].map((f) => f.name)).size).toBe(FAULTS.length + HOSTILE_FAULTS.length);
    for (const f of FAULTS) {
      expect(['must', 'should', 'declared'], f.name).toContain(f.level);
      expect(f.clauses.length, f.name).toBeGreaterThan(0);
      expect(f.check, f.name).toMatch(/^[a-z0-9]+\.[a-z0-9-]+$/);
    }
  });
});

describe('token exchange', () => {
  it('issues an HS256 JWT with the documented response shape', async () => {
    const s = await start();
    const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject({ expires_in: 3600, role: 'operator' });
    expect(r.body.organization).toMatch(/^org_/);
    const claims = decodeJwt(r.body.token);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.sub).not.toBe(s.apiKey);
    expect(claims.org).toBe(r.body.organization);
    const ro = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyReadonly } });
    expect(ro.body.role).toBe('viewer');
    const b = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } });
    expect(b.body.organization).not.toBe(r.body.organization);
  });

  it('rejects bad requests and unknown keys', async () => {
    const s = await start();
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: {} })).body.error.code).toBe('invalid_request');
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 5 } })).status).toBe(400);
    expect((await call(s, 'POST', '/v1/auth/tokens', { raw: '{"api_key":' })).status).toBe(400);
    const unknown = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'ck_' + '0'.repeat(32) } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
    const media = await call(s, 'POST', '/v1/auth/tokens', {
      raw: JSON.stringify({ api_key: s.apiKey }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(media.status).toBe(415);
  });
});

describe('authentication', () => {
  it('rejects missing, malformed, tampered, alg-none and query-string tokens with 401 unauthenticated', async () => {
    const s = await start();
    const good = await tokenFor(s);
    const [h, p] = good.split('.');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { authorization: 'Bearer not-a-jwt' },
      { authorization: `Bearer ${tamper(good)}` },
      { authorization: `Bearer ${noneHeader}.${p}.` },
      { authorization: `Bearer ${h}.${p}` },
    ];
    for (const headers of cases) {
      const r = await call(s, 'GET', '/v1/vms', { headers });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body.error.code).toBe('unauthenticated');
      expect(typeof r.body.error.message).toBe('string');
    }
    const q = await call(s, 'GET', `/v1/vms?access_token=${good}&token=${good}`);
    expect(q.status).toBe(401);
    expect((await call(s, 'GET', '/v1/vms', { token: good })).status).toBe(200);
  });

  it('expires tokens after 3600 virtual seconds with token_expired', async () => {
    const s = await start({ timeScale: 36_000 }); // one virtual hour = 100 ms
    const t = await tokenFor(s);
    expect((await call(s, 'GET', '/v1/vms', { token: t })).status).toBe(200);
    await sleep(150);
    const r = await call(s, 'GET', '/v1/vms', { token: t });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('token_expired');
  });
});

describe('virtual machines and tasks', () => {
  it('creates a VM through a task that succeeds', async () => {
    const s = await start({ timeScale: 20 }); // a task completes 75 real ms after creation: room to see it provisioning
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
    for (let i = 0; i < 50; i++) {
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
    await sleep(150);
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

describe('listing and pagination', () => {
  it('pages, filters by tag and rejects bad parameters', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const first = await call(s, 'GET', '/v1/vms', { token: t });
    expect(first.body).toMatchObject({ total: 130, page: 1, per_page: 20 });
    expect(first.body.vms).toHaveLength(20);
    expect(first.body.vms[0]).toMatchObject({ name: 'seed-vm-001', status: 'running' });
    const seen: string[] = [];
    for (let page = 1; page <= 2; page++) {
      const r = await call(s, 'GET', `/v1/vms?per_page=100&page=${page}`, { token: t });
      seen.push(...r.body.vms.map((v) => v.id));
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);
    const prod = await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=100', { token: t });
    expect(prod.body.total).toBe(44);
    expect(prod.body.vms.every((v) => v.tags.env === 'prod')).toBe(true);
    expect((await call(s, 'GET', '/v1/vms?tag=team:gamma', { token: t })).body.total).toBe(0);
    for (const q of ['per_page=101', 'per_page=0', 'per_page=abc', 'page=0', 'page=-1', 'page=1.5', 'tag=envprod']) {
      const r = await call(s, 'GET', `/v1/vms?${q}`, { token: t });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    const beyond = await call(s, 'GET', '/v1/vms?page=99', { token: t });
    expect(beyond.body).toMatchObject({ vms: [], total: 130 });
    const tb = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', '/v1/vms', { token: tb })).body.total).toBe(3);
  });
});

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

/** GET /v1/audit with the given query, as the entries list (fails the test on any other answer). */
async function auditEntries(s: ReferenceSettings, t: string, query = 'per_page=100'): Promise<AuditEntryAnswer[]> {
  const r = await call(s, 'GET', `/v1/audit?${query}`, { token: t });
  expect(r.status, r.text).toBe(200);
  return r.body.entries;
}

/** Minimal RFC 4180 parser for the tests. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += ch;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('audit trail', () => {
  it('logs every authenticated request whatever its outcome, and nothing unauthenticated', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const keyId = decodeJwt(t).sub as string;
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    const expected: Array<[string, string, number]> = [['POST', '/v1/auth/tokens', 200]];
    const send = async (method: string, path: string, opts: Parameters<typeof call>[3], status: number) => {
      const r = await call(s, method, path, opts);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.body?.error === undefined || typeof r.body.error.code === 'string').toBe(true);
      expected.push([method, path.split('?')[0]!, status]);
    };
    await send('GET', '/v1/vms?per_page=2', { token: t }, 200);
    await send('POST', '/v1/vms', { token: t, json: {} }, 400);
    await send('GET', '/v1/vms/vm-nope', { token: t }, 404);
    await send('GET', '/v1/nothing', { token: t }, 404);
    await send('PATCH', '/v1/vms', { token: t }, 405);
    await send('POST', '/v1/vms', { token: t, raw: '{}', headers: { 'content-type': 'text/plain' } }, 415);
    await send('POST', '/v1/vms', { token: t, raw: JSON.stringify({ x: 'x'.repeat(1024 * 1024) }) }, 413);
    await send(
      'POST',
      '/v1/auth/tokens',
      { json: { api_key: s.apiKey }, headers: { 'content-type': 'text/plain' } },
      415
    );
    // Not logged: no or bad credentials, an unknown API key.
    expect((await call(s, 'GET', '/v1/vms')).status).toBe(401);
    expect((await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status).toBe(401);
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'ck_nope' } })).status).toBe(401);
    expect((await call(s, 'GET', '/v1/nothing')).status).toBe(404);
    // A viewer's refused write is logged under the viewer's key.
    expect((await call(s, 'POST', '/v1/vms', { token: viewer, json: {} })).status).toBe(403);
    // 429s are logged too: a fresh token spends its write budget.
    const t2 = await tokenFor(s);
    expected.push(['POST', '/v1/auth/tokens', 200]);
    const ws = await burst(61, () => write(s, t2));
    expect(count(ws, 429)).toBe(1);

    const entries = await auditEntries(s, t, 'per_page=100&actor=' + keyId);
    // Newest first: reverse to compare with the order sent (the burst's writes last, in some order).
    const seen = entries.map((e) => [e.method, e.path, e.status]).reverse();
    expect(seen.slice(0, expected.length)).toEqual(expected);
    expect(
      seen
        .slice(expected.length)
        .map((e) => e[2])
        .sort()
    ).toEqual([...Array(60).fill(400), 429]);
    for (const e of entries) {
      expect(e).toEqual({
        id: expect.stringMatching(/^au-/),
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        actor: keyId,
        organization: decodeJwt(t).org,
        source_ip: '127.0.0.1',
        method: e.method,
        path: e.path,
        status: e.status,
        result: e.status < 400 ? 'success' : 'failure',
      });
    }
    expect(JSON.stringify(entries)).not.toContain(s.apiKey);
    const all = await auditEntries(s, t);
    const viewerId = decodeJwt(viewer).sub;
    expect(all.filter((e) => e.actor === viewerId).map((e) => [e.method, e.path, e.status])).toEqual([
      ['POST', '/v1/vms', 403],
      ['POST', '/v1/auth/tokens', 200],
    ]);
    expect(all.some((e) => e.status === 401)).toBe(false);
    // Org B sees none of it; the GET /v1/audit requests themselves were logged after they answered.
    const tb = await tokenFor(s, s.apiKeyB);
    const b = await auditEntries(s, tb);
    expect(b.map((e) => [e.method, e.path])).toEqual([['POST', '/v1/auth/tokens']]);
    const again = await auditEntries(s, t, 'per_page=2&path_prefix=/v1/audit');
    expect(again.map((e) => e.path)).toEqual(['/v1/audit', '/v1/audit']);
  });

  it('logs token issuance refused by the issuance limit under the key', async () => {
    const s = await start();
    const rs = await burst(11, () => issue(s));
    expect(count(rs, 429)).toBe(1);
    const t = await tokenFor(s, s.apiKeyB);
    expect((await auditEntries(s, t)).length).toBe(1);
    // Key A's budget is spent, so org A's log is read with the viewer's key (its own issuance is logged too).
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    const entries = await auditEntries(s, viewer, 'path_prefix=/v1/auth/tokens&per_page=100');
    expect(entries.map((e) => e.status).sort()).toEqual([...Array(11).fill(200), 429]);
  });

  it('searches with exact filters, newest first, paged', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    // Real time equals virtual time at scale 1; the pauses keep entries off the boundaries (from and to are inclusive).
    await sleep(5);
    const before = new Date().toISOString();
    await sleep(5);
    await call(s, 'GET', '/v1/vms', { token: t });
    await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
    await call(s, 'POST', '/v1/vms', { token: viewer, json: {} });
    await call(s, 'GET', '/v1/tasks/task-nope', { token: t });
    await sleep(5);
    const after = new Date().toISOString();
    await sleep(5);
    const all = await auditEntries(s, t);
    expect(all).toHaveLength(6);
    expect(all.map((e) => e.time)).toEqual([...all.map((e) => e.time)].sort().reverse());
    // None of these filters matches the GET /v1/audit requests the test itself makes.
    const q = async (query: string) =>
      (await auditEntries(s, t, query)).map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(await q('result=failure')).toEqual([
      'GET /v1/tasks/task-nope 404',
      'POST /v1/vms 403',
      'GET /v1/vms/vm-nope 404',
    ]);
    expect(await q('result=success&path_prefix=/v1/vms')).toEqual(['GET /v1/vms 200']);
    expect(await q('method=POST')).toEqual([
      'POST /v1/vms 403',
      'POST /v1/auth/tokens 200',
      'POST /v1/auth/tokens 200',
    ]);
    expect(await q(`actor=${decodeJwt(viewer).sub}`)).toEqual(['POST /v1/vms 403', 'POST /v1/auth/tokens 200']);
    expect((await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path)).toEqual([
      '/v1/vms',
      '/v1/vms/vm-nope',
      '/v1/vms',
    ]);
    expect((await q(`from=${before}&to=${after}`)).length).toBe(4);
    expect(await q(`to=${before}`)).toEqual(['POST /v1/auth/tokens 200', 'POST /v1/auth/tokens 200']);
    const p1 = await call(s, 'GET', '/v1/audit?per_page=2&page=1&path_prefix=/v1/vms', { token: t });
    expect(p1.body).toMatchObject({ total: 3, page: 1, per_page: 2 });
    expect(p1.body.entries).toHaveLength(2);
    const p2 = await call(s, 'GET', '/v1/audit?per_page=2&page=2&path_prefix=/v1/vms', { token: t });
    expect(p2.body.entries.map((e) => e.path)).toEqual(['/v1/vms']);
    for (const bad of [
      'per_page=101',
      'per_page=0',
      'page=0',
      'result=ok',
      'from=yesterday',
      'to=2026-01-01',
      `from=${after}&to=${before}`,
    ]) {
      const r = await call(s, 'GET', `/v1/audit?${bad}`, { token: t });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    expect((await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).status).toBe(200);
  });

  it('exports all matching entries as JSON and RFC 4180 CSV, agreeing with the search', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
    await call(s, 'GET', '/v1/nothing,"quoted"', { token: t });
    const searchAll = await auditEntries(s, t, 'path_prefix=/v1/vms&per_page=100');
    const j = await call(s, 'GET', '/v1/audit/export?format=json&path_prefix=/v1/vms', { token: t });
    expect(j.status).toBe(200);
    expect(j.headers.get('content-type')).toMatch(/^application\/json/);
    expect(j.body).toEqual(searchAll);
    const c = await call(s, 'GET', '/v1/audit/export?format=csv&path_prefix=/v1/n', { token: t });
    expect(c.status).toBe(200);
    expect(c.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(c.text);
    expect(rows[0]).toEqual(['id', 'time', 'actor', 'organization', 'source_ip', 'method', 'path', 'status', 'result']);
    expect(rows).toHaveLength(2);
    const [entry] = await auditEntries(s, t, 'path_prefix=/v1/n');
    expect(entry.path).toBe('/v1/nothing,%22quoted%22');
    expect(rows[1]).toEqual([
      entry.id,
      entry.time,
      entry.actor,
      entry.organization,
      entry.source_ip,
      'GET',
      entry.path,
      '404',
      'failure',
    ]);
    expect(c.text).toContain('"/v1/nothing,%22quoted%22"');
    const csvAll = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv', { token: t })).text).slice(1);
    const jsonAll = exportedEntries(await call(s, 'GET', '/v1/audit/export?format=json', { token: t }));
    // The export requests are logged too: the JSON one came later, so it sees the CSV one.
    expect(jsonAll.slice(1).map((e) => e.id)).toEqual(csvAll.map((r) => r[0]));
    const bad = await call(s, 'GET', '/v1/audit/export?format=xml', { token: t });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect((await call(s, 'GET', '/v1/audit/export?format=csv')).status).toBe(401);
  });
});

describe('protocol errors', () => {
  it('answers unknown paths, wrong methods, big and non-JSON bodies', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (const p of ['/v2/vms', '/v999/vms', '/vms', '/v1/nothing']) {
      const r = await call(s, 'GET', p, { token: t });
      expect(r.status, p).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const m = await call(s, 'PATCH', '/v1/vms', { token: t });
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toContain('POST');
    const big = await call(s, 'POST', '/v1/vms', {
      token: t,
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const media = await call(s, 'POST', '/v1/vms', {
      token: t,
      raw: JSON.stringify(vmBody(s)),
      headers: { 'content-type': 'text/plain' },
    });
    expect(media.status).toBe(415);
    const junk = await call(s, 'POST', '/v1/vms', { token: t, raw: '{nope' });
    expect(junk.status).toBe(400);
    expect(junk.body.error.code).toBe('invalid_request');
  });
});

describe('rate limits', () => {
  it('limits writes to 60, reads to 300 and issuance to 10 per window with Retry-After', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (let i = 0; i < 60; i++) expect((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status).toBe(400);
    const w = await call(s, 'POST', '/v1/vms', { token: t, json: {} });
    expect(w.status).toBe(429);
    expect(w.body.error.code).toBe('rate_limited');
    const ra = Number(w.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    expect(ra).toBeLessThanOrEqual(60);
    const reads = await Promise.all(
      Array.from({ length: 301 }, () => call(s, 'GET', '/v1/vms?per_page=1', { token: t }))
    );
    expect(reads.filter((r) => r.status === 200)).toHaveLength(300);
    expect(reads.filter((r) => r.status === 429)).toHaveLength(1);
    // Issuance is per key: tokenFor above used one of key A's ten.
    for (let i = 0; i < 9; i++)
      expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).status).toBe(200);
    const iss = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
    expect(iss.status).toBe(429);
    expect(Number(iss.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } })).status).toBe(200);
    // A new token has its own request budget.
    const t2 = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', '/v1/vms', { token: t2 })).status).toBe(200);
  });

  it('resets the window on the virtual clock', async () => {
    const s = await start({ timeScale: 120 }); // 60 virtual seconds = 500 ms
    const t = await tokenFor(s);
    const burst = await Promise.all(
      Array.from({ length: 61 }, () => call(s, 'POST', '/v1/vms', { token: t, json: {} }))
    );
    const limited = burst.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    const ra = Number(limited!.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    await sleep((ra * 1000) / 120 + 50);
    expect((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status).toBe(400);
  });
});

/** A webhook registered with a secret to a fresh receiver, then its test event: the delivery's headers and body. */
async function testDelivery(
  s: ReferenceSettings,
  secret: string
): Promise<{ headers: IncomingHttpHeaders; body: string; date: number } | undefined> {
  return withReceiver(async (r) => {
    const t = await tokenFor(s);
    const w = await register(s, t, r.url + '/h', ['backup.completed'], secret);
    const sent = await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
    expect(sent.status).toBe(202);
    if (!(await until(() => r.posts.length > 0, 1000))) return undefined;
    return { headers: r.posts[0]!.headers, body: r.posts[0]!.body, date: Date.parse(sent.headers.get('date')!) };
  });
}

const hmacHex = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

function issue13FaultCases(): FaultCase[] {
  return [
    {
      name: 'signature-timestamp-unsigned',
      variants: ['signature-timestamped'],
      probe: async (s) => {
        const d = (await testDelivery(s, 'k1'))!;
        const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
        return [m !== null, m[2] === hmacHex('k1', `${m[1]}.${d.body}`), m[2] === hmacHex('k1', d.body)];
      },
      clean: [true, true, false],
      faulty: [true, false, true],
    },
    {
      name: 'signature-timestamp-stale',
      variants: ['signature-timestamped'],
      probe: async (s) => {
        const d = (await testDelivery(s, 'k1'))!;
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
        return [v1 === hmacHex('k1', `${t}.${d.body}`), Math.abs(Number(t) - d.date / 1000) < 60];
      },
      clean: [true, true],
      faulty: [true, false],
    },
    {
      name: 'signature-wall-clock-stale',
      variants: ['signature-timestamped', 'signature-wall-clock'],
      probe: async (s) => {
        const d = (await testDelivery(s, 'k1'))!;
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
        return [v1 === hmacHex('k1', `${t}.${d.body}`), Math.abs(Number(t) - Date.now() / 1000) < 60];
      },
      clean: [true, true],
      faulty: [true, false],
    },
    {
      name: 'retry-schedule-short',
      variants: ['retry-exponential'],
      timeScale: 2000,
      probe: async (s) =>
        withReceiver(
          async (r) => {
            const t = await tokenFor(s);
            const w = await register(s, t, r.url + '/h', ['backup.completed']);
            await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
            await until(() => r.posts.length >= 5, 1500);
            await sleep(100);
            return r.posts.length;
          },
          () => 503
        ),
      clean: 5,
      faulty: 2,
    },
    {
      name: 'event-id-header-per-attempt',
      variants: ['delivery-id-per-attempt'],
      timeScale: 100,
      probe: async (s) =>
        withReceiver(
          async (r) => {
            const t = await tokenFor(s);
            const w = await register(s, t, r.url + '/h', ['backup.completed']);
            await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
            await until(() => r.posts.length >= 2, 1500);
            return r.posts[0]!.headers['x-hook-event'] === r.posts[1]!.headers['x-hook-event'];
          },
          (_p, n) => (n === 1 ? 503 : 204)
        ),
      clean: true,
      faulty: false,
    },
    {
      name: 'restore-event-missing',
      variants: ['events-on-restore'],
      timeScale: 100,
      probe: async (s) =>
        withReceiver(async (r) => {
          const t = await tokenFor(s);
          await register(s, t, r.url + '/h', ['backup.completed', 'backup.failed']);
          const backup = (
            await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: { description: 'x' } })
          ).body.backup_id;
          for (
            let i = 0;
            i < 300 && (await call(s, 'GET', `/v1/backups/${backup}`, { token: t })).body.status !== 'available';
            i++
          )
            await sleep(10);
          await call(s, 'POST', `/v1/backups/${backup}/restore`, { token: t, json: {} });
          await until(() => r.posts.length >= 2, 1000);
          return r.posts.length;
        }),
      clean: 2,
      faulty: 1,
    },
    {
      name: 'webhook-delete-404',
      probe: async (s) => {
        const t = await tokenFor(s);
        const w = await register(s, t, 'http://127.0.0.1:9/h', ['backup.completed']);
        const d = await call(s, 'DELETE', `/v1/webhooks/${w.body.id}`, { token: t });
        return [d.status, (await call(s, 'GET', '/v1/webhooks', { token: t })).body.total];
      },
      clean: [200, 0],
      faulty: [404, 1],
    },
    {
      name: 'webhook-wildcard-ignored',
      variants: ['event-names-dotted'],
      timeScale: 100,
      probe: async (s) =>
        withReceiver(async (r) => {
          const t = await tokenFor(s);
          await register(s, t, r.url + '/pattern', ['backup.job.*']);
          await register(s, t, r.url + '/name', ['backup.job.completed']);
          await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
          await until(() => r.posts.length >= 2, 1000);
          return r.posts.map((p) => p.path).sort();
        }),
      clean: ['/name', '/pattern'],
      faulty: ['/name'],
    },
    {
      name: 'webhook-test-event-not-sent',
      probe: async (s) => (await testDelivery(s, 'k1')) !== undefined,
      clean: true,
      faulty: false,
    },
    {
      name: 'audit-jsonl-missing-entry',
      variants: ['audit-export-jsonl'],
      probe: async (s) => {
        const t = await tokenFor(s);
        for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        const r = await call(s, 'GET', '/v1/audit/export?format=jsonl&path_prefix=/v1/vms', { token: t });
        return [
          r.headers.get('content-type'),
          r.text
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).path),
        ];
      },
      clean: ['application/x-ndjson; charset=utf-8', ['/v1/vms', '/v1/vms', '/v1/vms']],
      faulty: ['application/x-ndjson; charset=utf-8', ['/v1/vms', '/v1/vms']],
    },
    {
      name: 'audit-order-reversed',
      variants: ['audit-oldest-first'],
      probe: async (s) => {
        const t = await tokenFor(s);
        await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
        return (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path);
      },
      clean: ['/v1/vms', '/v1/vms/vm-nope'],
      faulty: ['/v1/vms/vm-nope', '/v1/vms'],
    },
    {
      name: 'audit-actor-id-missing',
      variants: ['audit-actor-object'],
      probe: async (s) => {
        const t = await tokenFor(s);
        await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        const [e] = await auditEntries(s, t, 'path_prefix=/v1/vms');
        const actor = typeof e.actor === 'object' ? e.actor : undefined;
        return [actor?.type, typeof actor?.api_key_id];
      },
      clean: ['api_key', 'string'],
      faulty: ['api_key', 'undefined'],
    },
    {
      name: 'revoked-key-reissues',
      variants: ['revoke-by-id'],
      probe: async (s) => {
        const t = await tokenFor(s, s.apiKeyRevocable);
        const key = await call(s, 'GET', '/v1/api-keys/current', { token: t });
        const revoked = await call(s, 'DELETE', `/v1/api-keys/${key.body.id}`, { token: t });
        const old = await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        const reissued = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyRevocable } });
        return [revoked.status, old.status, reissued.status];
      },
      clean: [200, 401, 401],
      faulty: [200, 401, 200],
    },
    {
      name: 'revoke-by-id-no-effect',
      variants: ['revoke-by-token-claim'],
      probe: async (s) => {
        const t = await tokenFor(s, s.apiKeyRevocable);
        // The key's id is only in its token: the JWT's sub.
        const id = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString('utf8')).sub;
        const revoked = await call(s, 'DELETE', `/v1/api-keys/${id}`, { token: t });
        const old = await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        return [revoked.status, old.status];
      },
      clean: [200, 401],
      faulty: [200, 200],
    },
    {
      name: 'revoked-key-code-generic',
      variants: ['revoked-key-own-code'],
      probe: async (s) => {
        const t = await tokenFor(s, s.apiKeyRevocable);
        await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
        const r = await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
        return [r.status, r.body.error.code, (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).body.error.code];
      },
      clean: [401, 'key_revoked', 'unauthenticated'],
      faulty: [401, 'unauthenticated', 'unauthenticated'],
    },
    {
      name: 'payload-too-large-400',
      probe: async (s) => {
        const r = await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          raw: JSON.stringify(vmBody(s, { name: 'x'.repeat(2 * 1024 * 1024) })),
        });
        return [r.status, r.body.error.code];
      },
      clean: [413, 'payload_too_large'],
      faulty: [400, 'invalid_request'],
    },
    {
      name: 'invalid-json-code-drift',
      probe: async (s) => {
        const r = await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), raw: '{"name": ' });
        return [r.status, r.body.error.code];
      },
      clean: [400, 'invalid_request'],
      faulty: [400, 'malformed_body'],
    },
  ];
}

// Each fault is probed on a clean target and on a target with only that fault; the observations must differ as described.
interface FaultCase {
  name: string;
  timeScale?: number;
  /** Conforming variants both targets run under (the faults of the second overlay's designs need theirs). */
  variants?: string[];
  probe: (s: ReferenceSettings) => Promise<unknown>;
  clean: unknown;
  faulty: unknown;
}

async function createVm(s: ReferenceSettings, t: string) {
  return call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
}

function burst(n: number, send: () => Promise<Res>): Promise<Res[]> {
  return Promise.all(Array.from({ length: n }, send));
}

const count = (rs: Res[], status: number) => rs.filter((r) => r.status === status).length;

/** Spends the key's issuance budget, then asks again 12 target seconds later (time scale 60: 200 ms). */
async function issuedAfter12s(s: ReferenceSettings): Promise<number> {
  const spent = await burst(11, () => issue(s));
  if (count(spent, 429) !== 1) throw new Error('the issuance budget was not spent');
  await sleep(12_000 / 60);
  return (await issue(s)).status;
}
const issue = (s: ReferenceSettings, key = s.apiKey) => call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });
const write = (s: ReferenceSettings, t: string) => call(s, 'POST', '/v1/vms', { token: t, json: {} });

/**
 * A write budget spent in two halves half a window apart, then the whole budget a window after the first half, at
 * time scale 10 (a window is 6 real seconds): what the second and third bursts got past the limit. Fixed windows
 * serve the whole budget again, a sliding one only the first half.
 */
async function windowHalves(s: ReferenceSettings): Promise<[number, number]> {
  const t = await tokenFor(s);
  const served = (rs: Res[]) => rs.filter((r) => r.status !== 429).length;
  const start = Date.now();
  await burst(30, () => write(s, t));
  await sleep(start + 3_000 - Date.now());
  const second = served(await burst(31, () => write(s, t)));
  await sleep(start + 6_300 - Date.now());
  return [second, served(await burst(60, () => write(s, t)))];
}
const read = (s: ReferenceSettings, t: string) => call(s, 'GET', '/v1/vms?per_page=1', { token: t });

/** [accepted, refused] of a concurrent burst just over each documented budget (default time scale: one window is a real minute). */
const readLimitProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const rs = await burst(302, () => read(s, t));
  return [count(rs, 200), count(rs, 429)];
};
const writeLimitProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const rs = await burst(62, () => write(s, t));
  return [count(rs, 400), count(rs, 429)];
};
const tokenLimitProbe = async (s: ReferenceSettings) => {
  const rs = await burst(12, () => issue(s));
  return [count(rs, 200), count(rs, 429)];
};

/** Spends token 1's read and write budgets, then uses another token of the same key and a token of key B. */
const requestScopeProbe = async (s: ReferenceSettings) => {
  const [t1, t2, tb] = [await tokenFor(s), await tokenFor(s), await tokenFor(s, s.apiKeyB)];
  await Promise.all([burst(60, () => write(s, t1)), burst(300, () => read(s, t1))]);
  return [
    (await write(s, t2)).status,
    (await write(s, tb)).status,
    (await read(s, t2)).status,
    (await read(s, tb)).status,
  ];
};

/** Shape of an issuance 429 and of a write 429: [status, content type, error code or whole body, has Retry-After]. */
const rejectionProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const [iss, ws] = await Promise.all([burst(10, () => issue(s)), burst(61, () => write(s, t))]);
  return [iss, ws].map((rs) => {
    const r = rs.find((x) => x.status === 429)!;
    return [
      r.status,
      r.headers.get('content-type'),
      r.body.error ? r.body.error.code : r.body,
      r.headers.has('retry-after'),
    ];
  });
};

function nameStatuses(s: ReferenceSettings, t: string, names: string[]): Promise<number[]> {
  return Promise.all(
    names.map(async (name) => (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name }) })).status)
  );
}

/** [signed, signature verifies with the registered secret, webhook without secret signed]. */
function signatureProbe(s: ReferenceSettings): Promise<unknown> {
  return withReceiver(async (rcv) => {
    const t = await tokenFor(s);
    await register(s, t, `${rcv.url}/secret`, ['alarm.triggered'], 'shh');
    await register(s, t, `${rcv.url}/plain`, ['alarm.triggered']);
    await alarm(s, t);
    await until(() => rcv.posts.length >= 2);
    const withSecret = rcv.posts.find((p) => p.path === '/secret')!;
    const plain = rcv.posts.find((p) => p.path === '/plain')!;
    return [
      withSecret.headers['x-signature'] !== undefined,
      withSecret.headers['x-signature'] === sign('shh', withSecret.body),
      plain.headers['x-signature'] !== undefined,
    ];
  });
}

const faultCases: FaultCase[] = [
  {
    name: 'token-ttl-7200',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const c = decodeJwt(r.body.token);
      return [r.body.expires_in, c.exp! - c.iat!];
    },
    clean: [3600, 3600],
    faulty: [7200, 3600],
  },
  {
    name: 'vms-list-without-auth',
    probe: async (s) => [(await call(s, 'GET', '/v1/vms')).status, (await call(s, 'GET', '/v1/tasks/task-x')).status],
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'malformed-token-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms', { token: 'garbage' })).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'signature-unchecked',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
        (await call(s, 'GET', '/v1/vms', { token: 'garbage' })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'wrong-api-key-accepted',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'ck_wrong' } })).status,
      (await call(s, 'POST', '/v1/auth/tokens', { json: {} })).status,
    ],
    clean: [401, 400],
    faulty: [200, 400],
  },
  {
    name: 'expiry-unenforced',
    timeScale: 36_000,
    probe: async (s) => {
      const t = await tokenFor(s);
      await sleep(150);
      return (await call(s, 'GET', '/v1/vms', { token: t })).status;
    },
    clean: 401,
    faulty: 200,
  },
  {
    name: 'expired-token-403-beside-list',
    timeScale: 36_000,
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = await firstVm(s, t);
      await sleep(150);
      return [
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await call(s, 'GET', `/v1/vms/${vm}`, { token: t })).status,
      ];
    },
    clean: [401, 401],
    faulty: [401, 403],
  },
  {
    name: 'expired-token-403',
    timeScale: 36_000,
    probe: async (s) => {
      const t = await tokenFor(s);
      await sleep(150);
      return (await call(s, 'GET', '/v1/vms', { token: t })).status;
    },
    clean: 401,
    faulty: 403,
  },
  {
    name: 'organization-constant',
    probe: async (s) => {
      const a = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const b = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } });
      return [
        a.body.organization === b.body.organization,
        (await call(s, 'GET', '/v1/vms', { token: b.body.token })).body.total,
      ];
    },
    clean: [false, 3],
    faulty: [true, 3],
  },
  {
    name: 'foreign-subnet-accepted',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: vmBody(s, { subnet_id: s.subnetIdB }) }))
        .status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'cross-org-status-drift',
    variants: ['cross-org-403'],
    probe: async (s) => {
      const created = await createVm(s, await tokenFor(s));
      const r = await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: await tokenFor(s, s.apiKeyB) });
      return [r.status, r.body.error.code];
    },
    clean: [403, 'forbidden'],
    faulty: [404, 'not_found'],
  },
  {
    name: 'cross-org-task-visible',
    probe: async (s) => {
      const a = await tokenFor(s);
      const created = await createVm(s, a);
      const b = await tokenFor(s, s.apiKeyB);
      return (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: b })).status;
    },
    clean: 404,
    faulty: 200,
  },
  {
    name: 'paging-not-integer-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      const q = async (query: string) => {
        const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
        return r.status === 200 ? r.body.vms.length : r.status;
      };
      return [
        await q('per_page=abc'),
        await q('per_page=1.5'),
        await q('page=abc&per_page=3'),
        await q('per_page=2'),
        await q('per_page=101'),
      ];
    },
    clean: [400, 400, 400, 2, 400],
    faulty: [20, 20, 3, 2, 400],
  },
  {
    name: 'cross-org-refusal-names-vm',
    probe: async (s) => {
      const a = await tokenFor(s);
      const created = await createVm(s, a);
      const b = await tokenFor(s, s.apiKeyB);
      const r = await call(s, 'POST', `/v1/vms/${created.body.vm_id}/backups`, {
        token: b,
        json: { description: 'x' },
      });
      return [r.status, r.text.includes('test-vm')];
    },
    clean: [404, false],
    faulty: [404, true],
  },
  {
    name: 'readonly-401',
    probe: async (s) => (await createVm(s, await tokenFor(s, s.apiKeyReadonly))).status,
    clean: 403,
    faulty: 401,
  },
  {
    name: 'api-key-as-bearer-accepted',
    probe: async (s) => (await call(s, 'GET', '/v1/vms', { token: s.apiKey })).status,
    clean: 401,
    faulty: 200,
  },
  {
    name: 'oversized-token-body-500',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'x'.repeat(2 * 1024 * 1024) } })).status,
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
        })
      ).status,
    ],
    clean: [413, 413],
    faulty: [500, 413],
  },
  {
    name: 'oversized-body-500',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
        })
      ).status,
    clean: 413,
    faulty: 500,
  },
  {
    name: 'oversized-body-stalls',
    // A 2 MiB body, and whether an answer came within 2 s (the stalled server neither reads on nor answers).
    probe: async (s) => {
      const t = await tokenFor(s);
      const answered = call(s, 'POST', '/v1/vms', {
        token: t,
        json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
      }).then(
        (r) => r.status,
        () => 'no answer'
      );
      return Promise.race([answered, new Promise((r) => setTimeout(() => r('no answer within 2 s'), 2000))]);
    },
    clean: 413,
    faulty: 'no answer within 2 s',
  },
  {
    name: 'webhook-registration-refused',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/webhooks', {
          token: await tokenFor(s),
          json: { url: 'http://127.0.0.1:9/hook', events: ['backup.completed'] },
        })
      ).status,
    clean: 201,
    faulty: 500,
  },
  {
    name: 'trailing-json-accepted',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          raw: `${JSON.stringify(vmBody(s))} {"name": "second"}`,
        })
      ).status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'token-any-media-type',
    probe: async (s) => [
      (
        await call(s, 'POST', '/v1/auth/tokens', {
          raw: JSON.stringify({ api_key: s.apiKeyReadonly }),
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          raw: JSON.stringify(vmBody(s)),
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ],
    clean: [415, 415],
    faulty: [200, 415],
  },
  {
    name: 'token-trailing-json-accepted',
    probe: async (s) => [
      (
        await call(s, 'POST', '/v1/auth/tokens', {
          raw: `${JSON.stringify({ api_key: s.apiKeyReadonly })} {"api_key": "x"}`,
        })
      ).status,
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          raw: `${JSON.stringify(vmBody(s))} {"name": "second"}`,
        })
      ).status,
    ],
    clean: [400, 400],
    faulty: [200, 400],
  },
  {
    name: 'backup-any-media-type',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) })).body.vm_id;
      const raw = JSON.stringify({ description: 'framing' });
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, raw, headers: { 'content-type': 'text/plain' } }))
          .status,
        (
          await call(s, 'POST', '/v1/vms', {
            token: t,
            raw: JSON.stringify(vmBody(s)),
            headers: { 'content-type': 'text/plain' },
          })
        ).status,
      ];
    },
    clean: [415, 415],
    faulty: [202, 415],
  },
  {
    name: 'backup-trailing-json-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) })).body.vm_id;
      return [
        (
          await call(s, 'POST', `/v1/vms/${vm}/backups`, {
            token: t,
            raw: `${JSON.stringify({ description: 'framing' })} {"description": "x"}`,
          })
        ).status,
        (await call(s, 'POST', '/v1/vms', { token: t, raw: `${JSON.stringify(vmBody(s))} {"name": "second"}` })).status,
      ];
    },
    clean: [400, 400],
    faulty: [202, 400],
  },
  {
    name: 'unknown-image-accepted',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: vmBody(s, { image: 'no-such-image' }) }))
        .status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'unauthenticated-write-403',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/vms')).status,
      (await call(s, 'POST', '/v1/vms', { json: vmBody(s) })).status,
    ],
    clean: [401, 401],
    faulty: [401, 403],
  },
  {
    name: 'unauthenticated-delete-403',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/vms', { json: vmBody(s) })).status,
      (await call(s, 'DELETE', '/v1/vms/vm-absent')).status,
    ],
    clean: [401, 401],
    faulty: [401, 403],
  },
  {
    name: 'not-found-410',
    probe: async (s) => (await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) })).status,
    clean: 404,
    faulty: 410,
  },
  {
    name: 'revocation-ignored',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [revoked.status, (await call(s, 'GET', '/v1/vms', { token: t })).status];
    },
    clean: [200, 401],
    faulty: [200, 200],
  },
  {
    name: 'page-size-off-51-99',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?per_page=60', { token: t })).body.vms.length,
        (await call(s, 'GET', '/v1/vms?per_page=50', { token: t })).body.vms.length,
      ];
    },
    clean: [60, 50],
    faulty: [61, 50],
  },
  {
    name: 'vcpus-over-1-refused',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: { ...vmBody(s), vcpus: 2 } })).status,
    clean: 202,
    faulty: 400,
  },
  {
    name: 'quote-in-id-500',
    probe: async (s) => {
      const t = await tokenFor(s);
      return (await call(s, 'GET', `/v1/tasks/${encodeURIComponent("x' OR '1'='1")}`, { token: t })).status;
    },
    clean: 404,
    faulty: 500,
  },
  {
    name: 'memory-string-500',
    probe: async (s) => {
      const t = await tokenFor(s);
      const body = { name: 'x', vcpus: 1, memory_gb: '2', image: s.image, system_disk_gb: 20, subnet_id: s.subnetId };
      return (await call(s, 'POST', '/v1/vms', { token: t, json: body })).status;
    },
    clean: 400,
    faulty: 500,
  },
  {
    name: 'role-constant',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyReadonly } });
      const write = await call(s, 'POST', '/v1/vms', { token: r.body.token, json: {} });
      return [r.body.role, write.status];
    },
    clean: ['viewer', 403],
    faulty: ['operator', 403],
  },
  {
    name: 'unauthenticated-403',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms');
      return [r.status, r.body.error.code];
    },
    clean: [401, 'unauthenticated'],
    faulty: [403, 'unauthenticated'],
  },
  {
    name: 'vm-record-404-flat',
    probe: async (s) =>
      Object.keys((await call(s, 'GET', '/v1/vms/vm-absent-anywhere', { token: await tokenFor(s) })).body),
    clean: ['error'],
    faulty: ['code', 'message'],
  },
  {
    name: 'token-malformed-json-500',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/auth/tokens', { raw: '{"api_key": ' })).status,
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), raw: '{"name": ' })).status,
    ],
    clean: [400, 400],
    faulty: [500, 400],
  },
  {
    name: 'vm-name-lowercased',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name: 'Mixed.Case-Name' } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.name;
    },
    clean: 'Mixed.Case-Name',
    faulty: 'mixed.case-name',
  },
  {
    name: 'vm-vcpus-clamped-16',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), vcpus: 32 } });
      return [c.status, (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.vcpus];
    },
    clean: [202, 32],
    faulty: [202, 16],
  },
  {
    name: 'vm-name-beyond-ascii-mangled',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name: 'Zürich-é' } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.name;
    },
    clean: 'Zürich-é',
    faulty: 'ZÃ¼rich-Ã©',
  },
  {
    name: 'list-name-cut-32',
    probe: async (s) => {
      const t = await tokenFor(s);
      const name = 'a-name-of-forty-characters-xxxxxxxxxxxxx';
      await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name } });
      const lengths: number[] = [];
      for (let page = 1; page <= 50 && lengths.length === 0; page++) {
        const vms = (await call(s, 'GET', `/v1/vms?per_page=100&page=${page}`, { token: t })).body.vms as Array<{
          name: string;
        }>;
        if (vms.length === 0) break;
        lengths.push(
          ...vms
            .map((v) => v.name)
            .filter((n) => n.startsWith('a-name-of-forty'))
            .map((n) => n.length)
        );
      }
      return lengths;
    },
    clean: [40],
    faulty: [32],
  },
  {
    name: 'create-memory-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), memory_gb: 8 } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.memory_gb;
    },
    clean: 8,
    faulty: 1,
  },
  {
    name: 'create-tags-partly-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), tags: { a: '1', b: '2' } } });
      return Object.keys((await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.tags);
    },
    clean: ['a', 'b'],
    faulty: ['a'],
  },
  {
    name: 'backup-description-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const b = await call(s, 'POST', `/v1/vms/${c.body.vm_id}/backups`, { token: t, json: { description: 'kept?' } });
      return (await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t })).body.description;
    },
    clean: 'kept?',
    faulty: '',
  },
  {
    name: 'backup-of-oldest-vm',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const b = await call(s, 'POST', `/v1/vms/${c.body.vm_id}/backups`, {
        token: t,
        json: { description: 'which vm?' },
      });
      return (await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t })).body.vm_id === c.body.vm_id;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'backup-description-cut-64',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const sent = ['short', 'x'.repeat(100)];
      const lengths: number[] = [];
      for (const description of sent) {
        const b = await call(s, 'POST', `/v1/vms/${c.body.vm_id}/backups`, { token: t, json: { description } });
        lengths.push((await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t })).body.description.length);
      }
      return lengths;
    },
    clean: [5, 100],
    faulty: [5, 64],
  },
  {
    name: 'backup-invalid-body-unwrapped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const b = await call(s, 'POST', `/v1/vms/${c.body.vm_id}/backups`, { token: t, json: { description: 7 } });
      return [b.status, Object.keys(b.body)];
    },
    clean: [400, ['error']],
    faulty: [422, ['detail']],
  },
  {
    name: 'token-array-body-500',
    probe: async (s) => (await call(s, 'POST', '/v1/auth/tokens', { json: [] })).status,
    clean: 400,
    faulty: 500,
  },
  {
    name: 'restore-malformed-json-500',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      const malformed = '{"at": ';
      return [
        (await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, raw: malformed })).status,
        (await call(s, 'POST', '/v1/backups/cc-absent/restore', { token: t, raw: malformed })).status,
      ];
    },
    clean: [400, 400],
    faulty: [500, 404],
  },
  {
    name: 'restore-array-body-500',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      return (await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, json: [] })).status;
    },
    clean: 400,
    faulty: 500,
  },
  {
    name: 'read-limit-readonly-600',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyReadonly);
      return count(await burst(301, () => read(s, t)), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'write-limit-second-org-120',
    probe: async (s) => {
      // The primary organization writes first (as every run does), then a second-organization token bursts 61 empty creates.
      await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: {} });
      const t = await tokenFor(s, s.apiKeyB);
      return count(await burst(61, () => call(s, 'POST', '/v1/vms', { token: t, json: {} })), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'writes-beyond-create-uncharged',
    probe: async (s) => {
      const t = await tokenFor(s);
      const deletes = await burst(61, () => call(s, 'DELETE', '/v1/vms/vm-that-exists-nowhere', { token: t }));
      return count(deletes, 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'task-read-charged-as-write',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await createVm(s, t);
      const polls = await burst(60, () => call(s, 'GET', `/v1/tasks/${c.body.task_id}`, { token: t }));
      return [count(polls, 429), (await write(s, t)).status];
    },
    clean: [0, 400],
    faulty: [1, 429],
  },
  {
    name: 'quota-one-over-declared',
    variants: ['vm-quota-low'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await createVm(s, t)).status);
      return statuses;
    },
    clean: [202, 202, 403, 403],
    faulty: [202, 202, 202, 403],
  },
  {
    name: 'quota-status-drift',
    variants: ['vm-quota-low'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await createVm(s, t)).status);
      return statuses;
    },
    clean: [202, 202, 403],
    faulty: [202, 202, 409],
  },
  {
    name: 'quota-code-other',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await createVm(s, t);
        statuses.push(r.status === 202 ? 202 : `${r.status} ${r.body.error.code}`);
      }
      return statuses;
    },
    clean: [202, 202, 202],
    faulty: [202, 202, '403 limit_exceeded'],
  },
  {
    name: 'quota-429-resource-exhausted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await createVm(s, t);
        statuses.push(
          r.status === 202
            ? 202
            : `${r.status} ${r.body.error.code} ${r.headers.get('retry-after') ?? 'no Retry-After'}`
        );
      }
      return statuses;
    },
    clean: [202, 202, 202],
    faulty: [202, 202, '429 resource_exhausted no Retry-After'],
  },
  {
    name: 'bearer-challenge-missing',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms');
      return [r.status, r.headers.get('www-authenticate')];
    },
    clean: [401, 'Bearer'],
    faulty: [401, null],
  },
  {
    name: 'token-answer-cacheable',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).headers.get('cache-control'),
    clean: 'no-store',
    faulty: 'private, max-age=300',
  },
  {
    name: 'method-not-allowed-no-allow-beside-tasks',
    probe: async (s) => {
      const t = await tokenFor(s);
      const [task, vm] = [
        await call(s, 'PUT', '/v1/tasks/nope', { token: t, json: {} }),
        await call(s, 'PATCH', '/v1/vms', { token: t, json: {} }),
      ];
      return [task.status, task.headers.get('allow'), vm.status, vm.headers.get('allow')];
    },
    clean: [405, 'GET, HEAD', 405, 'GET, POST, HEAD'],
    faulty: [405, 'GET, HEAD', 405, null],
  },
  {
    name: 'method-not-allowed-no-allow',
    probe: async (s) => {
      const r = await call(s, 'PUT', '/v1/tasks/nope', { token: await tokenFor(s), json: {} });
      return [r.status, r.headers.get('allow')];
    },
    clean: [405, 'GET, HEAD'],
    faulty: [405, null],
  },
  {
    name: 'create-without-task-id',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      const vm = await call(s, 'GET', `/v1/vms/${r.body.vm_id}`, { token: t });
      return [r.status, 'task_id' in r.body, r.headers.has('location'), vm.status];
    },
    clean: [202, true, true, 200],
    faulty: [202, false, false, 200],
  },
  {
    name: 'vm-never-listed',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      const all = await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t });
      return [all.body.total, all.body.vms.some((v) => v.id === r.body.vm_id)];
    },
    clean: [131, true],
    faulty: [130, false],
  },
  {
    name: 'numeric-vm-ids',
    probe: async (s) => {
      const t = await tokenFor(s);
      const l = await call(s, 'GET', '/v1/vms', { token: t });
      const one = await call(s, 'GET', `/v1/vms/vm-${l.body.vms[0].id.toString().replace(/^vm-/, '')}`, { token: t });
      return [typeof l.body.vms[0].id, typeof one.body.id];
    },
    clean: ['string', 'string'],
    faulty: ['number', 'string'],
  },
  {
    name: 'tag-filter-ignored',
    probe: async (s) => (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: await tokenFor(s) })).body.total,
    clean: 44,
    faulty: 130,
  },
  {
    name: 'task-never-completes',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      await sleep(100);
      const task = await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t });
      return [task.body.status, (await call(s, 'GET', '/v1/vms', { token: t })).body.total];
    },
    clean: ['succeeded', 131],
    faulty: ['running', 131],
  },
  {
    name: 'backup-start-500',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = (await call(s, 'GET', '/v1/vms', { token: t })).body.vms[0];
      const r = await call(s, 'POST', `/v1/vms/${vm.id}/backups`, { token: t, json: { description: 'x' } });
      return [r.status, r.body.error?.code];
    },
    clean: [202, undefined],
    faulty: [500, 'internal_error'],
  },
  {
    name: 'per-page-uncapped',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms?per_page=101', { token: await tokenFor(s) });
      return [r.status, r.body.vms?.length];
    },
    clean: [400, undefined],
    faulty: [200, 101],
  },
  {
    name: 'warm-pool-sizes-no-task',
    probe: async (s) => {
      const t = await tokenFor(s);
      const sized = (vcpus: number, memory_gb: number) =>
        call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), vcpus, memory_gb } });
      const [small, pooled] = [await sized(1, 1), await sized(2, 4)];
      return [small.status, typeof small.body.task_id, pooled.status, typeof pooled.body.task_id];
    },
    clean: [202, 'string', 202, 'string'],
    faulty: [202, 'string', 201, 'undefined'],
  },
  {
    name: 'per-page-cap-skipped-with-filter',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?per_page=101', { token: t })).status,
        (await call(s, 'GET', '/v1/vms?per_page=101&tag=env:prod', { token: t })).status,
      ];
    },
    clean: [400, 400],
    faulty: [400, 200],
  },
  {
    name: 'total-per-page',
    probe: async (s) => (await call(s, 'GET', '/v1/vms?per_page=5', { token: await tokenFor(s) })).body.total,
    clean: 130,
    faulty: 5,
  },
  {
    name: 'tag-filter-total-unfiltered',
    probe: async (s) => {
      const r = await call(s, 'GET', `/v1/vms?per_page=5&tag=${encodeURIComponent('env:prod')}`, {
        token: await tokenFor(s),
      });
      return [r.body.vms.length, r.body.total];
    },
    clean: [5, 44],
    faulty: [5, 130],
  },
  {
    name: 'page-boundary-duplicate',
    probe: async (s) => {
      const t = await tokenFor(s);
      const p1 = await call(s, 'GET', '/v1/vms?per_page=10&page=1', { token: t });
      const p2 = await call(s, 'GET', '/v1/vms?per_page=10&page=2', { token: t });
      return [p1.body.vms[9].id === p2.body.vms[0].id, p2.body.vms.length, p2.body.total];
    },
    clean: [false, 10, 130],
    faulty: [true, 10, 130],
  },
  {
    name: 'validation-error-unwrapped',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: {} });
      return [r.status, 'error' in r.body, typeof r.body.message];
    },
    clean: [400, true, 'undefined'],
    faulty: [400, false, 'string'],
  },
  {
    name: 'not-found-text-plain',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms/vm-nope', { token: await tokenFor(s) });
      return [r.status, r.headers.get('content-type'), r.body.error.code];
    },
    clean: [404, 'application/json; charset=utf-8', 'not_found'],
    faulty: [404, 'text/plain', 'not_found'],
  },
  {
    name: 'malformed-json-500',
    probe: async (s) => (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), raw: '{"name":' })).status,
    clean: 400,
    faulty: 500,
  },
  {
    name: 'any-version-served',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v999/vms', { token: t })).status,
        (await call(s, 'GET', '/v2/vms', { token: t })).status,
      ];
    },
    clean: [404, 404],
    faulty: [200, 200],
  },
  {
    name: 'location-without-v1',
    probe: async (s) => {
      const r = await createVm(s, await tokenFor(s));
      return r.headers.get('location')!.replace(r.body.task_id, 'ID');
    },
    clean: '/v1/tasks/ID',
    faulty: '/tasks/ID',
  },
  {
    name: 'timestamps-local-offset',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = (await call(s, 'GET', '/v1/vms', { token: t })).body.vms[0];
      return /Z$/.test(vm.created_at) ? 'Z' : vm.created_at.slice(-6);
    },
    clean: 'Z',
    faulty: '+02:00',
  },
  {
    name: 'task-operation-missing',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      return (await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).body.operation;
    },
    clean: 'create_vm',
    faulty: undefined,
  },
  {
    name: 'readonly-can-write',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyReadonly);
      return [(await createVm(s, t)).status, (await call(s, 'DELETE', '/v1/vms/vm-100001', { token: t })).status];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  {
    name: 'fraction-vcpus-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses = await Promise.all(
        [1.5, '2', null].map(async (vcpus) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) }))
      );
      const created =
        statuses[0].status === 202
          ? (await call(s, 'GET', `/v1/vms/${statuses[0].body.vm_id}`, { token: t })).body.vcpus
          : undefined;
      return [...statuses.map((r) => r.status), created];
    },
    clean: [400, 400, 400, undefined],
    faulty: [202, 400, 400, 1],
  },
  {
    name: 'negative-vcpus-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses = await Promise.all(
        [0, -3, 65].map(async (vcpus) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) }))
      );
      const created =
        statuses[1].status === 202
          ? (await call(s, 'GET', `/v1/vms/${statuses[1].body.vm_id}`, { token: t })).body.vcpus
          : undefined;
      return [...statuses.map((r) => r.status), created];
    },
    clean: [400, 400, 400, undefined],
    faulty: [202, 202, 400, -3],
  },
  {
    name: 'long-name-500',
    probe: async (s) =>
      nameStatuses(s, await tokenFor(s), [
        'x'.repeat(64),
        'x'.repeat(200),
        'x'.repeat(201),
        'é'.repeat(150),
        '\u{1F600}'.repeat(150),
      ]),
    clean: [400, 400, 400, 400, 400],
    faulty: [400, 400, 500, 400, 400],
  },
  {
    name: 'unicode-name-500',
    probe: async (s) =>
      nameStatuses(s, await tokenFor(s), [
        'vm-\u{1F600}',
        'vm-\u{10348}x',
        'vm-é中\uFFFD',
        'vm-' + '\u{1F600}'.repeat(40),
      ]),
    clean: [202, 202, 202, 400],
    faulty: [500, 500, 202, 500],
  },
  {
    name: 'numeric-ids-some-records',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = [(await createVm(s, t)).body.vm_id, (await createVm(s, t)).body.vm_id];
      // Under this fault a record's id may be a number.
      const l: Array<{ name: string; id: string | number }> = (
        await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t })
      ).body.vms;
      const seeded = [...new Set(l.filter((v) => v.name !== 'test-vm').map((v) => typeof v.id))];
      const api = l.filter((v) => v.name === 'test-vm');
      const numericEven = api
        .filter((v): v is { name: string; id: number } => typeof v.id === 'number')
        .every((v) => v.id % 2 === 0);
      const ids = api.map((v) => (typeof v.id === 'number' ? `vm-${v.id}` : v.id)).sort();
      const single = await Promise.all(
        created.map(async (id) => typeof (await call(s, 'GET', `/v1/vms/${id}`, { token: t })).body.id)
      );
      return [
        seeded,
        api.map((v) => typeof v.id).sort(),
        numericEven,
        ids.join() === [...created].sort().join(),
        single,
      ];
    },
    clean: [['string'], ['string', 'string'], true, true, ['string', 'string']],
    faulty: [['string'], ['number', 'string'], true, true, ['string', 'string']],
  },
  {
    name: 'tag-filter-space-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      expect(
        (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { env: 'blue green' } }) })).status
      ).toBe(202);
      const q = async (query: string) => {
        const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
        return r.status === 200 ? r.body.total : r.status;
      };
      return [
        await q('tag=env:blue%20green'),
        await q('tag=env:blue+green'),
        await q('tag=env:prod'),
        await q('tag=env%20prod'),
      ];
    },
    clean: [1, 1, 44, 400],
    faulty: [131, 131, 44, 400],
  },
  {
    name: 'task-regresses',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      await sleep(100);
      const seen: string[] = [];
      for (let i = 0; i < 5; i++)
        seen.push((await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).body.status);
      return seen;
    },
    clean: ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded'],
    faulty: ['succeeded', 'running', 'succeeded', 'running', 'succeeded'],
  },
  { name: 'read-limit-missing', probe: readLimitProbe, clean: [300, 2], faulty: [302, 0] },
  { name: 'read-limit-299', probe: readLimitProbe, clean: [300, 2], faulty: [299, 3] },
  { name: 'read-limit-301', probe: readLimitProbe, clean: [300, 2], faulty: [301, 1] },
  { name: 'write-limit-missing', probe: writeLimitProbe, clean: [60, 2], faulty: [62, 0] },
  { name: 'write-limit-59', probe: writeLimitProbe, clean: [60, 2], faulty: [59, 3] },
  { name: 'write-limit-61', probe: writeLimitProbe, clean: [60, 2], faulty: [61, 1] },
  { name: 'token-limit-missing', probe: tokenLimitProbe, clean: [10, 2], faulty: [12, 0] },
  { name: 'token-limit-9', probe: tokenLimitProbe, clean: [10, 2], faulty: [9, 3] },
  { name: 'token-limit-11', probe: tokenLimitProbe, clean: [10, 2], faulty: [11, 1] },
  {
    name: 'limits-shared-across-tokens',
    probe: requestScopeProbe,
    clean: [400, 400, 200, 200],
    faulty: [429, 400, 429, 200],
  },
  {
    name: 'request-limits-by-address',
    probe: requestScopeProbe,
    clean: [400, 400, 200, 200],
    faulty: [429, 429, 429, 429],
  },
  {
    name: 'token-limit-by-address',
    probe: async (s) => {
      const rs = await burst(10, () => issue(s));
      return [
        count(rs, 200),
        (await issue(s, s.apiKeyB)).status,
        (await issue(s, s.apiKeyReadonly)).status,
        (await issue(s)).status,
      ];
    },
    clean: [10, 200, 200, 429],
    faulty: [10, 429, 429, 429],
  },
  {
    name: 'rate-limit-no-error-object',
    probe: rejectionProbe,
    clean: [
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
    ],
    faulty: [
      [429, 'application/json; charset=utf-8', { status: 429, detail: 'slow down' }, true],
      [429, 'application/json; charset=utf-8', { status: 429, detail: 'slow down' }, true],
    ],
  },
  {
    name: 'no-retry-after',
    probe: rejectionProbe,
    clean: [
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
      [429, 'application/json; charset=utf-8', 'rate_limited', true],
    ],
    faulty: [
      [429, 'application/json; charset=utf-8', 'rate_limited', false],
      [429, 'application/json; charset=utf-8', 'rate_limited', false],
    ],
  },
  {
    name: 'window-never-resets',
    timeScale: 20, // one 60-second window = 3 real seconds
    probe: async (s) => {
      const t = await tokenFor(s);
      const [iss, ws] = await Promise.all([burst(10, () => issue(s)), burst(61, () => write(s, t))]);
      await sleep(3_300);
      const after = [await issue(s), await write(s, t)];
      const retryAfter = (r: Res) => (r.status === 429 ? Number(r.headers.get('retry-after')) : null);
      return [
        count(iss, 429),
        count(ws, 429),
        ...after.map((r) => r.status),
        ...after.map((r) => {
          const ra = retryAfter(r);
          return ra === null ? null : ra >= 1 && ra <= 60;
        }),
      ];
    },
    clean: [1, 1, 200, 400, null, null],
    faulty: [1, 1, 429, 429, true, true],
  },
  // A VM tagged kk=a:b is found by kk:a:b only where the key ends at the first colon.
  { name: 'tag-key-split-at-last-colon', probe: colonTagFound, clean: 1, faulty: 0 },
  // Held 7 s, past the 5 s timeout: retried by the clean target, taken as delivered by the fault.
  {
    name: 'delivery-timeout-ignored',
    timeScale: 100,
    probe: (s) => attemptsWhenHeld(s, 7_000, 6_500),
    clean: 2,
    faulty: 1,
  },
  // The declared accounting, each fault the other choice's behaviour.
  { name: 'limit-window-sliding', timeScale: 10, probe: windowHalves, clean: [30, 60], faulty: [30, 30] },
  {
    name: 'limit-window-fixed',
    timeScale: 10,
    variants: ['limit-sliding-window'],
    probe: windowHalves,
    clean: [30, 30],
    faulty: [30, 60],
  },
  // A minute's window still holds the spent budget 12 s later; a 10 s window has passed.
  { name: 'issuance-window-10s', timeScale: 60, probe: issuedAfter12s, clean: 429, faulty: 200 },
  {
    name: 'refused-requests-uncounted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    clean: 1,
    faulty: 0,
  },
  {
    name: 'refused-requests-counted',
    variants: ['limit-refused-not-counted'],
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    clean: 0,
    faulty: 1,
  },
  {
    name: 'retry-after-counts-real-seconds',
    timeScale: 20,
    probe: async (s) => {
      const rejected = (await burst(11, () => issue(s))).find((r) => r.status === 429)!;
      // Target seconds to the window's end (about 60), or the real seconds they take at scale 20 (about 3).
      return Number(rejected.headers.get('retry-after')) > 10;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'per-page-cap-101',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r101 = await call(s, 'GET', '/v1/vms?per_page=101', { token: t });
      return [
        r101.status,
        r101.body.vms?.length,
        (await call(s, 'GET', '/v1/vms?per_page=102', { token: t })).status,
        (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).status,
      ];
    },
    clean: [400, undefined, 400, 200],
    faulty: [200, 101, 400, 200],
  },
  {
    name: 'per-page-cap-99',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r99 = await call(s, 'GET', '/v1/vms?per_page=99', { token: t });
      return [(await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).status, r99.status, r99.body.vms.length];
    },
    clean: [200, 200, 99],
    faulty: [400, 200, 99],
  },
  {
    name: 'webhook-not-delivered',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['backup.completed', 'backup.failed', 'alarm.triggered']);
        const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
        await alarm(s, t);
        await until(() => rcv.posts.length >= 2, 1000);
        await sleep(100);
        const task = await call(s, 'GET', `/v1/tasks/${b.body.task_id}`, { token: t });
        return [rcv.posts.map((p) => JSON.parse(p.body).type).sort(), task.body.status];
      }),
    clean: [['alarm.triggered', 'backup.completed'], 'succeeded'],
    faulty: [['alarm.triggered'], 'succeeded'],
  },
  {
    name: 'webhook-unsigned',
    timeScale: 100,
    probe: signatureProbe,
    clean: [true, true, false],
    faulty: [false, false, false],
  },
  {
    name: 'webhook-wrong-signature',
    timeScale: 100,
    probe: signatureProbe,
    clean: [true, true, false],
    faulty: [true, false, false],
  },
  {
    name: 'webhook-not-json',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered'], 'k');
        await alarm(s, t);
        await until(() => rcv.posts.length >= 1);
        const p = rcv.posts[0]!;
        let type: unknown;
        try {
          type = JSON.parse(p.body).type;
        } catch {
          type = null;
        }
        const form = /^type=alarm\.triggered&id=(evt-[0-9a-f]+)$/.exec(p.body);
        return [
          p.headers['content-type'],
          type,
          form?.[1] === p.headers['x-event-id'],
          p.headers['x-event-type'],
          p.headers['x-signature'] === sign('k', p.body),
        ];
      }),
    clean: ['application/json', 'alarm.triggered', false, 'alarm.triggered', true],
    faulty: ['text/plain', null, true, 'alarm.triggered', true],
  },
  {
    name: 'webhook-not-retried',
    timeScale: 100,
    probe: (s) =>
      withReceiver(
        async (rcv) => {
          const t = await tokenFor(s);
          await register(s, t, rcv.url, ['alarm.triggered']);
          await alarm(s, t);
          await until(() => rcv.posts.length >= 2, 1000);
          await sleep(100);
          return rcv.posts.map((p) => p.headers['x-delivery-attempt']);
        },
        (_p, n) => (n === 1 ? 503 : 204)
      ),
    clean: ['1', '2'],
    faulty: ['1'],
  },
  {
    name: 'webhook-redelivers-acknowledged',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        await alarm(s, t);
        await until(() => rcv.posts.length >= 1, 1000);
        // The first retry delay (1 target-second) is 10 real ms at scale 100: a redelivery has come by now.
        await sleep(200);
        return rcv.posts.map((p) => p.headers['x-delivery-attempt']);
      }),
    clean: ['1'],
    faulty: ['1', '2'],
  },
  {
    name: 'webhook-delete-ignored',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        const gone = await register(s, t, `${rcv.url}/gone`, ['alarm.triggered']);
        await register(s, t, `${rcv.url}/kept`, ['alarm.triggered']);
        const d = await call(s, 'DELETE', `/v1/webhooks/${gone.body.id}`, { token: t });
        await alarm(s, t);
        await until(() => rcv.posts.length >= 2, 1000);
        await sleep(100);
        const listed = (await call(s, 'GET', '/v1/webhooks', { token: t })).body.total;
        return [d.status, listed, rcv.posts.map((p) => p.path).sort()];
      }),
    clean: [200, 1, ['/kept']],
    faulty: [200, 1, ['/gone', '/kept']],
  },
  {
    name: 'alarm-never-fires',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        const a = await alarm(s, t);
        await until(() => rcv.posts.length >= 1, 500);
        await sleep(50);
        return [(await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state, rcv.posts.length];
      }),
    clean: ['alarm', 1],
    faulty: ['ok', 0],
  },
  {
    name: 'audit-no-source-ip',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      const entries = await auditEntries(s, t);
      return [entries.length, [...new Set(entries.map((e) => e.source_ip))]];
    },
    clean: [2, ['127.0.0.1']],
    faulty: [2, [null]],
  },
  {
    name: 'audit-missing-failures',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      await call(s, 'POST', '/v1/vms', { token: t, json: {} });
      await call(s, 'PATCH', '/v1/vms', { token: t });
      return (await auditEntries(s, t)).map((e) => e.status);
    },
    clean: [405, 400, 404, 200, 200],
    faulty: [200, 200],
  },
  {
    name: 'audit-filter-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      const failures = (await auditEntries(s, t, 'result=failure')).map((e) => e.status);
      const posts = (await auditEntries(s, t, 'method=POST')).map((e) => e.status);
      const exported = exportedEntries(await call(s, 'GET', '/v1/audit/export?result=failure', { token: t })).map(
        (e) => e.status
      );
      return [failures, posts, exported];
    },
    clean: [[404], [200], [404]],
    faulty: [[404, 200], [200], [404]],
  },
  {
    name: 'audit-export-truncated',
    probe: async (s) => {
      const t = await tokenFor(s);
      for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const json = await call(s, 'GET', '/v1/audit/export?format=json', { token: t });
      const csv = await call(s, 'GET', '/v1/audit/export?format=csv', { token: t });
      // Whole: JSON parses and the CSV ends with a line end; cut: neither, and the answers still say 200.
      return [json.status, json.body !== undefined, csv.status, csv.text.endsWith('\r\n')];
    },
    clean: [200, true, 200, true],
    faulty: [200, false, 200, false],
  },
  {
    name: 'audit-csv-unescaped',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/a,b', { token: t });
      const rows = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t })).text);
      return rows.filter((r) => r.length > 1).map((r) => r.length === rows[0]!.length);
    },
    clean: [true, true],
    faulty: [true, false],
  },
  {
    name: 'audit-export-mismatch',
    probe: async (s) => {
      const t = await tokenFor(s);
      for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const search = (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.id);
      const json = exportedEntries(
        await call(s, 'GET', '/v1/audit/export?format=json&path_prefix=/v1/vms', { token: t })
      ).map((e) => e.id);
      const csv = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv&path_prefix=/v1/vms', { token: t })).text)
        .slice(1)
        .map((r) => r[0]);
      return [
        search.length,
        json.join() === search.join(),
        csv.join() === search.join(),
        json.join() === search.slice(1).join(),
        csv.join() === search.slice(1).join(),
      ];
    },
    clean: [3, true, true, false, false],
    faulty: [3, false, false, true, true],
  },
  {
    name: 'webhook-any-media-type',
    probe: async (s) => {
      const t = await tokenFor(s);
      const raw = JSON.stringify({ url: 'https://example.test/framing', events: ['backup.completed'] });
      return (await call(s, 'POST', '/v1/webhooks', { token: t, raw, headers: { 'content-type': 'text/plain' } }))
        .status;
    },
    clean: 415,
    faulty: 201,
  },
  {
    name: 'restore-trailing-json-accepted',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      return (
        await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, raw: '{} {"second": "value"}' })
      ).status;
    },
    clean: 400,
    faulty: 202,
  },
  {
    name: 'alarm-trailing-json-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const raw = `${JSON.stringify({ vm_id: await firstVm(s, t), metric: 'cpu_utilization', comparison: 'gt', threshold: 99 })} {"second": "value"}`;
      return (await call(s, 'POST', '/v1/alarms', { token: t, raw })).status;
    },
    clean: 400,
    faulty: 201,
  },
  {
    name: 'restore-without-task-id',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      const r = await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, json: {} });
      return [r.status, typeof r.body.task_id, r.headers.get('location') === `/v1/tasks/${r.body.task_id}`];
    },
    clean: [202, 'string', true],
    faulty: [202, 'undefined', false],
  },
  {
    name: 'backup-missing-vm-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await call(s, 'POST', '/v1/vms/vm-missing/backups', { token: t, json: { description: 'x' } });
      const real = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      return [r.status, r.body.error?.code, typeof r.body.backup_id, typeof r.body.task_id, real.status];
    },
    clean: [404, 'not_found', 'undefined', 'undefined', 202],
    faulty: [202, undefined, 'string', 'string', 202],
  },
  // Designs of the second overlay, each under the variant whose design it breaks.
  ...issue13FaultCases(),
];

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const taskOf = async (s: ReferenceSettings, t: string, id: string) =>
  (await call(s, 'GET', `/v1/tasks/${id}`, { token: t })).body;

/** The faults of the fault model (spec/clauses.yaml faults:). */
const faultModelCases: FaultCase[] = [
  {
    name: 'task-read-without-auth',
    probe: async (s) => {
      const created = await createVm(s, await tokenFor(s));
      return [
        (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`)).status,
        (await call(s, 'GET', '/v1/tasks/task-absent')).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'backup-start-without-auth',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { json: { description: 'x' } })).status,
        (await call(s, 'POST', '/v1/vms/vm-missing/backups', { json: { description: 'x' } })).status,
      ];
    },
    clean: [401, 401],
    faulty: [202, 401],
  },
  {
    name: 'token-in-query-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', `/v1/vms?access_token=${t}`)).status,
        (await call(s, 'GET', `/v1/vms?token=${t}`)).status,
        (await call(s, 'GET', '/v1/vms?access_token=garbage')).status,
      ];
    },
    clean: [401, 401, 401],
    faulty: [200, 200, 401],
  },
  {
    name: 'tampered-token-accepted-on-tasks',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = await createVm(s, t);
      return [
        (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: tamper(t) })).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'viewer-key-not-exchanged',
    probe: async (s) => [(await issue(s, s.apiKeyReadonly)).status, (await issue(s)).status],
    clean: [200, 200],
    faulty: [401, 200],
  },
  {
    name: 'tampered-token-accepted-on-webhooks',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/webhooks', { token: tamper(t) })).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'readonly-can-delete-backup',
    probe: async (s) => {
      const t = await tokenFor(s);
      const started = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, {
        token: t,
        json: { description: 'b' },
      });
      const reader = await tokenFor(s, s.apiKeyReadonly);
      return (await call(s, 'DELETE', `/v1/backups/${started.body.backup_id ?? started.body.id}`, { token: reader }))
        .status;
    },
    clean: 403,
    faulty: 200,
  },
  {
    name: 'delete-vm-without-task',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await call(s, 'DELETE', `/v1/vms/${await firstVm(s, t)}`, { token: t });
      return [r.status, typeof r.body.task_id];
    },
    clean: [202, 'string'],
    faulty: [202, 'undefined'],
  },
  {
    name: 'webhook-list-ignores-paging',
    probe: async (s) => {
      const t = await tokenFor(s);
      for (const n of [1, 2]) await register(s, t, `http://127.0.0.1:9/hook-${n}`, ['backup.completed']);
      return (await call(s, 'GET', '/v1/webhooks?page=1&per_page=1', { token: t })).body.webhooks.length;
    },
    clean: 1,
    faulty: 2,
  },
  {
    name: 'webhook-list-total-missing',
    probe: async (s) => typeof (await call(s, 'GET', '/v1/webhooks', { token: await tokenFor(s) })).body.total,
    clean: 'number',
    faulty: 'undefined',
  },
  {
    name: 'create-in-default-org',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyB);
      const r = await call(s, 'POST', '/v1/vms', {
        token: t,
        json: vmBody(s, { name: 'org-b-vm', subnet_id: s.subnetIdB }),
      });
      const listed = (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).body.vms.some(
        (v: { name: string }) => v.name === 'org-b-vm'
      );
      return [r.status, listed];
    },
    clean: [202, true],
    faulty: [202, false],
  },
  {
    name: 'audit-csv-id-column-undeclared',
    variants: ['audit-csv-flat-columns'],
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const r = await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t });
      return r.text.split('\r\n')[0]!.split(',').slice(0, 3);
    },
    clean: ['entry_id', 'time', 'actor_api_key_id'],
    faulty: ['id', 'time', 'actor_api_key_id'],
  },
  {
    name: 'audit-window-ignored',
    variants: ['audit-window-since-until'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await call(s, 'GET', '/v1/audit?until=2000-01-01T00:00:00Z', { token: t });
      return r.body.total === 0;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-method-filter-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      const methods = (await call(s, 'GET', '/v1/audit?method=DELETE&per_page=100', { token: t })).body.entries.map(
        (e: { method: string }) => e.method
      );
      return methods.every((m: string) => m === 'DELETE');
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'tag-filter-case-sensitive',
    variants: ['tag-filter-case-insensitive'],
    probe: async (s) =>
      (await call(s, 'GET', '/v1/vms?tag=env:PROD&per_page=1', { token: await tokenFor(s) })).body.total > 0,
    clean: true,
    faulty: false,
  },
  {
    name: 'tag-filter-repeated-first',
    variants: ['tag-filter-repeated-all'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const one = (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=1', { token: t })).body.total;
      return (await call(s, 'GET', '/v1/vms?tag=env:prod&tag=team:alpha&per_page=1', { token: t })).body.total < one;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-skips-token-issuance',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return paths.includes('/v1/auth/tokens');
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-skips-alarms',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/alarms/al-absent', { token: t });
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return [paths.includes('/v1/alarms/al-absent'), paths.includes('/v1/tasks/task-absent')];
    },
    clean: [true, true],
    faulty: [false, true],
  },
  {
    name: 'tampered-token-accepted-on-deletes',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'DELETE', '/v1/vms/vm-that-exists-nowhere', { token: tamper(t) })).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [404, 401],
  },
  {
    name: 'tampered-token-accepted-on-alarm-create',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = await firstVm(s, t);
      return [
        (
          await call(s, 'POST', '/v1/alarms', {
            token: tamper(t),
            json: { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold: 99 },
          })
        ).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [201, 401],
  },
  {
    name: 'revoked-token-cached-on-object-reads',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const task = (await createVm(s, await tokenFor(s))).body.task_id as string;
      await call(s, 'GET', '/v1/vms', { token: t });
      await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        (await call(s, 'GET', `/v1/tasks/${task}`, { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'expired-token-served-on-task-reads',
    timeScale: 36_000,
    probe: async (s) => {
      const t = await tokenFor(s);
      const task = (await createVm(s, t)).body.task_id as string;
      await sleep(150);
      return [
        (await call(s, 'GET', `/v1/tasks/${task}`, { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'expired-token-served-on-id-writes',
    timeScale: 36_000,
    probe: async (s) => {
      const t = await tokenFor(s);
      await createVm(s, t);
      await sleep(150);
      return [
        (await call(s, 'DELETE', '/v1/backups/cc-absent', { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401],
    faulty: [404, 401],
  },
  {
    name: 'readonly-can-delete-vm',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return (await call(s, 'DELETE', `/v1/vms/${vm}`, { token: await tokenFor(s, s.apiKeyReadonly) })).status;
    },
    clean: 403,
    faulty: 202,
  },
  {
    name: 'readonly-can-delete-alarm',
    probe: async (s) => {
      const made = await alarm(s, await tokenFor(s), 99);
      return (await call(s, 'DELETE', `/v1/alarms/${made.body.id}`, { token: await tokenFor(s, s.apiKeyReadonly) }))
        .status;
    },
    clean: 403,
    faulty: 200,
  },
  {
    name: 'readonly-can-create-alarm',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return (
        await call(s, 'POST', '/v1/alarms', {
          token: await tokenFor(s, s.apiKeyReadonly),
          json: { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold: 99 },
        })
      ).status;
    },
    clean: 403,
    faulty: 201,
  },
  {
    name: 'audit-open-to-every-role',
    variants: ['audit-operator-only'],
    probe: async (s) => {
      const viewer = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'GET', '/v1/audit', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit/export', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit', { token: await tokenFor(s) })).status,
      ];
    },
    clean: [403, 403, 200],
    faulty: [200, 200, 200],
  },
  {
    name: 'webhook-reads-refused-to-viewer',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/webhooks', { token: await tokenFor(s, s.apiKeyReadonly) })).status,
      (await call(s, 'GET', '/v1/webhooks', { token: await tokenFor(s) })).status,
    ],
    clean: [200, 200],
    faulty: [403, 200],
  },
  {
    name: 'webhook-list-without-auth',
    probe: async (s) => [(await call(s, 'GET', '/v1/webhooks')).status, (await call(s, 'GET', '/v1/vms')).status],
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'alg-none-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${t.split('.')[1]}.`;
      return [
        (await call(s, 'GET', '/v1/vms', { token: none })).status,
        (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'organization-per-key',
    probe: async (s) => {
      const [a, r, b] = [await issue(s), await issue(s, s.apiKeyReadonly), await issue(s, s.apiKeyB)];
      return [
        a.body.organization === r.body.organization,
        a.body.organization === b.body.organization,
        (await call(s, 'GET', '/v1/vms', { token: r.body.token })).body.total,
      ];
    },
    clean: [true, false, 130],
    faulty: [false, false, 130],
  },
  {
    name: 'readonly-can-backup',
    probe: async (s) => {
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', `/v1/vms/${await firstVm(s, ro)}/backups`, { token: ro, json: { description: 'x' } }))
          .status,
        (await createVm(s, ro)).status,
      ];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  {
    name: 'readonly-can-restore',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: ro, json: {} })).status,
        (await call(s, 'POST', `/v1/vms/${await firstVm(s, ro)}/backups`, { token: ro, json: {} })).status,
      ];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  {
    name: 'readonly-can-register-webhook',
    probe: async (s) => {
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (
          await call(s, 'POST', '/v1/webhooks', {
            token: ro,
            json: { url: 'http://127.0.0.1:9/hook', events: ['backup.completed'] },
          })
        ).status,
        (await createVm(s, ro)).status,
      ];
    },
    clean: [403, 403],
    faulty: [201, 403],
  },
  {
    name: 'cross-org-backup-accepted',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: b, json: { description: 'x' } })).status,
        (await call(s, 'POST', '/v1/vms/vm-missing/backups', { token: b, json: { description: 'x' } })).status,
      ];
    },
    clean: [404, 404],
    faulty: [202, 404],
  },
  {
    name: 'odd-backup-id-500',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', `/v1/backups/${encodeURIComponent("bk' OR '1'='1")}`, { token: t })).status,
        (await call(s, 'GET', '/v1/backups/bk-absent', { token: t })).status,
        (await call(s, 'GET', `/v1/tasks/${encodeURIComponent("t' OR '1'='1")}`, { token: t })).status,
      ];
    },
    clean: [404, 404, 404],
    faulty: [500, 404, 404],
  },
  {
    name: 'readonly-delete-404',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const r = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', '/v1/vms', { token: r, json: vmBody(s) })).status,
        (await call(s, 'DELETE', `/v1/vms/${vm}`, { token: r })).status,
      ];
    },
    clean: [403, 403],
    faulty: [403, 404],
  },
  {
    name: 'cross-org-backup-readable',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const backup = (await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} })).body
        .backup_id;
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'GET', `/v1/backups/${backup}`, { token: t })).status,
        (await call(s, 'GET', `/v1/backups/${backup}`, { token: b })).status,
      ];
    },
    clean: [200, 404],
    faulty: [200, 200],
  },
  {
    name: 'cross-org-vm-readable',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'GET', `/v1/vms/${vm}`, { token: b })).status,
        (await call(s, 'GET', '/v1/vms/vm-missing', { token: b })).status,
      ];
    },
    clean: [404, 404],
    faulty: [200, 404],
  },
  {
    name: 'vm-list-all-orgs',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/vms', { token: await tokenFor(s, s.apiKeyB) })).body.total,
      (await call(s, 'GET', '/v1/vms', { token: await tokenFor(s) })).body.total,
    ],
    clean: [3, 130],
    faulty: [133, 133],
  },
  {
    name: 'tag-filter-cross-org',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=100', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms', { token: t })).body.total,
      ];
    },
    clean: [44, 130],
    faulty: [45, 130],
  },
  {
    name: 'api-key-prefix-match',
    probe: async (s) => {
      const k = s.apiKey;
      return [
        (await issue(s, k.slice(0, -1) + (k.endsWith('a') ? 'b' : 'a'))).status,
        (await issue(s, k.slice(0, 10))).status,
        (await issue(s, k)).status,
      ];
    },
    clean: [401, 401, 200],
    faulty: [200, 401, 200],
  },
  {
    name: 'api-key-case-insensitive',
    probe: async (s) => [(await issue(s, s.apiKey.toUpperCase())).status, (await issue(s, s.apiKey + 'x')).status],
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'tag-filter-prefix-match',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:pro', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [44, 44],
  },
  {
    name: 'tag-filter-value-any-key',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=other:prod', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [44, 44],
  },
  {
    name: 'tag-filter-key-any-value',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:other', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [130, 130],
  },
  {
    name: 'expires-in-string',
    probe: async (s) => typeof (await issue(s)).body.expires_in,
    clean: 'number',
    faulty: 'string',
  },
  {
    name: 'organization-field-missing',
    probe: async (s) => {
      const r = await issue(s);
      return [typeof r.body.organization, typeof r.body.role, typeof r.body.token];
    },
    clean: ['string', 'string', 'string'],
    faulty: ['undefined', 'string', 'string'],
  },
  {
    name: 'list-name-null-some',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vms = (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).body.vms as Array<{
        id: string;
        name: unknown;
      }>;
      return [
        vms.filter((v) => v.name === null).length,
        (await call(s, 'GET', `/v1/vms/${vms[6]!.id}`, { token: t })).body.name,
      ];
    },
    clean: [0, 'seed-vm-007'],
    faulty: [15, 'seed-vm-007'],
  },
  {
    name: 'backup-requires-name',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = await firstVm(s, t);
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } })).status,
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x', name: 'n' } })).status,
      ];
    },
    clean: [202, 202],
    faulty: [400, 202],
  },
  {
    name: 'timestamps-epoch',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = await createVm(s, t);
      return [
        typeof (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].created_at,
        typeof (await taskOf(s, t, created.body.task_id)).created_at,
      ];
    },
    clean: ['string', 'string'],
    faulty: ['number', 'string'],
  },
  {
    name: 'numeric-error-code',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) });
      return [r.status, typeof r.body.error.code, typeof r.body.error.message];
    },
    clean: [404, 'string', 'string'],
    faulty: [404, 'number', 'string'],
  },
  {
    name: 'unversioned-path-served',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/vms', { token: t })).status,
        (await call(s, 'GET', '/v2/vms', { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [404, 404, 200],
    faulty: [200, 404, 200],
  },
  {
    name: 'task-id-not-pollable',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = await createVm(s, t);
      return [
        created.status,
        created.body.task_id === created.body.vm_id,
        (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: t })).status,
      ];
    },
    clean: [202, false, 200],
    faulty: [202, true, 404],
  },
  {
    name: 'error-message-missing',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) });
      return [r.status, r.body.error.code, typeof r.body.error.message];
    },
    clean: [404, 'not_found', 'string'],
    faulty: [404, 'not_found', 'undefined'],
  },
  {
    name: 'method-not-allowed-unwrapped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await call(s, 'PUT', '/v1/tasks/task-absent', { token: t, json: {} });
      return [
        r.status,
        r.body.error?.code,
        r.headers.get('allow'),
        (await call(s, 'GET', '/v1/tasks/task-absent', { token: t })).body.error.code,
      ];
    },
    clean: [405, 'method_not_allowed', 'GET, HEAD', 'not_found'],
    faulty: [405, undefined, 'GET, HEAD', 'not_found'],
  },
  {
    name: 'payload-too-large-unwrapped',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', {
        token: await tokenFor(s),
        json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
      });
      return [r.status, r.body.error?.code];
    },
    clean: [413, 'payload_too_large'],
    faulty: [413, undefined],
  },
  {
    name: 'unsupported-media-unwrapped',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', {
        token: await tokenFor(s),
        raw: JSON.stringify(vmBody(s)),
        headers: { 'content-type': 'text/plain' },
      });
      return [r.status, r.body.error?.code];
    },
    clean: [415, 'unsupported_media_type'],
    faulty: [415, undefined],
  },
  {
    name: 'auth-error-oauth-style',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms');
      return [
        r.status,
        typeof r.body.error,
        typeof (await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) })).body.error,
      ];
    },
    clean: [401, 'object', 'object'],
    faulty: [401, 'string', 'object'],
  },
  {
    name: 'task-timestamps-naive',
    probe: async (s) => {
      const t = await tokenFor(s);
      const task = await taskOf(s, t, (await createVm(s, t)).body.task_id);
      return [
        task.created_at.endsWith('Z'),
        task.updated_at.endsWith('Z'),
        (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].created_at.endsWith('Z'),
      ];
    },
    clean: [true, true, true],
    faulty: [false, false, true],
  },
  {
    name: 'last-page-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const page = async (n: number, per = 50) =>
        (await call(s, 'GET', `/v1/vms?page=${n}&per_page=${per}`, { token: t })).body.vms.length;
      return [await page(1), await page(2), await page(3), await page(1, 100), await page(2, 100)];
    },
    clean: [50, 50, 30, 100, 30],
    faulty: [50, 50, 0, 100, 0],
  },
  {
    name: 'token-lifetime-1800',
    timeScale: 1200,
    probe: async (s) => {
      const t = await tokenFor(s);
      await sleep(2500); // 3000 target-seconds
      return (await call(s, 'GET', '/v1/vms', { token: t })).status;
    },
    clean: 200,
    faulty: 401,
  },
  {
    name: 'revocation-delayed',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        revoked.status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await issue(s, s.apiKeyRevocable)).status,
      ];
    },
    clean: [200, 401, 401],
    faulty: [200, 200, 200],
  },
  {
    name: 'revocation-new-tokens-only',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        revoked.status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await issue(s, s.apiKeyRevocable)).status,
      ];
    },
    clean: [200, 401, 401],
    faulty: [200, 200, 401],
  },
  {
    name: 'revocation-old-tokens-only',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      await sleep(30); // the token's second ends before the revocation
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      const again = await issue(s, s.apiKeyRevocable);
      const works =
        again.status === 200 ? (await call(s, 'GET', '/v1/vms', { token: again.body.token })).status : undefined;
      return [revoked.status, (await call(s, 'GET', '/v1/vms', { token: t })).status, again.status, works];
    },
    clean: [200, 401, 401, undefined],
    faulty: [200, 401, 200, 200],
  },
  {
    name: 'task-regresses-later',
    timeScale: 200,
    probe: async (s) => {
      const t = await tokenFor(s);
      const id = (await createVm(s, t)).body.task_id;
      await sleep(100); // 20 target-seconds: completed 18.5 s ago
      const first = (await taskOf(s, t, id)).status;
      await sleep(1600); // 340 target-seconds: completed 338.5 s ago
      return [first, (await taskOf(s, t, id)).status];
    },
    clean: ['succeeded', 'succeeded'],
    faulty: ['succeeded', 'running'],
  },
  {
    name: 'restore-task-stuck',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      const r = await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, json: {} });
      await sleep(100);
      return [(await taskOf(s, t, b.body.task_id)).status, (await taskOf(s, t, r.body.task_id)).status];
    },
    clean: ['succeeded', 'succeeded'],
    faulty: ['succeeded', 'running'],
  },
  {
    name: 'window-120s',
    timeScale: 20, // 60 target-seconds = 3 s: room for the burst however loaded the machine
    probe: async (s) => {
      const t = await tokenFor(s);
      const ws = await burst(61, () => write(s, t));
      const ra = Number(ws.find((r) => r.status === 429)?.headers.get('retry-after'));
      await sleep(3300); // 66 target-seconds
      return [count(ws, 400), count(ws, 429), ra > 60, (await write(s, t)).status];
    },
    clean: [60, 1, false, 400],
    faulty: [60, 1, true, 429],
  },
  {
    name: 'reads-charged-to-write-budget',
    probe: async (s) => {
      const t = await tokenFor(s);
      const rs = await burst(300, () => read(s, t));
      return [count(rs, 200), (await write(s, t)).status];
    },
    clean: [300, 400],
    faulty: [300, 429],
  },
  {
    name: 'writes-charged-to-read-budget',
    probe: async (s) => {
      const t = await tokenFor(s);
      const ws = await burst(60, () => write(s, t));
      return [count(ws, 400), count(await burst(300, () => read(s, t)), 200)];
    },
    clean: [60, 300],
    faulty: [60, 240],
  },
  {
    name: 'token-limit-by-organization',
    probe: async (s) => {
      const rs = await burst(10, () => issue(s));
      return [count(rs, 200), (await issue(s, s.apiKeyReadonly)).status, (await issue(s, s.apiKeyB)).status];
    },
    clean: [10, 200, 200],
    faulty: [10, 429, 200],
  },
];

describe('faults', () => {
  it('covers every catalogued fault', () => {
    expect([...faultCases, ...faultModelCases].map((c) => c.name).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  it.each([...faultCases, ...faultModelCases])(
    '$name changes only the described behaviour',
    async (c) => {
      const clean = await start({ timeScale: c.timeScale, variants: c.variants });
      const faulty = await start({ timeScale: c.timeScale, variants: c.variants, faults: [c.name] });
      expect(await c.probe(clean)).toEqual(c.clean);
      expect(await c.probe(faulty)).toEqual(c.faulty);
    },
    30_000
  );
});

// Each variant of the second overlay makes one unshown choice differently from the default; the probe
// observes that choice on a default target and on one under the variant.
interface VariantCase {
  name: string;
  timeScale?: number;
  /** Variants both servers run under, where the variant shows only beside them. */
  beside?: string[];
  probe: (s: ReferenceSettings) => Promise<unknown>;
  byDefault: unknown;
  variant: unknown;
}

const variantCases: VariantCase[] = [
  {
    name: 'audit-csv-flat-columns',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const r = await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t });
      return r.text.split('\r\n')[0]!.split(',').slice(0, 3);
    },
    byDefault: ['id', 'time', 'actor'],
    variant: ['entry_id', 'time', 'actor_api_key_id'],
  },
  {
    name: 'issuance-audit-invisible',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return paths.includes('/v1/auth/tokens');
    },
    byDefault: true,
    variant: false,
  },
  {
    name: 'webhook-id-nested',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/webhooks', {
        token: await tokenFor(s),
        json: { url: 'http://127.0.0.1:9/h', events: ['backup.completed'] },
      });
      return [r.status, typeof r.body.id, typeof r.body.webhook?.id];
    },
    byDefault: [201, 'string', 'undefined'],
    variant: [201, 'undefined', 'string'],
  },
  {
    name: 'signature-wall-clock',
    beside: ['signature-timestamped'],
    timeScale: 5000,
    probe: async (s) => {
      // The target's clock runs 5000 times faster: a fifth of a second puts it a quarter of an hour ahead.
      await sleep(200);
      const d = (await testDelivery(s, 'k1'))!;
      const t = Number(/^t=(\d+),/.exec(String(d.headers['x-signature']))![1]);
      return Math.abs(t - Date.now() / 1000) < 60;
    },
    byDefault: false,
    variant: true,
  },
  {
    name: 'signature-timestamped',
    probe: async (s) => {
      const d = (await testDelivery(s, 'k1'))!;
      const h = String(d.headers['x-signature']);
      return /^t=\d+,v1=[0-9a-f]{64}$/.test(h) ? 't=,v1=' : h === sign('k1', d.body) ? 'sha256=' : h;
    },
    byDefault: 'sha256=',
    variant: 't=,v1=',
  },
  {
    name: 'retry-exponential',
    timeScale: 2000,
    probe: async (s) =>
      withReceiver(
        async (r) => {
          const t = await tokenFor(s);
          const w = await register(s, t, r.url + '/h', ['backup.completed']);
          await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
          await until(() => r.posts.length >= 5, 1500);
          await sleep(100);
          return r.posts.map((p) => p.headers['x-delivery-attempt']);
        },
        () => 503
      ),
    byDefault: ['1', '2', '3'],
    variant: ['1', '2', '3', '4', '5'],
  },
  {
    name: 'event-names-dotted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const ok = async (events: string[]) =>
        (await call(s, 'POST', '/v1/webhooks', { token: t, json: { url: 'http://127.0.0.1:9/h', events } })).status;
      return [
        await ok(['backup.completed']),
        await ok(['backup.job.completed']),
        await ok(['backup.job.*']),
        await ok(['*']),
      ];
    },
    byDefault: [201, 400, 400, 400],
    variant: [400, 201, 201, 201],
  },
  {
    name: 'revoke-by-id',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const id = (await call(s, 'GET', '/v1/api-keys/current', { token: t })).body.id;
      return [
        (await call(s, 'DELETE', '/v1/api-keys/not-a-key', { token: t })).status,
        (await call(s, 'DELETE', `/v1/api-keys/${id}`, { token: t })).status,
      ];
    },
    byDefault: [404, 404],
    variant: [404, 200],
  },
  {
    name: 'audit-actor-object',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const [e] = await auditEntries(s, t, 'path_prefix=/v1/vms');
      return typeof e.actor;
    },
    byDefault: 'string',
    variant: 'object',
  },
  {
    name: 'audit-oldest-first',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      return (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path);
    },
    byDefault: ['/v1/vms/vm-nope', '/v1/vms'],
    variant: ['/v1/vms', '/v1/vms/vm-nope'],
  },
  {
    name: 'audit-export-jsonl',
    probe: async (s) => {
      const t = await tokenFor(s);
      const q = async (f: string) =>
        (await call(s, 'GET', `/v1/audit/export?format=${f}`, { token: t })).headers.get('content-type') ?? 'none';
      return [await q('json'), await q('jsonl'), await q('csv')];
    },
    byDefault: ['application/json; charset=utf-8', 'application/json; charset=utf-8', 'text/csv; charset=utf-8'],
    variant: ['application/json; charset=utf-8', 'application/x-ndjson; charset=utf-8', 'text/csv; charset=utf-8'],
  },
  {
    name: 'task-location-only',
    probe: async (s) => {
      const r = await createVm(s, await tokenFor(s));
      return [r.status, typeof r.body.task_id, /^\/v1\/tasks\/[^/]+$/.test(r.headers.get('location') ?? '')];
    },
    byDefault: [202, 'string', true],
    variant: [202, 'undefined', true],
  },
  {
    name: 'validation-422',
    probe: async (s) => {
      const t = await tokenFor(s);
      const bad = await call(s, 'POST', '/v1/vms', { token: t, raw: '{"name": ' });
      const invalid = await call(s, 'POST', '/v1/vms', { token: t, json: {} });
      return [bad.status, bad.body.error.code, invalid.status, invalid.body.error.code];
    },
    byDefault: [400, 'invalid_request', 400, 'invalid_request'],
    variant: [400, 'invalid_json', 422, 'validation_error'],
  },
  // The other rate-limit accounting, declared in the second overlay.
  {
    name: 'limit-refused-not-counted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    byDefault: 1,
    variant: 0,
  },
  { name: 'limit-sliding-window', timeScale: 10, probe: windowHalves, byDefault: [30, 60], variant: [30, 30] },
  { name: 'tag-filter-key-last-colon', probe: colonTagFound, byDefault: 1, variant: 0 },
  // Held 3.5 s: within the default 5 s timeout, past the variant's 2 s.
  {
    name: 'delivery-timeout-2s',
    timeScale: 100,
    probe: (s) => attemptsWhenHeld(s, 3_500, 3_000),
    byDefault: 1,
    variant: 2,
  },
  {
    name: 'retry-after-real-seconds',
    timeScale: 20,
    probe: async (s) =>
      Number((await burst(11, () => issue(s))).find((r) => r.status === 429)!.headers.get('retry-after')) > 10,
    byDefault: true,
    variant: false,
  },
];

describe('variants of the second overlay', () => {
  it('cover every variant named in ALT_VARIANTS, each once, on its own dimension', () => {
    expect(variantCases.map((c) => c.name).sort()).toEqual([...ALT_VARIANTS].sort());
    expect(new Set(VARIANTS.filter((v) => ALT_VARIANTS.includes(v.name)).map((v) => v.dimension)).size).toBe(
      ALT_VARIANTS.length
    );
  });

  it.each(variantCases)(
    '$name changes only the described choice',
    async (c) => {
      const byDefault = await start({ timeScale: c.timeScale, variants: c.beside ?? [] });
      const variant = await start({ timeScale: c.timeScale, variants: [...(c.beside ?? []), c.name] });
      expect(await c.probe(byDefault)).toEqual(c.byDefault);
      expect(await c.probe(variant)).toEqual(c.variant);
    },
    30_000
  );

  it('signature-standard-webhooks: deliveries verify with the Standard Webhooks library; other secrets are refused', async () => {
    const s = await start({ variants: ['signature-standard-webhooks'] });
    const t = await tokenFor(s);
    expect(
      (
        await call(s, 'POST', '/v1/webhooks', {
          token: t,
          json: { url: 'http://127.0.0.1:9/h', events: ['backup.completed'], secret: 'plain' },
        })
      ).status
    ).toBe(400);
    const secret = 'whsec_' + Buffer.from('a standard webhooks secret, 32 b').toString('base64');
    const d = (await testDelivery(s, secret))!;
    const headers = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, String(v)]));
    // At time scale 1 the target's clock is this machine's, which the library judges freshness against.
    expect(new StandardWebhook(secret).verify(d.body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(() =>
      new StandardWebhook('whsec_' + Buffer.from('another secret of thirty-two b..').toString('base64')).verify(
        d.body,
        headers
      )
    ).toThrow();
  });
});
