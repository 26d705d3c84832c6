// Fault probes of the faults on operations beyond the document (a VM's delete and read), which the suite reaches through
// its registry of served operations: each module of a group takes its own (the group of the check each must fail).
import { expect } from 'vitest';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { call, type Res } from '../harness.ts';
import type { FaultCase } from './index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tokenFor(s: ReferenceSettings): Promise<string> {
  const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
  expect(r.status).toBe(200);
  return r.body.token;
}

async function firstVm(s: ReferenceSettings, t: string): Promise<string> {
  return (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0]!.id;
}

/** The token with one character of its signature changed. */
function tamper(token: string): string {
  const [h, p, sig] = token.split('.') as [string, string, string];
  const i = Math.floor(sig.length / 2);
  return `${h}.${p}.${sig.slice(0, i)}${sig[i] === 'A' ? 'B' : 'A'}${sig.slice(i + 1)}`;
}

const burst = (n: number, send: () => Promise<Res>): Promise<Res[]> => Promise.all(Array.from({ length: n }, send));
const count = (rs: Res[], status: number) => rs.filter((r) => r.status === status).length;
/** A write that creates nothing (an empty create, refused 400), to see whether the write budget is spent. */
const emptyCreate = (s: ReferenceSettings, t: string) => call(s, 'POST', '/v1/vms', { token: t, json: {} });

/** The faults on operations the document does not show, which the registry of served operations reaches. */
const servedOperationFaults: FaultCase[] = [
  {
    name: 'expired-token-accepted-on-vm-delete',
    timeScale: 36_000, // one virtual hour = 100 ms
    probe: async (s) => {
      const t = await tokenFor(s);
      await sleep(150);
      return [
        (await call(s, 'DELETE', '/v1/vms/cc-absent', { token: t })).status,
        (await call(s, 'DELETE', '/v1/backups/cc-absent', { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401, 401],
    faulty: [404, 401, 401],
  },
  {
    name: 'tampered-token-accepted-on-vm-delete',
    probe: async (s) => {
      const t = tamper(await tokenFor(s));
      return [
        (await call(s, 'DELETE', '/v1/vms/cc-absent', { token: t })).status,
        (await call(s, 'DELETE', '/v1/backups/cc-absent', { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401, 401],
    faulty: [404, 401, 401],
  },
  {
    name: 'vm-delete-without-auth',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return [
        (await call(s, 'DELETE', '/v1/vms/cc-absent')).status,
        (await call(s, 'DELETE', `/v1/vms/${vm}`)).status,
        (await call(s, 'GET', `/v1/vms/${vm}`)).status,
      ];
    },
    clean: [401, 401, 401],
    faulty: [401, 202, 401],
  },
  {
    name: 'vm-delete-not-counted-as-write',
    probe: async (s) => {
      const t = await tokenFor(s);
      const deletes = await burst(60, () => call(s, 'DELETE', '/v1/vms/cc-absent', { token: t }));
      return [count(deletes, 404), (await emptyCreate(s, t)).status];
    },
    clean: [60, 429],
    faulty: [60, 400],
  },
  {
    name: 'vm-read-charged-as-write',
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = await firstVm(s, t);
      const reads = await burst(60, () => call(s, 'GET', `/v1/vms/${vm}`, { token: t }));
      return [count(reads, 200), (await emptyCreate(s, t)).status];
    },
    clean: [60, 400],
    faulty: [60, 429],
  },
  {
    name: 'head-charged-as-write',
    probe: async (s) => {
      const t = await tokenFor(s);
      const heads = await burst(60, () => call(s, 'HEAD', '/v1/vms?per_page=1', { token: t }));
      return [count(heads, 200), (await emptyCreate(s, t)).status];
    },
    clean: [60, 400],
    faulty: [60, 429],
  },
  {
    name: 'vm-delete-404-unwrapped',
    probe: async (s) => {
      const t = await tokenFor(s);
      const del = await call(s, 'DELETE', '/v1/vms/cc-absent', { token: t });
      const read = await call(s, 'GET', '/v1/vms/cc-absent', { token: t });
      return [del.status, del.body.error?.code ?? del.text, read.body.error.code];
    },
    clean: [404, 'not_found', 'not_found'],
    faulty: [404, '{"detail":"Not Found"}', 'not_found'],
  },
];

/** The cases of these faults, in the order named. */
export function servedOperationCases(...names: string[]): FaultCase[] {
  return names.map((n) => servedOperationFaults.find((c) => c.name === n)!);
}
