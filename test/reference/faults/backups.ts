// Fault probes of the backups checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, firstVm, vmBody, taskOf } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
];
