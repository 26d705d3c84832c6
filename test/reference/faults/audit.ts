// Fault probes of the audit checks' faults: each observation on a clean target and on one with only that fault.
import { call, exportedEntries } from '../harness.ts';
import { tokenFor, auditEntries, parseCsv } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
  {
    name: 'audit-no-source-ip',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      const entries = await auditEntries(s, t);
      return [entries.length, [...new Set(entries.map((e) => e.source_ip))]];
    },
    clean: [2, ['127.0.0.1']],
    faulty: [2, [null]],
  },
  {
    name: 'audit-no-source-ip-on-writes',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      await call(s, 'POST', '/v1/vms', { token: t, json: {} });
      const entries = await auditEntries(s, t);
      return entries
        .filter((e) => e.path.startsWith('/v1/vms'))
        .map((e) => `${e.method} ${e.source_ip}`)
        .sort();
    },
    clean: ['GET 127.0.0.1', 'POST 127.0.0.1'],
    faulty: ['GET 127.0.0.1', 'POST null'],
  },
  {
    name: 'audit-missing-failures',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      await call(s, 'POST', '/v1/vms', { token: t, json: {} });
      await call(s, 'PATCH', '/v1/vms', { token: t });
      return (await auditEntries(s, t)).map((e) => e.status);
    },
    clean: [405, 400, 404, 200, 200],
    faulty: [200, 200],
  },
  {
    name: 'audit-filter-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      const failures = (await auditEntries(s, t, 'result=failure')).map((e) => e.status);
      const posts = (await auditEntries(s, t, 'method=POST')).map((e) => e.status);
      const exported = exportedEntries(await call(s, 'GET', '/v1/audit/export?result=failure', { token: t })).map(
        (e) => e.status
      );
      return [failures, posts, exported];
    },
    clean: [[404], [200], [404]],
    faulty: [[404, 200], [200], [404]],
  },
  {
    name: 'audit-actor-dropped-with-result',
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await tokenFor(s, s.apiKeyReadonly);
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope-readonly', { token: r });
      const actors = async (q: string) => new Set((await auditEntries(s, t, q)).map((e) => e.actor)).size;
      const me = (await auditEntries(s, t, 'result=failure')).find((e) => e.path === '/v1/vms/vm-nope')!.actor;
      return [await actors('result=failure'), await actors(`actor=${me}`), await actors(`actor=${me}&result=failure`)];
    },
    clean: [2, 1, 1],
    faulty: [2, 1, 2],
  },
  {
    name: 'audit-export-truncated',
    probe: async (s) => {
      const t = await tokenFor(s);
      for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const json = await call(s, 'GET', '/v1/audit/export?format=json', { token: t });
      const csv = await call(s, 'GET', '/v1/audit/export?format=csv', { token: t });
      // Whole: JSON parses and the CSV ends with a line end; cut: neither, and the answers still say 200.
      return [json.status, json.body !== undefined, csv.status, csv.text.endsWith('\r\n')];
    },
    clean: [200, true, 200, true],
    faulty: [200, false, 200, false],
  },
  {
    name: 'audit-csv-unescaped',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/a,b', { token: t });
      const rows = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t })).text);
      return rows.filter((r) => r.length > 1).map((r) => r.length === rows[0]!.length);
    },
    clean: [true, true],
    faulty: [true, false],
  },
  {
    name: 'audit-export-mismatch',
    probe: async (s) => {
      const t = await tokenFor(s);
      for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const search = (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.id);
      const json = exportedEntries(
        await call(s, 'GET', '/v1/audit/export?format=json&path_prefix=/v1/vms', { token: t })
      ).map((e) => e.id);
      const csv = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv&path_prefix=/v1/vms', { token: t })).text)
        .slice(1)
        .map((r) => r[0]);
      return [
        search.length,
        json.join() === search.join(),
        csv.join() === search.join(),
        json.join() === search.slice(1).join(),
        csv.join() === search.slice(1).join(),
      ];
    },
    clean: [3, true, true, false, false],
    faulty: [3, false, false, true, true],
  },
  // Designs of the second overlay, each under the variant whose design it breaks.
  {
    name: 'audit-jsonl-missing-entry',
    variants: ['audit-export-jsonl'],
    probe: async (s) => {
      const t = await tokenFor(s);
      for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const r = await call(s, 'GET', '/v1/audit/export?format=jsonl&path_prefix=/v1/vms', { token: t });
      return [
        r.headers.get('content-type'),
        r.text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).path),
      ];
    },
    clean: ['application/x-ndjson; charset=utf-8', ['/v1/vms', '/v1/vms', '/v1/vms']],
    faulty: ['application/x-ndjson; charset=utf-8', ['/v1/vms', '/v1/vms']],
  },
  {
    name: 'audit-order-reversed',
    variants: ['audit-oldest-first'],
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      return (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path);
    },
    clean: ['/v1/vms', '/v1/vms/vm-nope'],
    faulty: ['/v1/vms/vm-nope', '/v1/vms'],
  },
  {
    name: 'audit-actor-id-missing',
    variants: ['audit-actor-object'],
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const [e] = await auditEntries(s, t, 'path_prefix=/v1/vms');
      const actor = typeof e.actor === 'object' ? e.actor : undefined;
      return [actor?.type, typeof actor?.api_key_id];
    },
    clean: ['api_key', 'string'],
    faulty: ['api_key', 'undefined'],
  },
  // The faults of the fault model (spec/clauses.yaml faults:).
  {
    name: 'audit-csv-id-column-undeclared',
    variants: ['audit-csv-flat-columns'],
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const r = await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t });
      return r.text.split('\r\n')[0]!.split(',').slice(0, 3);
    },
    clean: ['entry_id', 'time', 'actor_api_key_id'],
    faulty: ['id', 'time', 'actor_api_key_id'],
  },
  {
    name: 'audit-window-ignored',
    variants: ['audit-window-since-until'],
    probe: async (s) => {
      const t = await tokenFor(s);
      const r = await call(s, 'GET', '/v1/audit?until=2000-01-01T00:00:00Z', { token: t });
      return r.body.total === 0;
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-method-filter-ignored',
    probe: async (s) => {
      const t = await tokenFor(s);
      const methods = (await call(s, 'GET', '/v1/audit?method=DELETE&per_page=100', { token: t })).body.entries.map(
        (e: { method: string }) => e.method
      );
      return methods.every((m: string) => m === 'DELETE');
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-skips-token-issuance',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return paths.includes('/v1/auth/tokens');
    },
    clean: true,
    faulty: false,
  },
  {
    name: 'audit-skips-alarms',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/alarms/al-absent', { token: t });
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return [paths.includes('/v1/alarms/al-absent'), paths.includes('/v1/tasks/task-absent')];
    },
    clean: [true, true],
    faulty: [false, true],
  },
];
