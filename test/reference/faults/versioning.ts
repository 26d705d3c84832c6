// Fault probes of the versioning checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, createVm } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
];
