// What the reference tests share beyond the harness: tokens, VM bodies, webhook receivers, bursts.
import { expect } from 'vitest';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import type { ReferenceSettings } from '../../fixtures/reference/server.ts';
import { call, type AuditEntryAnswer, type Res } from './harness.ts';

export async function tokenFor(s: ReferenceSettings, key = s.apiKey): Promise<string> {
  const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 10 ms until it holds or `ms` real milliseconds have passed; returns whether it held. */
export async function until(cond: () => boolean, ms = 3000): Promise<boolean> {
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
export async function colonTagFound(s: ReferenceSettings): Promise<number> {
  const t = await tokenFor(s);
  expect((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { kk: 'a:b' } }) })).status).toBe(202);
  return (await call(s, 'GET', '/v1/vms?tag=kk:a:b&per_page=1', { token: t })).body.total;
}

/**
 * A test event sent to a receiver that holds its answer to the first attempt for holdMs, and
 * how many attempts had arrived countAtMs after the send. A target whose delivery timeout is shorter than the hold
 * has retried by then; one that waits for the answer has not.
 */
export async function attemptsWhenHeld(s: ReferenceSettings, holdMs: number, countAtMs: number): Promise<number> {
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
export async function withReceiver<T>(
  fn: (r: Receiver) => Promise<T>,
  respond?: (p: Post, n: number) => number
): Promise<T> {
  const r = await receiver(respond);
  try {
    return await fn(r);
  } finally {
    await r.close();
  }
}

export const sign = (secret: string, body: string) =>
  'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

export async function firstVm(s: ReferenceSettings, t: string): Promise<string> {
  return (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id as string;
}

export async function register(
  s: ReferenceSettings,
  t: string,
  url: string,
  events: string[],
  secret?: string
): Promise<Res> {
  const r = await call(s, 'POST', '/v1/webhooks', {
    token: t,
    json: secret === undefined ? { url, events } : { url, events, secret },
  });
  expect(r.status).toBe(201);
  return r;
}

export async function alarm(
  s: ReferenceSettings,
  t: string,
  threshold = 40,
  comparison: 'gt' | 'lt' = 'gt'
): Promise<Res> {
  const vm = await firstVm(s, t);
  const r = await call(s, 'POST', '/v1/alarms', {
    token: t,
    json: { vm_id: vm, metric: 'cpu_utilization', comparison, threshold },
  });
  expect(r.status).toBe(201);
  return r;
}

export function vmBody(s: ReferenceSettings, extra: Record<string, unknown> = {}) {
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

export function tamper(token: string): string {
  const [h, p, sig] = token.split('.');
  const i = Math.floor(sig.length / 2);
  return `${h}.${p}.${sig.slice(0, i)}${sig[i] === 'A' ? 'B' : 'A'}${sig.slice(i + 1)}`;
}

/** GET /v1/audit with the given query, as the entries list (fails the test on any other answer). */
export async function auditEntries(
  s: ReferenceSettings,
  t: string,
  query = 'per_page=100'
): Promise<AuditEntryAnswer[]> {
  const r = await call(s, 'GET', `/v1/audit?${query}`, { token: t });
  expect(r.status, r.text).toBe(200);
  return r.body.entries;
}

/** Minimal RFC 4180 parser for the tests. */
export function parseCsv(text: string): string[][] {
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

/** A webhook registered with a secret to a fresh receiver, then its test event: the delivery's headers and body. */
export async function testDelivery(
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

export async function createVm(s: ReferenceSettings, t: string) {
  return call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
}

export function burst(n: number, send: () => Promise<Res>): Promise<Res[]> {
  return Promise.all(Array.from({ length: n }, send));
}

export const count = (rs: Res[], status: number) => rs.filter((r) => r.status === status).length;

export const issue = (s: ReferenceSettings, key = s.apiKey) =>
  call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });

export const write = (s: ReferenceSettings, t: string) => call(s, 'POST', '/v1/vms', { token: t, json: {} });

/**
 * A write budget spent in two halves half a window apart, then the whole budget a window after the first half, at
 * time scale 10 (a window is 6 real seconds): what the second and third bursts got past the limit. Fixed windows
 * serve the whole budget again, a sliding one only the first half.
 */
export async function windowHalves(s: ReferenceSettings): Promise<[number, number]> {
  const t = await tokenFor(s);
  const served = (rs: Res[]) => rs.filter((r) => r.status !== 429).length;
  const start = Date.now();
  await burst(30, () => write(s, t));
  await sleep(start + 3_000 - Date.now());
  const second = served(await burst(31, () => write(s, t)));
  await sleep(start + 6_300 - Date.now());
  return [second, served(await burst(60, () => write(s, t)))];
}

export const taskOf = async (s: ReferenceSettings, t: string, id: string) =>
  (await call(s, 'GET', `/v1/tasks/${id}`, { token: t })).body;
