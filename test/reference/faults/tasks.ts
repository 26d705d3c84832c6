// Fault probes of the tasks checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, firstVm, createVm, taskOf, vmBody } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
  // Every task completes, whatever started it.
  {
    name: 'large-task-never-finishes',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const sized = (vcpus: number) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) });
      const [large, small] = [await sized(32), await sized(2)];
      await sleep(100); // 10 target-seconds: both creates' tasks have had 1.5 s
      return [
        [large.status, (await taskOf(s, t, large.body.task_id)).status],
        [small.status, (await taskOf(s, t, small.body.task_id)).status],
        (await call(s, 'GET', `/v1/vms/${large.body.vm_id}`, { token: t })).body.vcpus,
        (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.total,
      ];
    },
    clean: [[202, 'succeeded'], [202, 'succeeded'], 32, 132],
    faulty: [[202, 'running'], [202, 'succeeded'], 32, 132],
  },
  {
    name: 'long-description-backup-task-unknown',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vms = (await call(s, 'GET', '/v1/vms?per_page=2', { token: t })).body.vms;
      return Promise.all(
        ['d'.repeat(65), 'd'.repeat(64)].map(async (description, i) => {
          const b = await call(s, 'POST', `/v1/vms/${vms[i]!.id}/backups`, { token: t, json: { description } });
          return [
            b.status,
            (await call(s, 'GET', `/v1/tasks/${b.body.task_id}`, { token: t })).status,
            (await call(s, 'GET', `/v1/backups/${b.body.backup_id}`, { token: t })).body.description?.length,
          ];
        })
      );
    },
    clean: [
      [202, 200, 65],
      [202, 200, 64],
    ],
    faulty: [
      [202, 404, 65],
      [202, 200, 64],
    ],
  },
];
