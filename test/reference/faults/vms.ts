// Fault probes of the vms checks' faults: each observation on a clean target and on one with only that fault.
import { expect } from 'vitest';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { call } from '../harness.ts';
import { tokenFor, colonTagFound, vmBody, createVm } from '../probes.ts';
import type { FaultCase } from './index.ts';

/** The create-VM body of vmBody without one field. */
function without(s: ReferenceSettings, field: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(vmBody(s)).filter(([k]) => k !== field));
}

/**
 * Creates side by side where the organization has room for one more VM (variant vm-quota-low: 2 more than seeded, one
 * made first): [more than one taken, every refusal 403 quota_exceeded]. A quota held under concurrency takes one.
 */
async function sideBySideWithRoomForOne(s: ReferenceSettings, n: number): Promise<[boolean, boolean]> {
  const t = await tokenFor(s);
  expect((await createVm(s, t)).status).toBe(202);
  const rs = await Promise.all(Array.from({ length: n }, () => createVm(s, t)));
  const refused = rs.filter((r) => r.status !== 202);
  return [
    rs.length - refused.length > 1,
    refused.every((r) => r.status === 403 && r.body.error?.code === 'quota_exceeded'),
  ];
}

function nameStatuses(s: ReferenceSettings, t: string, names: string[]): Promise<number[]> {
  return Promise.all(
    names.map(async (name) => (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name }) })).status)
  );
}

export const faults: FaultCase[] = [
  {
    name: 'paging-not-integer-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      const q = async (query: string) => {
        const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
        return r.status === 200 ? r.body.vms.length : r.status;
      };
      return [
        await q('per_page=abc'),
        await q('per_page=1.5'),
        await q('page=abc&per_page=3'),
        await q('per_page=2'),
        await q('per_page=101'),
      ];
    },
    clean: [400, 400, 400, 2, 400],
    faulty: [20, 20, 3, 2, 400],
  },
  {
    name: 'trailing-json-accepted',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          raw: `${JSON.stringify(vmBody(s))} {"name": "second"}`,
        })
      ).status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'unknown-image-accepted',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: vmBody(s, { image: 'no-such-image' }) }))
        .status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'page-size-off-51-99',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?per_page=60', { token: t })).body.vms.length,
        (await call(s, 'GET', '/v1/vms?per_page=50', { token: t })).body.vms.length,
      ];
    },
    clean: [60, 50],
    faulty: [61, 50],
  },
  {
    name: 'vcpus-over-1-refused',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: { ...vmBody(s), vcpus: 2 } })).status,
    clean: 202,
    faulty: 400,
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
    name: 'vm-name-lowercased',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name: 'Mixed.Case-Name' } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.name;
    },
    clean: 'Mixed.Case-Name',
    faulty: 'mixed.case-name',
  },
  {
    name: 'vm-vcpus-clamped-16',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), vcpus: 32 } });
      return [c.status, (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.vcpus];
    },
    clean: [202, 32],
    faulty: [202, 16],
  },
  {
    name: 'vm-name-beyond-ascii-mangled',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name: 'Zürich-é' } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.name;
    },
    clean: 'Zürich-é',
    faulty: 'ZÃ¼rich-Ã©',
  },
  {
    name: 'list-name-cut-32',
    probe: async (s) => {
      const t = await tokenFor(s);
      const name = 'a-name-of-forty-characters-xxxxxxxxxxxxx';
      await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), name } });
      const lengths: number[] = [];
      for (let page = 1; page <= 50 && lengths.length === 0; page++) {
        const vms = (await call(s, 'GET', `/v1/vms?per_page=100&page=${page}`, { token: t })).body.vms as Array<{
          name: string;
        }>;
        if (vms.length === 0) break;
        lengths.push(
          ...vms
            .map((v) => v.name)
            .filter((n) => n.startsWith('a-name-of-forty'))
            .map((n) => n.length)
        );
      }
      return lengths;
    },
    clean: [40],
    faulty: [32],
  },
  {
    name: 'create-memory-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), memory_gb: 8 } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.memory_gb;
    },
    clean: 8,
    faulty: 1,
  },
  {
    name: 'memory-shown-in-mib',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), memory_gb: 4 } });
      return (await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.memory_gb;
    },
    clean: 4,
    faulty: 4096,
  },
  {
    name: 'create-tags-partly-dropped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const c = await call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), tags: { a: '1', b: '2' } } });
      return Object.keys((await call(s, 'GET', `/v1/vms/${c.body.vm_id}`, { token: t })).body.tags);
    },
    clean: ['a', 'b'],
    faulty: ['a'],
  },
  {
    name: 'quota-one-over-declared',
    variants: ['vm-quota-low'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await createVm(s, t)).status);
      return statuses;
    },
    clean: [202, 202, 403, 403],
    faulty: [202, 202, 202, 403],
  },
  {
    name: 'quota-code-other',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await createVm(s, t);
        statuses.push(r.status === 202 ? 202 : `${r.status} ${r.body.error.code}`);
      }
      return statuses;
    },
    clean: [202, 202, 202],
    faulty: [202, 202, '403 limit_exceeded'],
  },
  {
    // 600 vCPUs beyond the seeded VMs': 18 VMs of 32 fit (576), the 19th does not.
    name: 'vcpu-quota-code-other',
    probe: async (s) => {
      const t = await tokenFor(s);
      const answers: unknown[] = [];
      for (let i = 0; i < 19; i++) {
        const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus: 32 }) });
        answers.push(r.status === 202 ? 202 : `${r.status} ${r.body.error.code}`);
      }
      return [answers[17], answers[18]];
    },
    clean: [202, 202],
    faulty: [202, '403 limit_exceeded'],
  },
  {
    name: 'quota-429-resource-exhausted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await createVm(s, t);
        statuses.push(
          r.status === 202
            ? 202
            : `${r.status} ${r.body.error.code} ${r.headers.get('retry-after') ?? 'no Retry-After'}`
        );
      }
      return statuses;
    },
    clean: [202, 202, 202],
    faulty: [202, 202, '429 resource_exhausted no Retry-After'],
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
      return [all.body.total, all.body.vms.some((v) => v.id === r.body.vm_id)];
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
    name: 'warm-pool-sizes-no-task',
    probe: async (s) => {
      const t = await tokenFor(s);
      const sized = (vcpus: number, memory_gb: number) =>
        call(s, 'POST', '/v1/vms', { token: t, json: { ...vmBody(s), vcpus, memory_gb } });
      const [small, pooled] = [await sized(1, 1), await sized(2, 4)];
      return [small.status, typeof small.body.task_id, pooled.status, typeof pooled.body.task_id];
    },
    clean: [202, 'string', 202, 'string'],
    faulty: [202, 'string', 201, 'undefined'],
  },
  {
    name: 'tag-filter-total-unfiltered',
    probe: async (s) => {
      const r = await call(s, 'GET', `/v1/vms?per_page=5&tag=${encodeURIComponent('env:prod')}`, {
        token: await tokenFor(s),
      });
      return [r.body.vms.length, r.body.total];
    },
    clean: [5, 44],
    faulty: [5, 130],
  },
  {
    name: 'fraction-vcpus-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses = await Promise.all(
        [1.5, '2', null].map(async (vcpus) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) }))
      );
      const created =
        statuses[0].status === 202
          ? (await call(s, 'GET', `/v1/vms/${statuses[0].body.vm_id}`, { token: t })).body.vcpus
          : undefined;
      return [...statuses.map((r) => r.status), created];
    },
    clean: [400, 400, 400, undefined],
    faulty: [202, 400, 400, 1],
  },
  {
    name: 'negative-vcpus-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const statuses = await Promise.all(
        [0, -3, 65].map(async (vcpus) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) }))
      );
      const created =
        statuses[1].status === 202
          ? (await call(s, 'GET', `/v1/vms/${statuses[1].body.vm_id}`, { token: t })).body.vcpus
          : undefined;
      return [...statuses.map((r) => r.status), created];
    },
    clean: [400, 400, 400, undefined],
    faulty: [202, 202, 400, -3],
  },
  {
    name: 'long-name-500',
    probe: async (s) =>
      nameStatuses(s, await tokenFor(s), [
        'x'.repeat(64),
        'x'.repeat(200),
        'x'.repeat(201),
        'é'.repeat(150),
        '\u{1F600}'.repeat(150),
      ]),
    clean: [400, 400, 400, 400, 400],
    faulty: [400, 400, 500, 400, 400],
  },
  {
    name: 'unicode-name-500',
    probe: async (s) =>
      nameStatuses(s, await tokenFor(s), [
        'vm-\u{1F600}',
        'vm-\u{10348}x',
        'vm-é中\uFFFD',
        'vm-' + '\u{1F600}'.repeat(40),
      ]),
    clean: [202, 202, 202, 400],
    faulty: [500, 500, 202, 500],
  },
  {
    name: 'numeric-ids-some-records',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = [(await createVm(s, t)).body.vm_id, (await createVm(s, t)).body.vm_id];
      // Under this fault a record's id may be a number.
      const l: Array<{ name: string; id: string | number }> = (
        await call(s, 'GET', '/v1/vms?per_page=100&page=2', { token: t })
      ).body.vms;
      const seeded = [...new Set(l.filter((v) => v.name !== 'test-vm').map((v) => typeof v.id))];
      const api = l.filter((v) => v.name === 'test-vm');
      const numericEven = api
        .filter((v): v is { name: string; id: number } => typeof v.id === 'number')
        .every((v) => v.id % 2 === 0);
      const ids = api.map((v) => (typeof v.id === 'number' ? `vm-${v.id}` : v.id)).sort();
      const single = await Promise.all(
        created.map(async (id) => typeof (await call(s, 'GET', `/v1/vms/${id}`, { token: t })).body.id)
      );
      return [
        seeded,
        api.map((v) => typeof v.id).sort(),
        numericEven,
        ids.join() === [...created].sort().join(),
        single,
      ];
    },
    clean: [['string'], ['string', 'string'], true, true, ['string', 'string']],
    faulty: [['string'], ['number', 'string'], true, true, ['string', 'string']],
  },
  {
    name: 'tag-filter-space-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      expect(
        (await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { env: 'blue green' } }) })).status
      ).toBe(202);
      const q = async (query: string) => {
        const r = await call(s, 'GET', `/v1/vms?${query}`, { token: t });
        return r.status === 200 ? r.body.total : r.status;
      };
      return [
        await q('tag=env:blue%20green'),
        await q('tag=env:blue+green'),
        await q('tag=env:prod'),
        await q('tag=env%20prod'),
      ];
    },
    clean: [1, 1, 44, 400],
    faulty: [131, 131, 44, 400],
  },
  // A VM tagged kk=a:b is found by kk:a:b only where the key ends at the first colon.
  { name: 'tag-key-split-at-last-colon', probe: colonTagFound, clean: 1, faulty: 0 },
  // The faults of the fault model (spec/clauses.yaml faults:).
  {
    name: 'create-in-default-org',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyB);
      const r = await call(s, 'POST', '/v1/vms', {
        token: t,
        json: vmBody(s, { name: 'org-b-vm', subnet_id: s.subnetIdB }),
      });
      const listed = (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).body.vms.some(
        (v: { name: string }) => v.name === 'org-b-vm'
      );
      return [r.status, listed];
    },
    clean: [202, true],
    faulty: [202, false],
  },
  {
    name: 'tag-filter-case-sensitive',
    variants: ['tag-filter-case-insensitive'],
    probe: async (s) =>
      (await call(s, 'GET', '/v1/vms?tag=env:PROD&per_page=1', { token: await tokenFor(s) })).body.total > 0,
    clean: true,
    faulty: false,
  },
  {
    name: 'tag-filter-repeated-first',
    variants: ['tag-filter-repeated-all'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const one = (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=1', { token: t })).body.total;
      return (await call(s, 'GET', '/v1/vms?tag=env:prod&tag=team:alpha&per_page=1', { token: t })).body.total < one;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'tag-filter-cross-org',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=100', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms', { token: t })).body.total,
      ];
    },
    clean: [44, 130],
    faulty: [45, 130],
  },
  {
    name: 'tag-filter-prefix-match',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:pro', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [44, 44],
  },
  {
    name: 'tag-filter-value-any-key',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=other:prod', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [44, 44],
  },
  {
    name: 'tag-filter-key-any-value',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', '/v1/vms?tag=env:other', { token: t })).body.total,
        (await call(s, 'GET', '/v1/vms?tag=env:prod', { token: t })).body.total,
      ];
    },
    clean: [0, 44],
    faulty: [130, 130],
  },
  {
    name: 'list-name-null-some',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vms = (await call(s, 'GET', '/v1/vms?per_page=100', { token: t })).body.vms as Array<{
        id: string;
        name: unknown;
      }>;
      return [
        vms.filter((v) => v.name === null).length,
        (await call(s, 'GET', `/v1/vms/${vms[6]!.id}`, { token: t })).body.name,
      ];
    },
    clean: [0, 'seed-vm-007'],
    faulty: [15, 'seed-vm-007'],
  },
  {
    name: 'task-id-not-pollable',
    probe: async (s) => {
      const t = await tokenFor(s);
      const created = await createVm(s, t);
      return [
        created.status,
        created.body.task_id === created.body.vm_id,
        (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: t })).status,
      ];
    },
    clean: [202, false, 200],
    faulty: [202, true, 404],
  },
  // Every accepted create held to the whole task contract.
  {
    name: 'create-without-disk-500',
    probe: async (s) => {
      const t = await tokenFor(s);
      const bodies = [without(s, 'system_disk_gb'), without(s, 'name'), without(s, 'image'), vmBody(s)];
      return Promise.all(bodies.map(async (json) => (await call(s, 'POST', '/v1/vms', { token: t, json })).status));
    },
    clean: [400, 400, 400, 202],
    faulty: [500, 400, 400, 202],
  },
  {
    name: 'warm-pool-default-disk-no-task',
    probe: async (s) => {
      const t = await tokenFor(s);
      const bodies = [without(s, 'system_disk_gb'), { ...vmBody(s), system_disk_gb: null }, vmBody(s)];
      return Promise.all(
        bodies.map(async (json) => {
          const r = await call(s, 'POST', '/v1/vms', { token: t, json });
          return [r.status, typeof r.body.task_id, typeof r.body.id];
        })
      );
    },
    clean: [
      [400, 'undefined', 'undefined'],
      [400, 'undefined', 'undefined'],
      [202, 'string', 'undefined'],
    ],
    faulty: [
      [201, 'undefined', 'string'],
      [201, 'undefined', 'string'],
      [202, 'string', 'undefined'],
    ],
  },
  {
    name: 'large-task-id-unknown',
    probe: async (s) => {
      const t = await tokenFor(s);
      return Promise.all(
        [32, 2].map(async (vcpus) => {
          const r = await call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { vcpus }) });
          return [
            r.status,
            (await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).status,
            (await call(s, 'GET', `/v1/vms/${r.body.vm_id}`, { token: t })).body.vcpus,
          ];
        })
      );
    },
    clean: [
      [202, 200, 32],
      [202, 200, 2],
    ],
    faulty: [
      [202, 404, 32],
      [202, 200, 2],
    ],
  },
  {
    name: 'second-org-create-no-task',
    probe: async (s) => {
      const created = async (key: string, subnet_id: string) => {
        const r = await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s, key),
          json: vmBody(s, { subnet_id }),
        });
        return [r.status, typeof r.body.task_id, r.body.name ?? null];
      };
      return [await created(s.apiKey, s.subnetId), await created(s.apiKeyB, s.subnetIdB)];
    },
    clean: [
      [202, 'string', null],
      [202, 'string', null],
    ],
    faulty: [
      [202, 'string', null],
      [201, 'undefined', 'test-vm'],
    ],
  },
  {
    name: 'task-id-number',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await createVm(s, t);
      return [
        r.status,
        typeof r.body.task_id,
        r.headers.get('location') === `/v1/tasks/${r.body.task_id}`,
        (await call(s, 'GET', `/v1/tasks/${r.body.task_id}`, { token: t })).status,
      ];
    },
    clean: [202, 'string', true, 200],
    faulty: [202, 'number', true, 200],
  },
  // Name and tag value classes one at a time.
  {
    name: 'vm-name-plain-lowercased',
    probe: async (s) => {
      const t = await tokenFor(s);
      const rs = await Promise.all(
        ['Mixed-Case-1', 'dotted.name', 'Zürich'].map((name) =>
          call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { name }) })
        )
      );
      return [rs.map((r) => r.status), (await call(s, 'GET', `/v1/vms/${rs[0]!.body.vm_id}`, { token: t })).body.name];
    },
    clean: [[202, 202, 202], 'Mixed-Case-1'],
    faulty: [[202, 400, 400], 'mixed-case-1'],
  },
  {
    name: 'tag-filter-beyond-ascii-unmatched',
    probe: async (s) => {
      const t = await tokenFor(s);
      const made = await Promise.all(
        ['Zürich', 'Bern'].map((city) => call(s, 'POST', '/v1/vms', { token: t, json: vmBody(s, { tags: { city } }) }))
      );
      const found = async (city: string) =>
        (await call(s, 'GET', `/v1/vms?tag=${encodeURIComponent(`city:${city}`)}`, { token: t })).body.total;
      return [
        await found('Zürich'),
        await found('Bern'),
        (await call(s, 'GET', `/v1/vms/${made[0]!.body.vm_id}`, { token: t })).body.tags.city,
      ];
    },
    clean: [1, 1, 'Zürich'],
    faulty: [0, 1, 'Zürich'],
  },
  // Tags kept under another name: a VM of the second organization labelled as the filter asks.
  {
    name: 'tag-filter-cross-org-labels',
    variants: ['tags-as-labels'],
    probe: async (s) => {
      const [t, tb] = [await tokenFor(s), await tokenFor(s, s.apiKeyB)];
      const b = await call(s, 'POST', '/v1/vms', {
        token: tb,
        json: vmBody(s, { subnet_id: s.subnetIdB, labels: { probe: 'cross-org' } }),
      });
      const filtered = (await call(s, 'GET', '/v1/vms?tag=probe:cross-org', { token: t })).body;
      return [
        b.status,
        filtered.total,
        filtered.vms.map((v) => v.id === b.body.vm_id),
        (await call(s, 'GET', '/v1/vms?tag=probe:cross-org', { token: tb })).body.total,
        (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.total,
      ];
    },
    clean: [202, 0, [], 1, 130],
    faulty: [202, 1, [true], 1, 130],
  },
  // Quota evidence under creates side by side: the clean quota takes one where there is room for one.
  {
    name: 'quota-check-race',
    variants: ['vm-quota-low'],
    probe: (s) => sideBySideWithRoomForOne(s, 4),
    clean: [false, true],
    faulty: [true, true],
  },
  {
    name: 'quota-counts-finished-only',
    variants: ['vm-quota-low'],
    probe: (s) => sideBySideWithRoomForOne(s, 4),
    clean: [false, true],
    faulty: [true, true],
  },
  {
    name: 'quota-code-busy-delete',
    probe: async (s) => {
      const t = await tokenFor(s);
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await createVm(s, t));
      // Provisioning lasts 60 target-seconds under the fault (a real minute at time scale 1): the first VM still is.
      const del = await call(s, 'DELETE', `/v1/vms/${made[0]!.body.vm_id}`, { token: t });
      return [made.map((m) => m.status), made[2]!.body.error?.code ?? null, del.status, del.body.error?.code ?? null];
    },
    clean: [[202, 202, 202], null, 202, null],
    faulty: [[202, 202, 409], 'vm_limit_reached', 409, 'invalid_state'],
  },
];
