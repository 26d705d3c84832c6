// The reference target (not the suite): listing and pagination, and the faults of the pagination checks.
import { afterAll, describe, expect, it } from 'vitest';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('listing and pagination', () => {
  it('pages, filters by tag and rejects bad parameters', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const first = await call(s, 'GET', '/v1/vms', { token: t });
    expect(first.body).toMatchObject({ total: 130, page: 1, per_page: 20 });
    expect(first.body.vms).toHaveLength(20);
    expect(first.body.vms[0]).toMatchObject({ name: 'seed-vm-001', status: 'running' });
    const seen: string[] = [];
    for (let page = 1; page <= 2; page++) {
      const r = await call(s, 'GET', `/v1/vms?per_page=100&page=${page}`, { token: t });
      seen.push(...r.body.vms.map((v) => v.id));
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);
    const prod = await call(s, 'GET', '/v1/vms?tag=env:prod&per_page=100', { token: t });
    expect(prod.body.total).toBe(44);
    expect(prod.body.vms.every((v) => v.tags.env === 'prod')).toBe(true);
    expect((await call(s, 'GET', '/v1/vms?tag=team:gamma', { token: t })).body.total).toBe(0);
    for (const q of ['per_page=101', 'per_page=0', 'per_page=abc', 'page=0', 'page=-1', 'page=1.5', 'tag=envprod']) {
      const r = await call(s, 'GET', `/v1/vms?${q}`, { token: t });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    const beyond = await call(s, 'GET', '/v1/vms?page=99', { token: t });
    expect(beyond.body).toMatchObject({ vms: [], total: 130 });
    const tb = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', '/v1/vms', { token: tb })).body.total).toBe(3);
  });
});

describeFaults('pagination');
