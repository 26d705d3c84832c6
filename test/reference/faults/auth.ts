// Fault probes of the auth checks' faults: each observation on a clean target and on one with only that fault.
import { decodeJwt } from 'jose';
import { call } from '../harness.ts';
import { tokenFor, sleep, firstVm, vmBody, tamper, createVm, issue } from '../probes.ts';
import type { FaultCase } from './index.ts';
import { servedOperationCases } from './served-operations.ts';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
  // The Authorization header spelt otherwise: the scheme's case, with a good and a tampered token.
  {
    name: 'bearer-scheme-case-sensitive',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        ['Bearer', 'bearer', 'BEARER'].map(
          async (scheme) => (await call(s, 'GET', '/v1/vms', { headers: { authorization: `${scheme} ${t}` } })).status
        )
      );
    },
    clean: [200, 200, 200],
    faulty: [200, 401, 401],
  },
  {
    name: 'scheme-case-unverified',
    probe: async (s) => {
      const t = await tokenFor(s);
      const as = async (header: string) =>
        (await call(s, 'GET', '/v1/vms', { headers: { authorization: header } })).status;
      return [
        await as(`Bearer ${tamper(t)}`),
        await as(`bearer ${tamper(t)}`),
        await as(`bearer ${t}`),
        await as(`BEARER ${tamper(t)}`),
      ];
    },
    clean: [401, 401, 200, 401],
    faulty: [401, 200, 200, 200],
  },
  ...servedOperationCases(
    'expired-token-accepted-on-vm-delete',
    'tampered-token-accepted-on-vm-delete',
    'vm-delete-without-auth'
  ),
];
