// Tests of the embedded reference target itself (not of the suite): clean behaviour, limits, and every fault.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startReference, type ReferenceSettings, type ReferenceTarget } from '../../fixtures/reference/server.ts';
import { FAULTS } from '../../fixtures/reference/faults.ts';

const started: ReferenceTarget[] = [];
afterAll(async () => {
  await Promise.all(started.map((t) => t.close()));
});

async function start(opts: Parameters<typeof startReference>[0] = {}): Promise<ReferenceSettings> {
  const t = await startReference(opts);
  started.push(t);
  return t.settings;
}

interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function call(
  s: ReferenceSettings,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  } else if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] ??= 'application/json';
  }
  const r = await fetch(s.baseUrl + path, { method, headers, body });
  const text = await r.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

async function tokenFor(s: ReferenceSettings, key = s.apiKey): Promise<string> {
  const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function vmBody(s: ReferenceSettings, extra: Record<string, unknown> = {}) {
  return { name: 'test-vm', vcpus: 2, memory_gb: 4, image: s.image, system_disk_gb: 20, subnet_id: s.subnetId, ...extra };
}

function tamper(token: string): string {
  const [h, p, sig] = token.split('.');
  const i = Math.floor(sig.length / 2);
  return `${h}.${p}.${sig.slice(0, i)}${sig[i] === 'A' ? 'B' : 'A'}${sig.slice(i + 1)}`;
}

describe('options', () => {
  it('rejects unknown faults and bad time scales', async () => {
    await expect(startReference({ faults: ['nope'] })).rejects.toThrow('unknown fault "nope"; see cloud-conformance reference --list-faults');
    await expect(startReference({ timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(startReference({ timeScale: Number.NaN })).rejects.toThrow(/timeScale/);
  });

  it('prints a base URL without trailing slash or version', async () => {
    const s = await start();
    expect(s.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.apiKey).toMatch(/^ck_[0-9a-f]{32}$/);
    expect(new Set([s.apiKey, s.apiKeyB, s.apiKeyReadonly]).size).toBe(3);
  });

  it('has a catalogue of 51 uniquely named faults', () => {
    expect(FAULTS).toHaveLength(51);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(51);
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
    const media = await call(s, 'POST', '/v1/auth/tokens', { raw: JSON.stringify({ api_key: s.apiKey }), headers: { 'content-type': 'text/plain' } });
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
    const s = await start({ timeScale: 100 });
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
    expect(listed.body.vms.map((v: any) => v.id)).toEqual([c.body.vm_id]);

    let task: any;
    for (let i = 0; i < 50; i++) {
      task = (await call(s, 'GET', `/v1/tasks/${c.body.task_id}`, { token: t })).body;
      if (task.status === 'succeeded' || task.status === 'failed') break;
      expect(['queued', 'running']).toContain(task.status);
      await sleep(5);
    }
    expect(task).toMatchObject({ id: c.body.task_id, status: 'succeeded', operation: 'create_vm', resource_id: c.body.vm_id });
    expect(task.created_at).toMatch(/Z$/);
    expect((await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.status).toBe('running');

    // Delete: 202 + task, then gone.
    const d = await call(s, 'DELETE', `/v1/vms/${c.body.vm_id}`, { token: t });
    expect(d.status).toBe(202);
    await sleep(40);
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
      seen.push(...r.body.vms.map((v: any) => v.id));
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);
    const prod = await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=100', { token: t });
    expect(prod.body.total).toBe(44);
    expect(prod.body.vms.every((v: any) => v.tags.env === 'prod')).toBe(true);
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
    expect((await call(s, 'POST', `/v1/vms/${vm.id}/backups`, { token: t, json: { description: 7 } })).status).toBe(400);
    expect((await call(s, 'POST', '/v1/vms/vm-missing/backups', { token: t, json: {} })).status).toBe(404);
    await sleep(40);
    const rec = await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t });
    expect(rec.body).toMatchObject({ id: b.body.backup_id, vm_id: vm.id, description: 'nightly', status: 'available' });
    const r = await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: t, json: {} });
    expect(r.status).toBe(202);
    await sleep(40);
    expect((await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).body).toMatchObject({ status: 'succeeded', operation: 'restore_backup' });
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
    const big = await call(s, 'POST', '/v1/vms', { token: t, raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const media = await call(s, 'POST', '/v1/vms', { token: t, raw: JSON.stringify(vmBody(s)), headers: { 'content-type': 'text/plain' } });
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
    const reads = await Promise.all(Array.from({ length: 301 }, () => call(s, 'GET', '/v1/vms?per_page=1', { token: t })));
    expect(reads.filter((r) => r.status === 200)).toHaveLength(300);
    expect(reads.filter((r) => r.status === 429)).toHaveLength(1);
    // Issuance is per key: tokenFor above used one of key A's ten.
    for (let i = 0; i < 9; i++) expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).status).toBe(200);
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
    const burst = await Promise.all(Array.from({ length: 61 }, () => call(s, 'POST', '/v1/vms', { token: t, json: {} })));
    const limited = burst.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    const ra = Number(limited!.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    await sleep((ra * 1000) / 120 + 50);
    expect((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status).toBe(400);
  });
});

// Each fault is probed on a clean target and on a target with only that fault; the observations must differ as described.
interface FaultCase {
  name: string;
  timeScale?: number;
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
const issue = (s: ReferenceSettings, key = s.apiKey) => call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } });
const write = (s: ReferenceSettings, t: string) => call(s, 'POST', '/v1/vms', { token: t, json: {} });
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
  return [(await write(s, t2)).status, (await write(s, tb)).status, (await read(s, t2)).status, (await read(s, tb)).status];
};

/** Shape of an issuance 429 and of a write 429: [status, content type, error code or whole body, has Retry-After]. */
const rejectionProbe = async (s: ReferenceSettings) => {
  const t = await tokenFor(s);
  const [iss, ws] = await Promise.all([burst(10, () => issue(s)), burst(61, () => write(s, t))]);
  return [iss, ws].map((rs) => {
    const r = rs.find((x) => x.status === 429)!;
    return [r.status, r.headers.get('content-type'), r.body.error ? r.body.error.code : r.body, r.headers.has('retry-after')];
  });
};

function nameStatuses(s: ReferenceSettings, t: string, names: string[]): Promise<number[]> {
  return Promise.all(names.map(async (name) => (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name }) })).status));
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
      return [(await call(s, 'GET', '/v1/vms', { token: 'garbage' })).status, (await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'signature-unchecked',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [(await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status, (await call(s, 'GET', '/v1/vms', { token: 'garbage' })).status];
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
    name: 'organization-constant',
    probe: async (s) => {
      const a = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const b = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } });
      return [a.body.organization === b.body.organization, (await call(s, 'GET', '/v1/vms', { token: b.body.token })).body.total];
    },
    clean: [false, 3],
    faulty: [true, 3],
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
      return [all.body.total, all.body.vms.some((v: any) => v.id === r.body.vm_id)];
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
    name: 'total-per-page',
    probe: async (s) => (await call(s, 'GET', '/v1/vms?per_page=5', { token: await tokenFor(s) })).body.total,
    clean: 130,
    faulty: 5,
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
      return [(await call(s, 'GET', '/v999/vms', { token: t })).status, (await call(s, 'GET', '/v2/vms', { token: t })).status];
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
    name: 'negative-vcpus-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses = await Promise.all([0, -3, 65].map(async (vcpus) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) })));
      const created = statuses[1].status === 202 ? (await call(s, 'GET', `/v1/vms/${statuses[1].body.vm_id}`, { token: t })).body.vcpus : undefined;
      return [...statuses.map((r) => r.status), created];
    },
    clean: [400, 400, 400, undefined],
    faulty: [202, 202, 400, -3],
  },
  {
    name: 'long-name-500',
    probe: async (s) => nameStatuses(s, await tokenFor(s), ['x'.repeat(64), 'x'.repeat(200), 'x'.repeat(201), 'é'.repeat(150), '\u{1F600}'.repeat(150)]),
    clean: [400, 400, 400, 400, 400],
    faulty: [400, 400, 500, 400, 400],
  },
  {
    name: 'unicode-name-500',
    probe: async (s) => nameStatuses(s, await tokenFor(s), ['vm-\u{1F600}', 'vm-\u{10348}x', 'vm-é中\uFFFD', 'vm-' + '\u{1F600}'.repeat(40)]),
    clean: [202, 202, 202, 400],
    faulty: [500, 500, 202, 500],
  },
  {
    name: 'numeric-ids-some-records',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = [(await createVm(s, t)).body.vm_id, (await createVm(s, t)).body.vm_id];
      const l = (await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t })).body.vms;
      const seeded = [...new Set(l.filter((v: any) => v.name !== 'test-vm').map((v: any) => typeof v.id))];
      const api = l.filter((v: any) => v.name === 'test-vm');
      const numericEven = api.filter((v: any) => typeof v.id === 'number').every((v: any) => v.id % 2 === 0);
      const ids = api.map((v: any) => (typeof v.id === 'number' ? `vm-${v.id}` : v.id)).sort();
      const single = await Promise.all(created.map(async (id) => typeof (await call(s, 'GET', `/v1/vms/${id}`, { token: t })).body.id));
      return [seeded, api.map((v: any) => typeof v.id).sort(), numericEven, ids.join() === [...created].sort().join(), single];
    },
    clean: [['string'], ['string', 'string'], true, true, ['string', 'string']],
    faulty: [['string'], ['number', 'string'], true, true, ['string', 'string']],
  },
  {
    name: 'tag-filter-space-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      expect((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { env: 'blue green' } }) })).status).toBe(202);
      const q = async (query: string) => {
        const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
        return r.status === 200 ? r.body.total : r.status;
      };
      return [await q('tag=env:blue%20green'), await q('tag=env:blue+green'), await q('tag=env:prod'), await q('tag=env%20prod')];
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
      for (let i = 0; i < 5; i++) seen.push((await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).body.status);
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
  { name: 'limits-shared-across-tokens', probe: requestScopeProbe, clean: [400, 400, 200, 200], faulty: [429, 400, 429, 200] },
  { name: 'request-limits-by-address', probe: requestScopeProbe, clean: [400, 400, 200, 200], faulty: [429, 429, 429, 429] },
  {
    name: 'token-limit-by-address',
    probe: async (s) => {
      const rs = await burst(10, () => issue(s));
      return [count(rs, 200), (await issue(s, s.apiKeyB)).status, (await issue(s, s.apiKeyReadonly)).status, (await issue(s)).status];
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
      return [count(iss, 429), count(ws, 429), ...after.map((r) => r.status), ...after.map((r) => {
        const ra = retryAfter(r);
        return ra === null ? null : ra >= 1 && ra <= 60;
      })];
    },
    clean: [1, 1, 200, 400, null, null],
    faulty: [1, 1, 429, 429, true, true],
  },
  {
    name: 'per-page-cap-101',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r101 = await call(s, 'GET', '/v1/vms?per_page=101', { token: t });
      return [r101.status, r101.body.vms?.length, (await call(s, 'GET', '/v1/vms?per_page=102', { token: t })).status, (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).status];
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
];

describe('faults', () => {
  it('covers every catalogued fault', () => {
    expect(faultCases.map((c) => c.name).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  it.each(faultCases)('$name changes only the described behaviour', async (c) => {
    const clean = await start({ timeScale: c.timeScale });
    const faulty = await start({ timeScale: c.timeScale, faults: [c.name] });
    expect(await c.probe(clean)).toEqual(c.clean);
    expect(await c.probe(faulty)).toEqual(c.faulty);
  }, 30_000);
});
