// Fault probes of the schema checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, vmBody, tamper, createVm, taskOf } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
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
    name: 'not-found-410',
    probe: async (s) => (await call(s, 'GET', '/v1/tasks/task-absent', { token: await tokenFor(s) })).status,
    clean: 404,
    faulty: 410,
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
  // Designs of the second overlay, each under the variant whose design it breaks.
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
];
