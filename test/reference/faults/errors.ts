// Fault probes of the errors checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, firstVm, vmBody } from '../probes.ts';
import type { FaultCase } from './index.ts';
import { servedOperationCases } from './served-operations.ts';

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
    name: 'numeric-error-code',
    probe: async (s) => {
      const r = await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) });
      return [r.status, typeof r.body.error.code, typeof r.body.error.message];
    },
    clean: [404, 'string', 'string'],
    faulty: [404, 'number', 'string'],
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
  // Paths of other shapes: one ending in a slash, beside another unknown path.
  {
    name: 'trailing-slash-html-404',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        ['/v1/vms/', '/v1/nothing', '/v1/nothing/'].map(async (path) => {
          const r = await call(s, 'GET', path, { token: t });
          return [r.status, r.headers.get('content-type'), r.body?.error?.code ?? null];
        })
      );
    },
    clean: [
      [404, 'application/json; charset=utf-8', 'not_found'],
      [404, 'application/json; charset=utf-8', 'not_found'],
      [404, 'application/json; charset=utf-8', 'not_found'],
    ],
    faulty: [
      [404, 'text/html; charset=utf-8', null],
      [404, 'application/json; charset=utf-8', 'not_found'],
      [404, 'text/html; charset=utf-8', null],
    ],
  },
  ...servedOperationCases('vm-delete-404-unwrapped'),
];
