// The conforming variants of the reference target (fixtures/reference/variants.ts): the catalogue covers every item the
// seed leaves unshown, each variant changes exactly what it says, and the suite, zero-config, stays conformant on them
// (npm run variants runs them all; here a few of the hardest, so npm test guards them too).
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceOptions, ReferenceSettings } from '../../fixtures/reference/server.ts';
import { call, closeStarted, start, type Res } from './harness.ts';
import { ALT_VARIANTS, VARIANTS, parseVariants } from '../../fixtures/reference/variants.ts';
import { S3_VARIANTS } from '../../fixtures/s3/variants.ts';
import { VirtualClock } from '../../fixtures/reference/clock.ts';
import { AlignedWindowLimiter, FixedWindowLimiter, SlidingWindowLimiter } from '../../fixtures/reference/limits.ts';
import { Store } from '../../fixtures/reference/store.ts';
import { VariantBehaviour } from '../../fixtures/reference/variant-behaviour.ts';
import { loadClauses } from '../../src/spec/clauses.ts';
import { runAgainstReference, notPassing } from '../helpers.ts';
import { ALL_BUT_LIMITS } from '../../scripts/gates/fault-runs.ts';
import { CLEAN_RUNS, combinations, runsFor, s3RunsFor } from '../../scripts/gates/variant-runs.ts';

afterAll(closeStarted);

async function token(s: ReferenceSettings, key = s.apiKey): Promise<string> {
  return (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: key } })).body.token as string;
}

const vmBody = (s: ReferenceSettings, extra: Record<string, unknown> = {}) => ({
  name: 'variant-vm',
  vcpus: 2,
  memory_gb: 4,
  image: s.image,
  system_disk_gb: 50,
  subnet_id: s.subnetId,
  ...extra,
});
const createStatus = async (s: ReferenceSettings, extra: Record<string, unknown> = {}) =>
  (await call(s, 'POST', '/v1/vms', { token: await token(s), json: vmBody(s, extra) })).status;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates a VM and polls its task (found wherever the variant puts it) until its state stops changing; the last record. */
async function finishedTask(s: ReferenceSettings): Promise<Record<string, unknown>> {
  const t = await token(s);
  const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
  const id = r.body.task_id ?? r.body.id;
  for (let i = 0; i < 200; i++) {
    const task = (await call(s, 'GET', `/v1/tasks/${id}`, { token: t })).body;
    if (JSON.stringify(task).match(/succeeded|DONE|completed|ready|Succeeded|"done":true/)) return task;
    await sleep(10);
  }
  throw new Error('the task never finished');
}

/** Sends a 16 MiB create body over a bare socket: the status that came back, and whether the target closed while it was sent. */
async function oversizedUpload(s: ReferenceSettings): Promise<[number | undefined, string]> {
  const { connect } = await import('node:net');
  const t = await token(s);
  const url = new URL(s.baseUrl);
  const total = 16 * 1024 * 1024;
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve([
        status === undefined ? undefined : Number(status),
        sent < total ? 'closed while sending' : 'answered after the whole body',
      ]);
    });
    socket.write(
      `POST /v1/vms HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${t}\r\ncontent-type: application/json\r\ncontent-length: ${total}\r\nconnection: close\r\n\r\n`
    );
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (sent < total && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

const listed = async (s: ReferenceSettings, query = '') => call(s, 'GET', `/v1/vms${query}`, { token: await token(s) });

/** Deliveries of backup-job events to a receiver after a backup and a restore of it. */
async function backupJobEvents(s: ReferenceSettings): Promise<number> {
  const posts: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts.push(String(req.headers['x-event-type']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const t = await token(s);
    await call(s, 'POST', '/v1/webhooks', {
      token: t,
      json: {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        events: ['backup.completed', 'backup.failed'],
      },
    });
    const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
    const backup = (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } })).body
      .backup_id;
    for (
      let i = 0;
      i < 300 && (await call(s, 'GET', `/v1/backups/${backup}`, { token: t })).body.status !== 'available';
      i++
    )
      await sleep(10);
    await call(s, 'POST', `/v1/backups/${backup}/restore`, { token: t, json: {} });
    await sleep(400);
    return posts.filter((type) => type.startsWith('backup.')).length;
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** Two attempts of one test event (the first answered 503): whether X-Event-Id, and X-Hook-Event where sent, stay the same. */
async function attemptIds(s: ReferenceSettings): Promise<[boolean, boolean | null]> {
  const seen: Array<{ event: string | undefined; hook: string | undefined }> = [];
  const server = createServer((req, res) => {
    seen.push({
      event: req.headers['x-event-id'] as string | undefined,
      hook: req.headers['x-hook-event'] as string | undefined,
    });
    req.resume();
    req.on('end', () => res.writeHead(seen.length === 1 ? 503 : 204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const t = await token(s);
    const w = await call(s, 'POST', '/v1/webhooks', {
      token: t,
      json: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events: ['backup.completed'] },
    });
    await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
    for (let i = 0; i < 500 && seen.length < 2; i++) await sleep(10);
    const [a, b] = [seen[0]!, seen[1]!];
    return [a.event === b.event, a.hook === undefined ? null : a.hook === b.hook];
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** The top-level keys of the JSON post a webhook's test event makes. */
async function testEventKeys(s: ReferenceSettings): Promise<string[]> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const t = await token(s);
    const w = await call(s, 'POST', '/v1/webhooks', {
      token: t,
      json: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events: ['backup.completed'] },
    });
    await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
    for (let i = 0; i < 300 && bodies.length === 0; i++) await sleep(10);
    return Object.keys(JSON.parse(bodies[0]!) as object).sort();
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** Probes the target; on a clean target and on one with only the variant the answers must differ as stated. */
interface VariantCase {
  name: string;
  probe: (s: ReferenceSettings) => Promise<unknown>;
  clean: unknown;
  variant: unknown;
  /** Options both targets start with (a time scale, a variant the comparison takes for granted). */
  with?: ReferenceOptions;
}

const keysOf = (o: unknown) => Object.keys((o as object) ?? {}).sort();
/** A field of an answer the harness's types do not name (a variant's own). */
const fieldOf = (o: unknown, k: string): unknown => (o as Record<string, unknown> | undefined)?.[k];
/** Creates a VM with `extra` in the body: the create's status, and the VM as read back where it was made. */
const createdVm = async (s: ReferenceSettings, extra: Record<string, unknown>): Promise<[number, unknown]> => {
  const t = await token(s);
  const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, extra) });
  return [r.status, r.status < 300 ? (await call(s, 'GET', `/v1/vms/${r.body.vm_id}`, { token: t })).body : undefined];
};
const taskHeaders = (r: Res) =>
  ['location', 'operation-location', 'x-task-id'].filter((h) => r.headers.get(h) !== null);
const createShape = async (s: ReferenceSettings) => {
  const r = await call(s, 'POST', '/v1/vms', { token: await token(s), json: vmBody(s) });
  return [keysOf(r.body), taskHeaders(r)];
};
const tooManyIssuances = async (s: ReferenceSettings) => {
  let last: Res | undefined;
  for (let i = 0; i < 11; i++) last = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
  return last!;
};

const cases: VariantCase[] = [
  {
    name: 'token-201',
    probe: async (s) => (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).status,
    clean: 200,
    variant: 201,
  },
  {
    name: 'token-opaque',
    probe: async (s) => {
      const t = await token(s);
      const altered = t.slice(0, 20) + (t[20] === 'A' ? 'B' : 'A') + t.slice(21);
      return [
        t.split('.').length,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: altered })).status,
      ];
    },
    clean: [3, 200, 401],
    variant: [1, 200, 401],
  },
  {
    name: 'token-extra-fields',
    probe: async (s) => keysOf((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).body),
    clean: ['expires_in', 'organization', 'role', 'token'],
    variant: ['expires_in', 'issued_at', 'organization', 'refresh_token', 'role', 'scope', 'token', 'token_type'],
  },
  {
    name: 'roles-custom',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).body.role,
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyReadonly } })).body.role,
    ],
    clean: ['operator', 'viewer'],
    variant: ['administrator', 'auditor'],
  },
  {
    name: 'roles-upper',
    probe: async (s) => (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyReadonly } })).body.role,
    clean: 'viewer',
    variant: 'VIEWER',
  },
  { name: 'create-201', probe: (s) => createStatus(s), clean: 202, variant: 201 },
  { name: 'create-200', probe: (s) => createStatus(s), clean: 202, variant: 200 },
  {
    name: 'task-id-operation-location',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [
      [
        'created_at',
        'id',
        'image',
        'memory_gb',
        'name',
        'organization',
        'status',
        'subnet_id',
        'system_disk_gb',
        'tags',
        'vcpus',
      ],
      ['operation-location'],
    ],
  },
  {
    name: 'task-id-custom-header',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['vm_id'], ['x-task-id']],
  },
  {
    name: 'task-id-nested',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['meta', 'vm'], []],
  },
  {
    name: 'task-id-action',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['action_id', 'vm_id'], []],
  },
  {
    name: 'task-id-task-object',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['created_at', 'id', 'operation', 'resource_id', 'status', 'updated_at'], []],
  },
  {
    name: 'task-id-hal-link',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['_links', 'id', 'name'], []],
  },
  {
    name: 'task-id-operation-name',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['operation', 'vm'], []],
  },
  {
    name: 'task-id-task-name',
    probe: createShape,
    clean: [['task_id', 'vm_id'], ['location']],
    variant: [['task', 'vm'], []],
  },
  {
    // The operation's URL is served too: its last segment is the task GET /v1/tasks/{id} polls.
    name: 'task-id-operation-url',
    probe: async (s) => {
      const t = await token(s);
      const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const link = new URL(String(r.body.selfLink ?? 'http://x/none'));
      const id = link.pathname.split('/').pop()!;
      return [
        keysOf(r.body),
        taskHeaders(r),
        link.pathname.startsWith('/v1/operations/') && (await call(s, 'GET', link.pathname, { token: t })).status,
        (await call(s, 'GET', `/v1/tasks/${id}`, { token: t })).status,
      ];
    },
    clean: [['task_id', 'vm_id'], ['location'], false, 404],
    variant: [['kind', 'selfLink', 'status', 'targetLink'], [], 200, 200],
  },
  {
    name: 'task-states-upper',
    probe: async (s) => (await finishedTask(s))['status'],
    clean: 'succeeded',
    variant: 'DONE',
    with: { timeScale: 1000 },
  },
  {
    name: 'task-states-progressive',
    probe: async (s) => (await finishedTask(s))['status'],
    clean: 'succeeded',
    variant: 'completed',
    with: { timeScale: 1000 },
  },
  {
    name: 'task-states-unrecognised',
    probe: async (s) => (await finishedTask(s))['status'],
    clean: 'succeeded',
    variant: 'ready',
    with: { timeScale: 1000 },
  },
  {
    name: 'task-record-alt',
    probe: async (s) => keysOf(await finishedTask(s)),
    clean: ['created_at', 'id', 'operation', 'resource_id', 'status', 'updated_at'],
    variant: ['created_at', 'error', 'finished_at', 'kind', 'progress', 'started_at', 'state', 'target', 'task_id'],
    with: { timeScale: 1000 },
  },
  {
    name: 'task-record-phase',
    probe: async (s) => {
      const t = await finishedTask(s);
      return [t['phase'], t['progress'], 'status' in t];
    },
    clean: [undefined, undefined, true],
    variant: ['Succeeded', 100, false],
    with: { timeScale: 1000 },
  },
  {
    name: 'task-record-lro',
    probe: async (s) => keysOf(await finishedTask(s)),
    clean: ['created_at', 'id', 'operation', 'resource_id', 'status', 'updated_at'],
    variant: ['done', 'id', 'metadata', 'name', 'response'],
    with: { timeScale: 1000 },
  },
  {
    // Both targets have slow tasks, so "not yet finished" lasts 90 virtual seconds.
    name: 'vm-listed-when-ready',
    probe: async (s) => {
      const t = await token(s);
      await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name: 'just-created' }) });
      return (await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t })).body.vms.filter(
        (v: { name: string }) => v.name === 'just-created'
      ).length;
    },
    clean: 1,
    variant: 0,
    with: { variants: ['tasks-slow'] },
  },
  {
    name: 'create-name-only-required',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await token(s), json: { name: 'only-a-name' } })).status,
    clean: 400,
    variant: 202,
  },
  {
    name: 'create-null-as-absent',
    probe: async (s) => [await createStatus(s, { system_disk_gb: null }), await createStatus(s, { vcpus: null })],
    clean: [400, 400],
    variant: [202, 400],
  },
  {
    name: 'create-coerce-numeric-strings',
    probe: async (s) => [
      await createStatus(s, { vcpus: '2' }),
      await createStatus(s, { memory_gb: ' +4 ' }),
      await createStatus(s, { vcpus: '2.5' }),
    ],
    clean: [400, 400, 400],
    variant: [202, 202, 400],
  },
  {
    name: 'create-unknown-fields-refused',
    probe: async (s) => [await createStatus(s, { flavor: 'small' }), await createStatus(s)],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    name: 'create-ranges-narrow',
    probe: async (s) => [await createStatus(s, { vcpus: 32 }), await createStatus(s, { name: 'n'.repeat(50) })],
    clean: [202, 202],
    variant: [400, 400],
  },
  {
    name: 'create-sizes-rounded-up',
    probe: async (s) => {
      const t = await token(s);
      const c = await call(s, 'POST', '/v1/vms', {
        token: t,
        json: vmBody(s, { vcpus: 3, memory_gb: 5, system_disk_gb: 30 }),
      });
      const vm = (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body;
      return [vm.vcpus, vm.memory_gb, vm.system_disk_gb];
    },
    clean: [3, 5, 30],
    variant: [4, 8, 50],
  },
  {
    name: 'create-ranges-wide',
    probe: async (s) => [await createStatus(s, { vcpus: 100 }), await createStatus(s, { system_disk_gb: 5 })],
    clean: [400, 400],
    variant: [202, 202],
  },
  {
    name: 'create-ranges-high-minimum',
    probe: async (s) => [await createStatus(s, { vcpus: 1, memory_gb: 1, system_disk_gb: 20 }), await createStatus(s)],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    // rocky-9 needs 40 GB: 30 is refused, naming the field and the image; debian-12's 10 GB is still served.
    name: 'disk-minimum-per-image',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', {
        token: await token(s),
        json: vmBody(s, { image: 'rocky-9', system_disk_gb: 30 }),
      });
      const message = String(r.body.error?.message);
      return [
        r.status,
        message.includes('system_disk_gb') && message.includes('rocky-9'),
        await createStatus(s, { image: 'rocky-9', system_disk_gb: 40 }),
        await createStatus(s, { image: 'debian-12', system_disk_gb: 10 }),
      ];
    },
    clean: [202, false, 202, 202],
    variant: [400, true, 202, 202],
  },
  {
    name: 'vm-names-unique',
    probe: async (s) => {
      const t = await token(s);
      const first = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name: 'twin-vm' }) });
      const again = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name: 'twin-vm' }) });
      return [first.status, again.status, again.body.error?.code, await createStatus(s, { name: 'other-vm' })];
    },
    clean: [202, 202, undefined, 202],
    variant: [202, 409, 'already_exists', 202],
  },
  {
    name: 'pages-zero-based',
    probe: async (s) => [
      (await listed(s, '?page=0&per_page=1')).status,
      (await listed(s, '?page=1&per_page=1')).body.vms[0].name,
    ],
    clean: [400, 'seed-vm-001'],
    variant: [200, 'seed-vm-002'],
  },
  {
    name: 'page-past-end-404',
    probe: async (s) => [
      (await listed(s, '?page=3&per_page=100')).status,
      (await listed(s, '?page=2&per_page=100')).status,
      (await listed(s, '?tag=none:none')).status,
    ],
    clean: [200, 200, 200],
    variant: [404, 200, 200],
  },
  { name: 'per-page-default-10', probe: async (s) => (await listed(s)).body.vms.length, clean: 20, variant: 10 },
  {
    name: 'list-newest-first',
    probe: async (s) => (await listed(s, '?per_page=1')).body.vms[0].name,
    clean: 'seed-vm-001',
    variant: 'seed-vm-130',
  },
  {
    name: 'list-other-dialect',
    probe: async (s) => {
      const first = await listed(s, '?page=0&per_page=2');
      const plain = await listed(s, '?per_page=2');
      const created = await call(s, 'POST', '/v1/vms', { token: await token(s), json: vmBody(s) });
      return [
        first.status,
        first.body.vms?.[0]?.name,
        first.body.meta ?? plain.body.total,
        /^i-[0-9a-f]{8}$/.test(String(plain.body.vms[0].id)),
        Object.keys(created.body),
      ];
    },
    clean: [400, undefined, 130, false, ['task_id', 'vm_id']],
    variant: [200, 'seed-vm-130', { total_items: 130, page: 0, per_page: 2, pages: 65 }, true, ['task_id']],
  },
  {
    name: 'per-page-over-max-clamp',
    probe: async (s) => {
      const r = await listed(s, '?per_page=101');
      return [r.status, r.body.vms?.length];
    },
    clean: [400, undefined],
    variant: [200, 100],
  },
  {
    name: 'per-page-over-max-422',
    probe: async (s) => (await listed(s, '?per_page=101')).status,
    clean: 400,
    variant: 422,
  },
  {
    name: 'total-nested-meta',
    probe: async (s) => {
      const r = await listed(s);
      return [keysOf(r.body), r.body.meta?.total_items];
    },
    clean: [['page', 'per_page', 'total', 'vms'], undefined],
    variant: [['meta', 'vms'], 130],
  },
  {
    name: 'total-deep',
    probe: async (s) => {
      const r = await listed(s);
      return [keysOf(r.body), r.body.meta?.pagination?.total];
    },
    clean: [['page', 'per_page', 'total', 'vms'], undefined],
    variant: [['meta', 'vms'], 130],
  },
  {
    name: 'total-count-name',
    probe: async (s) => {
      const r = await listed(s, '?per_page=5');
      return [r.body.total_count, r.body.count];
    },
    clean: [undefined, undefined],
    variant: [130, 5],
  },
  {
    name: 'total-in-header',
    probe: async (s) => {
      const r = await listed(s);
      return [r.body.total, r.headers.get('x-total-count')];
    },
    clean: [130, null],
    variant: [undefined, '130'],
  },
  {
    name: 'population-large',
    probe: async (s) => {
      const r = await listed(s, '?per_page=100');
      return [
        r.body.total,
        r.body.vms.filter((v: { tags: object }) => Object.keys(v.tags).length > 0).length,
        r.body.vms[49].name,
      ];
    },
    clean: [130, 100, 'seed-vm-050'],
    variant: [2500, 33, '2024-03-23 13:45 import 50'],
  },
  ...(['audit-history', 'audit-history-large'] as const).map((name) => ({
    name,
    // The failures already in the trail, and the size of the JSON export of failures.
    probe: async (s: ReferenceSettings) => {
      const t = await token(s);
      const failures = (await call(s, 'GET', '/v1/audit?result=failure&per_page=1', { token: t })).body.total;
      const exported = (await call(s, 'GET', '/v1/audit/export?result=failure&format=json', { token: t })).text.length;
      return [failures, exported > (name === 'audit-history' ? 64 * 1024 : 10 * 1024 * 1024)];
    },
    clean: [0, false],
    variant: [name === 'audit-history' ? 200 : 1600, true],
  })),
  {
    name: 'audit-earlier-run',
    // Entries of the primary key before this probe made any call of its own (the token issuance aside): the last page.
    probe: async (s: ReferenceSettings) => {
      const t = await token(s);
      const r = await call(s, 'GET', '/v1/audit?path_prefix=/v1/vms&per_page=100', { token: t });
      return [r.body.total, new Set(r.body.entries.map((e: { path: string }) => `${e.path}`)).size];
    },
    clean: [0, 0],
    variant: [30, 1],
  },
  {
    name: 'audit-busy-neighbour',
    // Failures a search finds, then failures the export holds right after it.
    probe: async (s: ReferenceSettings) => {
      const t = await token(s);
      const searched = (await call(s, 'GET', '/v1/audit?result=failure&per_page=100', { token: t })).body.entries
        .length;
      const exported = JSON.parse(
        (await call(s, 'GET', '/v1/audit/export?result=failure&format=json', { token: t })).text
      ).length;
      return exported - searched;
    },
    clean: 0,
    variant: 1,
  },
  {
    // The search's fields (filtered by result), and the JSON export: a list, or the keys of the object holding it.
    name: 'audit-events-envelope',
    probe: async (s: ReferenceSettings) => {
      const t = await token(s);
      const searched = (await call(s, 'GET', '/v1/audit?result=success&per_page=5', { token: t })).body;
      const exported: unknown = JSON.parse((await call(s, 'GET', '/v1/audit/export?format=json', { token: t })).text);
      return [
        keysOf(searched),
        fieldOf(searched, 'applied_filters'),
        Array.isArray(exported) ? 'a list' : keysOf(exported),
      ];
    },
    clean: [['entries', 'page', 'per_page', 'total'], undefined, 'a list'],
    variant: [
      ['applied_filters', 'audit_events', 'page', 'per_page', 'total'],
      ['result'],
      ['audit_events', 'exported_at', 'total_count'],
    ],
  },
  {
    // Creates one after another, each entry paired with the VM its call made (the log's order): whether any entry is
    // stamped before its VM was made (when its call began). The plain reference stamps when the call ended, never
    // before; the variant's calls wait 0 to 5 ms after arriving, so of 20, some wait past the stamp's millisecond.
    name: 'audit-time-at-start',
    probe: async (s: ReferenceSettings) => {
      const t = await token(s);
      for (let i = 0; i < 20; i++)
        await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name: `audit-time-${i}` }) });
      const made = (await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t })).body.vms.filter((v) =>
        v.name.startsWith('audit-time-')
      );
      const logged = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries
        .filter((e) => e.method === 'POST' && e.path === '/v1/vms')
        .reverse();
      const early = made.filter((vm, i) => Date.parse(logged[i]?.time ?? '') < Date.parse(vm.created_at));
      return [made.length, logged.length, early.length > 0];
    },
    clean: [20, 20, false],
    variant: [20, 20, true],
  },
  {
    // The certify profile's variant, probed here like the others of the population dimension.
    name: 'short-untagged-list',
    probe: async (s) => {
      const tagged = (vms: Array<{ tags: object }>) => vms.filter((v) => Object.keys(v.tags).length > 0).length;
      const a = (await listed(s)).body;
      const b = (await call(s, 'GET', '/v1/vms', { token: await token(s, s.apiKeyB) })).body;
      return [a.total, tagged(a.vms), b.total, tagged(b.vms)];
    },
    clean: [130, 20, 3, 3],
    variant: [8, 0, 3, 0],
  },
  {
    name: 'tags-as-strings',
    probe: async (s) => [
      (await listed(s, '?per_page=1')).body.vms[0].tags,
      await createStatus(s, { tags: ['env:blue'] }),
    ],
    clean: [{ env: 'prod', team: 'alpha' }, 400],
    variant: [['env:prod', 'team:alpha'], 202],
  },
  {
    name: 'tags-as-pairs',
    probe: async (s) => [
      (await listed(s, '?per_page=1')).body.vms[0].tags,
      await createStatus(s, { tags: [{ key: 'env', value: 'blue' }] }),
    ],
    clean: [{ env: 'prod', team: 'alpha' }, 400],
    variant: [
      [
        { key: 'env', value: 'prod' },
        { key: 'team', value: 'alpha' },
      ],
      202,
    ],
  },
  {
    name: 'tags-as-labels',
    probe: async (s) => {
      const v = (await listed(s, '?per_page=1')).body.vms[0];
      return [v.tags, v.labels];
    },
    clean: [{ env: 'prod', team: 'alpha' }, undefined],
    variant: [undefined, { env: 'prod', team: 'alpha' }],
  },
  {
    // Records still show a map; a create takes "key:value" strings as well as a map.
    name: 'tags-map-or-strings',
    probe: async (s) => {
      const [status, vm] = await createdVm(s, { tags: ['env:blue'] });
      return [
        (await listed(s, '?per_page=1')).body.vms[0].tags,
        status,
        fieldOf(vm, 'tags'),
        await createStatus(s, { tags: { env: 'blue' } }),
      ];
    },
    clean: [{ env: 'prod', team: 'alpha' }, 400, undefined, 202],
    variant: [{ env: 'prod', team: 'alpha' }, 202, { env: 'blue' }, 202],
  },
  {
    name: 'tags-ec2-style',
    probe: async (s) => {
      const v = (await listed(s, '?per_page=1')).body.vms[0];
      const [status, vm] = await createdVm(s, { Tags: [{ Key: 'env', Value: 'blue' }] });
      return [v.tags, fieldOf(v, 'Tags'), status, fieldOf(vm, 'Tags'), fieldOf(vm, 'tags')];
    },
    clean: [{ env: 'prod', team: 'alpha' }, undefined, 202, undefined, {}],
    variant: [
      undefined,
      [
        { Key: 'env', Value: 'prod' },
        { Key: 'team', Value: 'alpha' },
      ],
      202,
      [{ Key: 'env', Value: 'blue' }],
      undefined,
    ],
  },
  {
    name: 'tags-oci-freeform',
    probe: async (s) => {
      const v = (await listed(s, '?per_page=1')).body.vms[0];
      const [status, vm] = await createdVm(s, { freeformTags: { env: 'blue' } });
      return [v.tags, fieldOf(v, 'freeformTags'), status, fieldOf(vm, 'freeformTags'), fieldOf(vm, 'tags')];
    },
    clean: [{ env: 'prod', team: 'alpha' }, undefined, 202, undefined, {}],
    variant: [undefined, { env: 'prod', team: 'alpha' }, 202, { env: 'blue' }, undefined],
  },
  {
    // A key with a slash and a value with a space are refused, naming the tag; letters, digits, _ . and - pass.
    name: 'tag-characters-plain',
    probe: async (s) => {
      const t = await token(s);
      const key = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { 'env/stage': 'blue' } }) });
      const value = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { env: 'blue green' } }) });
      return [
        key.status,
        String(key.body.error?.message).includes('env/stage'),
        value.status,
        String(value.body.error?.message).includes('blue green'),
        await createStatus(s, { tags: { 'team_1.a-b': 'x.y_z-2' } }),
      ];
    },
    clean: [202, false, 202, false, 202],
    variant: [400, true, 400, true, 202],
  },
  {
    name: 'vm-record-minimal',
    probe: async (s) => keysOf((await listed(s, '?per_page=1')).body.vms[0]),
    clean: [
      'created_at',
      'id',
      'image',
      'memory_gb',
      'name',
      'organization',
      'status',
      'subnet_id',
      'system_disk_gb',
      'tags',
      'vcpus',
    ],
    variant: ['id', 'name'],
  },
  {
    name: 'vm-record-extra',
    probe: async (s) => {
      const v = (await listed(s, '?per_page=1')).body.vms[0];
      return [v.vcpuCount, v.links?.self === `/v1/vms/${v.id}`];
    },
    clean: [undefined, false],
    variant: [1, true],
  },
  {
    name: 'cross-org-403',
    probe: async (s) => {
      const created = await call(s, 'POST', '/v1/vms', { token: await token(s), json: vmBody(s) });
      return [
        (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: await token(s, s.apiKeyB) })).status,
        (await call(s, 'GET', '/v1/tasks/absent', { token: await token(s, s.apiKeyB) })).status,
      ];
    },
    clean: [404, 404],
    variant: [403, 404],
  },
  {
    name: 'error-codes-other',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/tasks/absent', { token: await token(s) })).body.error.code,
      (await call(s, 'GET', '/v1/vms')).body.error.code,
    ],
    clean: ['not_found', 'unauthenticated'],
    variant: ['NOT_FOUND', 'UNAUTHORIZED'],
  },
  {
    name: 'error-extra-members',
    probe: async (s) => {
      const b = (await call(s, 'GET', '/v1/tasks/absent', { token: await token(s) })).body;
      return [keysOf(b), keysOf(b.error)];
    },
    clean: [['error'], ['code', 'message']],
    variant: [
      ['error', 'request_id'],
      ['code', 'details', 'message', 'request_id', 'status'],
    ],
  },
  // limit-refused-not-counted, limit-sliding-window and retry-after-real-seconds are the second overlay's now:
  // test/reference/second-overlay.test.ts probes them with its other variants.
  {
    name: 'retry-after-http-date',
    probe: async (s) => {
      const r = await tooManyIssuances(s);
      return [/^\d+$/.test(r.headers.get('retry-after') ?? ''), r.headers.get('date') === null];
    },
    clean: [true, false],
    variant: [false, false],
  },
  {
    name: 'ratelimit-headers',
    probe: async (s) => {
      const r = await listed(s);
      return [r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining')];
    },
    clean: [null, null],
    variant: ['300', '299'],
  },
  {
    name: 'vm-quota-409',
    probe: async (s) => [await createStatus(s), await createStatus(s), await createStatus(s)],
    clean: [202, 202, 202],
    variant: [202, 202, 409],
  },
  {
    name: 'vm-quota-400',
    probe: async (s) => [await createStatus(s), await createStatus(s), await createStatus(s)],
    clean: [202, 202, 202],
    variant: [202, 202, 400],
  },
  {
    name: 'vm-quota-422',
    probe: async (s) => [await createStatus(s), await createStatus(s), await createStatus(s)],
    clean: [202, 202, 202],
    variant: [202, 202, 422],
  },
  {
    name: 'vm-quota-429',
    probe: async (s) => [await createStatus(s), await createStatus(s), await createStatus(s)],
    clean: [202, 202, 202],
    variant: [202, 202, 429],
  },
  {
    name: 'revoke-by-token-claim',
    probe: async (s) => {
      const t = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyRevocable } }).then(
        (r) => r.body.token as string
      );
      // The key's id is only in its token (the JWT's sub); /v1/api-keys/current is not offered.
      const id = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString('utf8')).sub;
      return [
        (await call(s, 'GET', '/v1/api-keys/current', { token: t })).status,
        (await call(s, 'DELETE', `/v1/api-keys/${id}`, { token: t })).status,
      ];
    },
    clean: [200, 404],
    variant: [405, 200],
  },
  {
    name: 'revoked-key-own-code',
    probe: async (s) => {
      const t = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyRevocable } }).then(
        (r) => r.body.token as string
      );
      await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      const r = await call(s, 'GET', '/v1/vms', { token: t });
      return [r.status, r.body.error.code];
    },
    clean: [401, 'unauthenticated'],
    variant: [401, 'key_revoked'],
  },
  {
    name: 'audit-window-since-until',
    probe: async (s) => {
      const t = await token(s);
      return [
        (await call(s, 'GET', '/v1/audit?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z', { token: t })).body
          .total === 0,
        (await call(s, 'GET', '/v1/audit?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z', { token: t })).body
          .total === 0,
      ];
    },
    clean: [false, true],
    variant: [true, false],
  },
  {
    name: 'tag-filter-case-insensitive',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/vms?tag=env:PROD&per_page=1', { token: await token(s) })).body.total > 0,
      (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=1', { token: await token(s) })).body.total > 0,
    ],
    clean: [false, true],
    variant: [true, true],
  },
  {
    name: 'tag-filter-repeated-all',
    probe: async (s) => {
      const t = await token(s);
      const one = (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=1', { token: t })).body.total;
      const both = (await call(s, 'GET', '/v1/vms?tag=env:prod&tag=team:alpha&per_page=1', { token: t })).body.total;
      return both < one;
    },
    clean: false,
    variant: true,
  },
  {
    name: 'audit-operator-only',
    probe: async (s) => {
      const viewer = await token(s, s.apiKeyReadonly);
      return [
        (await call(s, 'GET', '/v1/audit', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit/export', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit', { token: await token(s) })).status,
      ];
    },
    clean: [200, 200, 200],
    variant: [403, 403, 200],
  },
  {
    name: 'foreign-subnet-404',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', {
        token: await token(s),
        json: vmBody(s, { subnet_id: s.subnetIdB }),
      });
      return [r.status, r.body.error.code];
    },
    clean: [400, 'invalid_request'],
    variant: [404, 'not_found'],
  },
  {
    name: 'vm-name-dns-label',
    probe: async (s) => [await createStatus(s, { name: 'Mixed.Case' }), await createStatus(s, { name: 'dns-label-1' })],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    name: 'vm-sizes-up-to-16',
    probe: async (s) => [await createStatus(s, { vcpus: 32 }), await createStatus(s, { vcpus: 16 })],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    name: 'vm-name-ascii-only',
    probe: async (s) => [await createStatus(s, { name: 'Zürich-1' }), await createStatus(s, { name: 'Mixed.Case-1' })],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    name: 'vm-name-letters-digits-hyphens',
    probe: async (s) => [
      await createStatus(s, { name: 'Mixed.Case-1' }),
      await createStatus(s, { name: 'Zürich-1' }),
      await createStatus(s, { name: 'Mixed-Case-1' }),
    ],
    clean: [202, 202, 202],
    variant: [400, 400, 202],
  },
  {
    name: 'tag-values-ascii-only',
    probe: async (s) => [
      await createStatus(s, { tags: { place: 'Zürich' } }),
      await createStatus(s, { tags: { place: 'Zurich.1 a' } }),
    ],
    clean: [202, 202],
    variant: [400, 202],
  },
  {
    name: 'trailing-slash-served',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/vms/', { token: await token(s) });
      return [r.status, Array.isArray(r.body.vms)];
    },
    clean: [404, false],
    variant: [200, true],
  },
  {
    name: 'trailing-slash-redirect',
    probe: async (s) => {
      // Not followed: the redirect itself is what the variant changes.
      const r = await fetch(`${s.baseUrl}/v1/vms/?page=1`, {
        headers: { authorization: `Bearer ${await token(s)}` },
        redirect: 'manual',
      });
      return [r.status, r.headers.get('location')];
    },
    clean: [404, null],
    variant: [301, '/v1/vms?page=1'],
  },
  {
    name: 'oversized-body-close-early',
    probe: async (s) => oversizedUpload(s),
    clean: [413, 'answered after the whole body'],
    variant: [413, 'closed while sending'],
  },
  {
    name: 'oversized-body-reset',
    probe: async (s) => oversizedUpload(s),
    clean: [413, 'answered after the whole body'],
    variant: [undefined, 'closed while sending'],
  },
  {
    name: 'media-type-400',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/vms', {
        token: await token(s),
        raw: '{"name": "x"}',
        headers: { 'content-type': 'text/plain' },
      });
      return [r.status, r.body.error.code];
    },
    clean: [415, 'unsupported_media_type'],
    variant: [400, 'invalid_request'],
  },
  {
    name: 'small-org-quota',
    probe: async (s) => {
      const t = await token(s);
      const total = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.total;
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++)
        statuses.push((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) })).status);
      return [total, statuses[14], statuses[15]];
    },
    clean: [130, 202, 202],
    variant: [45, 202, 403],
  },
  {
    // 600 vCPUs beyond the seeded VMs': 18 VMs of 32 fit (576), the 19th does not; a small one still does.
    name: 'vcpu-quota',
    probe: async (s) => {
      const t = await token(s);
      const statuses: number[] = [];
      for (let i = 0; i < 19; i++)
        statuses.push((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus: 32 }) })).status);
      const small = (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus: 16 }) })).status;
      return [statuses[17], statuses[18], small];
    },
    clean: [202, 202, 202],
    variant: [202, 403, 202],
  },
  {
    name: 'capacity-refusal',
    probe: async (s) => {
      const t = await token(s);
      const statuses: number[] = [];
      for (let i = 0; i < 41; i++)
        statuses.push((await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) })).status);
      return [statuses[39], statuses[40]];
    },
    clean: [202, 202],
    variant: [202, 409],
  },
  {
    name: 'vm-quota-low',
    probe: async (s) => [await createStatus(s), await createStatus(s), await createStatus(s)],
    clean: [202, 202, 202],
    variant: [202, 202, 403],
  },
  {
    name: 'bearer-challenge-realm',
    probe: async (s) => (await call(s, 'GET', '/v1/vms')).headers.get('www-authenticate'),
    clean: 'Bearer',
    variant: 'bearer realm="cloud-platform"',
  },
  {
    name: 'token-cache-pragma',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      return [r.headers.get('cache-control'), r.headers.get('pragma')];
    },
    clean: ['no-store', null],
    variant: ['No-Store, no-cache, must-revalidate', 'no-cache'],
  },
  {
    name: 'allow-compact',
    probe: async (s) =>
      (await call(s, 'PUT', '/v1/tasks/nope', { token: await token(s), json: {} })).headers.get('allow'),
    clean: 'GET, HEAD',
    variant: 'GET,HEAD',
  },
  {
    name: 'json-no-charset',
    probe: async (s) => (await listed(s)).headers.get('content-type'),
    clean: 'application/json; charset=utf-8',
    variant: 'application/json',
  },
  {
    name: 'timestamps-no-fraction',
    probe: async (s) =>
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test((await listed(s, '?per_page=1')).body.vms[0].created_at),
    clean: false,
    variant: true,
  },
  {
    name: 'timestamps-offset-zero',
    probe: async (s) => /\.\d{6}\+00:00$/.test((await listed(s, '?per_page=1')).body.vms[0].created_at),
    clean: false,
    variant: true,
  },
  {
    name: 'backup-record-201',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      const r = await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } });
      return [
        r.status,
        keysOf(r.body),
        keysOf((await call(s, 'GET', `/v1/backups/${r.body.backup_id ?? r.body.backup.id}`, { token: t })).body),
      ];
    },
    clean: [202, ['backup_id', 'task_id'], ['created_at', 'description', 'id', 'status', 'vm_id']],
    variant: [201, ['backup', 'operation'], ['createdAt', 'description', 'id', 'sizeGb', 'state', 'vmId']],
  },
  {
    name: 'backup-start-record',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      const r = await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } });
      const id = r.body.backup_id ?? r.body.id;
      return [r.status, keysOf(r.body), (await call(s, 'GET', `/v1/backups/${id}`, { token: t })).status];
    },
    clean: [202, ['backup_id', 'task_id'], 200],
    variant: [202, ['created_at', 'description', 'id', 'status', 'task_id', 'vm_id'], 200],
  },
  {
    name: 'backup-needs-running-vm',
    probe: async (s) => {
      const t = await token(s);
      const created = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      return (await call(s, 'POST', `/v1/vms/${created.body.vm_id}/backups`, { token: t, json: { description: 'x' } }))
        .status;
    },
    clean: 202,
    variant: 409,
  },
  {
    name: 'vm-delete-refused-while-provisioning',
    probe: async (s) => {
      const t = await token(s);
      const created = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      return (await call(s, 'DELETE', `/v1/vms/${created.body.vm_id}`, { token: t })).status;
    },
    clean: 202,
    variant: 409,
  },
  {
    // A second backup of a VM while its first runs, and a backup of a VM still being created: refused 409 conflict.
    name: 'vm-one-operation-at-a-time',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      const backup = () => call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } });
      const first = await backup();
      const second = await backup();
      const created = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s) });
      const ofNew = await call(s, 'POST', `/v1/vms/${created.body.vm_id}/backups`, {
        token: t,
        json: { description: 'x' },
      });
      return [first.status, second.status, second.body.error?.code, ofNew.status];
    },
    clean: [202, 202, undefined, 202],
    variant: [202, 409, 'conflict', 409],
  },
  {
    name: 'backup-needs-stopped-vm',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      return (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: t, json: { description: 'x' } })).status;
    },
    clean: 202,
    variant: 409,
  },
  {
    name: 'restore-at-vm-path',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/restore`, { token: t, json: {} })).body.error.message,
        (await call(s, 'POST', '/v1/backups/bk-x/restore', { token: t, json: {} })).body.error.message,
      ];
    },
    clean: [expect.stringMatching(/no such path/), 'backup bk-x not found'],
    variant: ['backup_id is required and must be a string', expect.stringMatching(/no such path/)],
  },
  { name: 'events-on-restore', probe: backupJobEvents, clean: 1, variant: 2, with: { timeScale: 100 } },
  {
    name: 'delivery-id-per-attempt',
    probe: attemptIds,
    clean: [true, null],
    variant: [false, true],
    with: { timeScale: 100 },
  },
  {
    name: 'event-payload-flat',
    probe: testEventKeys,
    clean: ['created_at', 'data', 'id', 'organization', 'type'],
    variant: ['created_at', 'id', 'message', 'organization', 'type', 'webhook_id'],
  },
  {
    name: 'other-ops-actions',
    probe: async (s) => {
      const t = await token(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/actions`, { token: t, json: { type: 'reboot' } })).status,
        (await call(s, 'GET', '/v1/networks', { token: t })).status,
      ];
    },
    clean: [404, 404],
    variant: [202, 200],
  },
  {
    name: 'vm-delete-not-offered',
    probe: async (s) => {
      const t = await token(s);
      const id = (await listed(s, '?per_page=1')).body.vms[0].id;
      const r = await call(s, 'DELETE', `/v1/vms/${id}`, { token: t });
      return [r.status, r.headers.get('allow')];
    },
    clean: [202, null],
    variant: [405, 'GET, HEAD'],
  },
  {
    name: 'v2-beside-v1',
    probe: async (s) => {
      const t = await token(s);
      const v1 = await call(s, 'GET', '/v1/vms', { token: t });
      return [
        (await call(s, 'GET', '/v2/vms', { token: t })).status,
        v1.headers.get('link'),
        v1.headers.get('deprecation') !== null,
      ];
    },
    clean: [404, null, false],
    variant: [200, '</v2/vms>; rel="successor-version"', true],
  },
];

/** Variants whose difference is one of timing: probed below on a virtual clock the test sets. */
const ON_A_HELD_CLOCK = ['task-extra-states', 'tasks-slow', 'limit-window-aligned'];
/** The declared designs' variants are probed in test/reference/second-overlay.test.ts. */
const PROBED_ELSEWHERE = new Set([...ALT_VARIANTS, 'signature-standard-webhooks']);

describe('the variant catalogue', () => {
  it('names each variant once, with a dimension and unshown items of spec/clauses.yaml', async () => {
    const { unshown } = await loadClauses();
    const known = new Set(unshown.map((u) => u.id));
    expect(VARIANTS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
    for (const v of [...VARIANTS, ...S3_VARIANTS]) {
      expect(v.unshown.length, v.name).toBeGreaterThan(0);
      for (const u of v.unshown) expect(known, `${v.name}: ${u}`).toContain(u);
    }
  });

  it('covers every item the seed leaves unshown', async () => {
    const { unshown } = await loadClauses();
    const covered = new Set([...VARIANTS, ...S3_VARIANTS].flatMap((v) => v.unshown));
    expect(unshown.map((u) => u.id).filter((u) => !covered.has(u))).toEqual([]);
  });

  it('refuses unknown names and two variants of one dimension', () => {
    expect(() => parseVariants(['no-such-variant'])).toThrow(/unknown variant/);
    expect(() => parseVariants(['total-deep', 'total-in-header'])).toThrow(/same choice/);
    expect([...parseVariants(['total-deep', 'pages-zero-based'])]).toEqual(['total-deep', 'pages-zero-based']);
  });

  it('has a probe for every variant (over HTTP, or on a clock the test holds where only time tells)', () => {
    expect([...cases.map((c) => c.name), ...ON_A_HELD_CLOCK].sort()).toEqual(
      VARIANTS.filter((v) => !PROBED_ELSEWHERE.has(v.name))
        .map((v) => v.name)
        .sort()
    );
  });

  it('makes seeded combinations of 5 to 9 variants, at most one per dimension, the same every time', () => {
    const combos = combinations(20);
    expect(combos).toEqual(combinations(20));
    for (const c of combos) {
      expect(c.length).toBeGreaterThanOrEqual(5);
      expect(c.length).toBeLessThanOrEqual(9);
      expect(() => parseVariants(c)).not.toThrow();
    }
    expect(runsFor(['retry-after-http-date']).map((r) => r.config)).toEqual([
      'all but limits',
      'limits, scale 1',
      'limits, full, scale 10',
    ]);
  });

  it('runs each S3 variant (npm run variants) with the s3 group, beside a clean run of the same configuration', () => {
    for (const v of S3_VARIANTS)
      expect(s3RunsFor(v.name)).toEqual([{ config: 's3', run: { s3Variants: [v.name], only: ['s3'] } }]);
    expect(CLEAN_RUNS.find((r) => r.config === 's3')?.run).toEqual({ only: ['s3'] });
  });
});

describe.concurrent('each variant changes only what it says', () => {
  for (const c of cases) {
    it(`${c.name}`, async () => {
      const extra = c.with?.variants ?? [];
      const clean = await start({ ...c.with, variants: extra });
      const variant = await start({ ...c.with, variants: [...extra, c.name] });
      expect(await c.probe(clean)).toEqual(c.clean);
      expect(await c.probe(variant)).toEqual(c.variant);
    });
  }
});

describe('variant behaviour on a clock the test holds', () => {
  /** A virtual clock at scale 1 whose real time the test sets (ms since it was made). */
  const held = () => {
    let now = 0;
    const clock = new VirtualClock(1, () => now);
    return { clock, set: (t: number) => (now = t) };
  };

  it('task-extra-states: queued, preparing, running, finalizing, then the end', () => {
    const { clock, set } = held();
    const v = new VariantBehaviour(new Set(['task-extra-states']), clock);
    const store = new Store(clock, v.taskTiming());
    const task = store.createVm('org', {
      name: 'x',
      vcpus: 1,
      memory_gb: 1,
      image: 'i',
      system_disk_gb: 10,
      subnet_id: 's',
      tags: {},
    }).task;
    const states = [100, 600, 1000, 1400, 1600].map((t) => {
      set(t);
      store.advance();
      return v.taskRecord({ id: task.id, status: store.taskStatus(task) }, task, store.taskStatus(task))['status'];
    });
    expect(states).toEqual(['queued', 'preparing', 'running', 'finalizing', 'succeeded']);
  });

  it('tasks-slow: a task runs for 90 virtual seconds', () => {
    const { clock, set } = held();
    const store = new Store(clock, new VariantBehaviour(new Set(['tasks-slow']), clock).taskTiming());
    const task = store.createVm('org', {
      name: 'x',
      vcpus: 1,
      memory_gb: 1,
      image: 'i',
      system_disk_gb: 10,
      subnet_id: 's',
      tags: {},
    }).task;
    const states = [5_000, 20_000, 89_000, 90_000].map((t) => {
      set(t);
      store.advance();
      return store.taskStatus(task);
    });
    expect(states).toEqual(['queued', 'running', 'running', 'succeeded']);
  });

  it('limit-sliding-window: a request is allowed once the oldest of the last 60 s leaves, not at a window boundary', () => {
    const { clock, set } = held();
    const fixed = new FixedWindowLimiter(clock, 2, 60_000);
    const sliding = new SlidingWindowLimiter(clock, 2, 60_000);
    const hits = (l: FixedWindowLimiter | SlidingWindowLimiter) =>
      [0, 50_000, 59_000, 61_000, 62_000, 111_000].map((t) => {
        set(t);
        const r = l.hit('k');
        return r.allowed ? 'ok' : `wait ${r.retryAfter}`;
      });
    expect(hits(fixed)).toEqual(['ok', 'ok', 'wait 1', 'ok', 'ok', 'wait 10']);
    expect(hits(sliding)).toEqual(['ok', 'ok', 'wait 1', 'ok', 'wait 48', 'ok']);
  });

  it("limit-window-aligned: windows on the clock's minutes, so a budget spent late in one is back at the next", () => {
    const { clock, set } = held();
    const opened = new FixedWindowLimiter(clock, 2, 60_000);
    const aligned = new AlignedWindowLimiter(clock, 2, 60_000);
    const hits = (l: FixedWindowLimiter) =>
      [50_000, 55_000, 59_000, 60_000, 61_000, 62_000].map((t) => {
        set(t);
        const r = l.hit('k');
        return r.allowed ? 'ok' : `wait ${r.retryAfter}`;
      });
    expect(hits(opened)).toEqual(['ok', 'ok', 'wait 51', 'wait 50', 'wait 49', 'wait 48']);
    expect(hits(aligned)).toEqual(['ok', 'ok', 'wait 1', 'ok', 'ok', 'wait 58']);
  });
});

describe('the suite, zero-config, on variants that move the list under it', () => {
  it('stays conformant when VMs appear newest first only once their slow tasks end', async () => {
    const report = await runAgainstReference({
      variants: [
        'list-newest-first',
        'vm-listed-when-ready',
        'tasks-slow',
        'total-deep',
        'pages-zero-based',
        'task-id-action',
      ],
      only: ALL_BUT_LIMITS,
    });
    expect(notPassing(report)).toEqual([]);
    expect(report.verdict).toBe('conformant');
    expect(report.observations['firstPage']).toBe(0);
    expect(report.observations['totalField']).toBe('/meta/pagination/total');
  });

  it('stays conformant on a large population, a low quota and refusals of the smallest VM', async () => {
    const report = await runAgainstReference({
      variants: [
        'population-large',
        'vm-quota-low',
        'create-ranges-high-minimum',
        'token-opaque',
        'error-codes-other',
        'validation-422',
      ],
      only: ALL_BUT_LIMITS,
    });
    expect(notPassing(report)).toEqual([]);
    expect(report.verdict).toBe('conformant');
    expect(report.observations['createSizes']).toMatchObject({ vcpus: 2, memory_gb: 4, refusedFirst: 1 });
  });
});
