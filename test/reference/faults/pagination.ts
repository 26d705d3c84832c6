// Fault probes of the pagination checks' faults: each observation on a clean target and on one with only that fault.
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { call } from '../harness.ts';
import { tokenFor, register } from '../probes.ts';
import type { FaultCase } from './index.ts';

/** GET /v1/vms with this query: [status, items listed (undefined when refused), total]. */
async function listed(s: ReferenceSettings, t: string, query: string): Promise<[number, number | undefined, unknown]> {
  const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
  return [r.status, r.body?.vms?.length, r.body?.total];
}

/** The ids of a page of GET /v1/vms with this query. */
async function pageIds(s: ReferenceSettings, t: string, query: string): Promise<string[]> {
  const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
  return r.body.vms.map((v) => v.id);
}

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
  // The per_page cap past 200, on a later page, under a filter on a later page.
  {
    name: 'per-page-cap-ignored-above-200',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(['per_page=101', 'per_page=200', 'per_page=201', 'per_page=500'].map((q) => listed(s, t, q)));
    },
    clean: [
      [400, undefined, undefined],
      [400, undefined, undefined],
      [400, undefined, undefined],
      [400, undefined, undefined],
    ],
    faulty: [
      [400, undefined, undefined],
      [400, undefined, undefined],
      [200, 130, 130],
      [200, 130, 130],
    ],
  },
  {
    name: 'per-page-cap-skipped-on-later-pages',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        ['page=1&per_page=101', 'page=2&per_page=101', 'page=2&per_page=120&tag=env:prod'].map((q) => listed(s, t, q))
      );
    },
    clean: [
      [400, undefined, undefined],
      [400, undefined, undefined],
      [400, undefined, undefined],
    ],
    faulty: [
      [400, undefined, undefined],
      [200, 29, 130],
      [200, 0, 44],
    ],
  },
  {
    name: 'per-page-cap-skipped-with-filter-on-later-pages',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        ['page=2&per_page=101', 'page=1&per_page=101&tag=env:prod', 'page=2&per_page=101&tag=env:prod'].map((q) =>
          listed(s, t, q)
        )
      );
    },
    clean: [
      [400, undefined, undefined],
      [400, undefined, undefined],
      [400, undefined, undefined],
    ],
    faulty: [
      [400, undefined, undefined],
      [400, undefined, undefined],
      [200, 0, 44],
    ],
  },
  // Filtered lists page by page. Under vm-record-minimal list elements show no tags: each
  // VM of page 2 is read alone for its env tag.
  {
    name: 'tag-filter-later-pages-unfiltered',
    variants: ['vm-record-minimal'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const prodOn = async (query: string) => {
        const ids = await pageIds(s, t, query);
        const envs = await Promise.all(
          ids.map(async (id) => (await call(s, 'GET', `/v1/vms/${id}`, { token: t })).body.tags.env)
        );
        return [ids.length, envs.filter((e) => e === 'prod').length];
      };
      const total = (await call(s, 'GET', '/v1/vms?tag=env:prod&page=2&per_page=20', { token: t })).body.total;
      return [total, await prodOn('tag=env:prod&page=1&per_page=20'), await prodOn('tag=env:prod&page=2&per_page=20')];
    },
    clean: [44, [20, 20], [20, 20]],
    faulty: [44, [20, 20], [20, 7]],
  },
  {
    name: 'tag-filter-empty-later-pages-unfiltered',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        ['tag=team:gamma&page=1', 'tag=team:gamma&page=2', 'tag=team:gamma&page=3', 'tag=env:prod&page=3'].map((q) =>
          listed(s, t, q)
        )
      );
    },
    clean: [
      [200, 0, 0],
      [200, 0, 0],
      [200, 0, 0],
      [200, 4, 44],
    ],
    faulty: [
      [200, 0, 0],
      [200, 20, 0],
      [200, 20, 0],
      [200, 4, 44],
    ],
  },
  {
    name: 'tag-filter-page-boundary-duplicate',
    probe: async (s) => {
      const t = await tokenFor(s);
      const repeated = async (query: string) => {
        const [p1, p2] = [await pageIds(s, t, `${query}&page=1`), await pageIds(s, t, `${query}&page=2`)];
        return [p1.length, p2.length, p2.filter((id) => p1.includes(id)).length];
      };
      return [await repeated('tag=env:prod&per_page=10'), await repeated('per_page=10')];
    },
    clean: [
      [10, 10, 0],
      [10, 10, 0],
    ],
    faulty: [
      [10, 10, 1],
      [10, 10, 0],
    ],
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
