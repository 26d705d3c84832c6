// Fault probes of the pagination checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, register } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
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
  // The faults of the fault model (spec/clauses.yaml faults:).
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
];
