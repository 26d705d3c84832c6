// The reference target (not the suite): each variant of the second overlay changes only the choice it names.
import { afterAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import type { ReferenceSettings } from '../../fixtures/reference/server.ts';
import { VARIANTS, ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import { call, start, closeStarted } from './harness.ts';
import {
  tokenFor,
  sleep,
  until,
  colonTagFound,
  attemptsWhenHeld,
  withReceiver,
  sign,
  register,
  auditEntries,
  testDelivery,
  createVm,
  burst,
  count,
  issue,
  write,
  windowHalves,
} from './probes.ts';

afterAll(closeStarted);

const { Webhook: StandardWebhook } = createRequire(import.meta.url)(
  'standardwebhooks'
) as typeof import('standardwebhooks');

// Each variant of the second overlay makes one unshown choice differently from the default; the probe
// observes that choice on a default target and on one under the variant.
interface VariantCase {
  name: string;
  timeScale?: number;
  /** Variants both servers run under, where the variant shows only beside them. */
  beside?: string[];
  probe: (s: ReferenceSettings) => Promise<unknown>;
  byDefault: unknown;
  variant: unknown;
}

const variantCases: VariantCase[] = [
  {
    name: 'audit-csv-flat-columns',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/tasks/task-absent', { token: t });
      const r = await call(s, 'GET', '/v1/audit/export?format=csv&result=failure', { token: t });
      return r.text.split('\r\n')[0]!.split(',').slice(0, 3);
    },
    byDefault: ['id', 'time', 'actor'],
    variant: ['entry_id', 'time', 'actor_api_key_id'],
  },
  {
    name: 'issuance-audit-invisible',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      const paths = (await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).body.entries.map(
        (e: { path: string }) => e.path
      );
      return paths.includes('/v1/auth/tokens');
    },
    byDefault: true,
    variant: false,
  },
  {
    name: 'webhook-id-nested',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/webhooks', {
        token: await tokenFor(s),
        json: { url: 'http://127.0.0.1:9/h', events: ['backup.completed'] },
      });
      return [r.status, typeof r.body.id, typeof r.body.webhook?.id];
    },
    byDefault: [201, 'string', 'undefined'],
    variant: [201, 'undefined', 'string'],
  },
  {
    name: 'signature-wall-clock',
    beside: ['signature-timestamped'],
    timeScale: 5000,
    probe: async (s) => {
      // The target's clock runs 5000 times faster: a fifth of a second puts it a quarter of an hour ahead.
      await sleep(200);
      const d = (await testDelivery(s, 'k1'))!;
      const t = Number(/^t=(\d+),/.exec(String(d.headers['x-signature']))![1]);
      return Math.abs(t - Date.now() / 1000) < 60;
    },
    byDefault: false,
    variant: true,
  },
  {
    name: 'signature-timestamped',
    probe: async (s) => {
      const d = (await testDelivery(s, 'k1'))!;
      const h = String(d.headers['x-signature']);
      return /^t=\d+,v1=[0-9a-f]{64}$/.test(h) ? 't=,v1=' : h === sign('k1', d.body) ? 'sha256=' : h;
    },
    byDefault: 'sha256=',
    variant: 't=,v1=',
  },
  {
    name: 'retry-exponential',
    timeScale: 2000,
    probe: async (s) =>
      withReceiver(
        async (r) => {
          const t = await tokenFor(s);
          const w = await register(s, t, r.url + '/h', ['backup.completed']);
          await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
          await until(() => r.posts.length >= 5, 1500);
          await sleep(100);
          return r.posts.map((p) => p.headers['x-delivery-attempt']);
        },
        () => 503
      ),
    byDefault: ['1', '2', '3'],
    variant: ['1', '2', '3', '4', '5'],
  },
  {
    name: 'event-names-dotted',
    probe: async (s) => {
      const t = await tokenFor(s);
      const ok = async (events: string[]) =>
        (await call(s, 'POST', '/v1/webhooks', { token: t, json: { url: 'http://127.0.0.1:9/h', events } })).status;
      return [
        await ok(['backup.completed']),
        await ok(['backup.job.completed']),
        await ok(['backup.job.*']),
        await ok(['*']),
      ];
    },
    byDefault: [201, 400, 400, 400],
    variant: [400, 201, 201, 201],
  },
  {
    name: 'revoke-by-id',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const id = (await call(s, 'GET', '/v1/api-keys/current', { token: t })).body.id;
      return [
        (await call(s, 'DELETE', '/v1/api-keys/not-a-key', { token: t })).status,
        (await call(s, 'DELETE', `/v1/api-keys/${id}`, { token: t })).status,
      ];
    },
    byDefault: [404, 404],
    variant: [404, 200],
  },
  {
    name: 'audit-actor-object',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const [e] = await auditEntries(s, t, 'path_prefix=/v1/vms');
      return typeof e.actor;
    },
    byDefault: 'string',
    variant: 'object',
  },
  {
    name: 'audit-oldest-first',
    probe: async (s) => {
      const t = await tokenFor(s);
      await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
      return (await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path);
    },
    byDefault: ['/v1/vms/vm-nope', '/v1/vms'],
    variant: ['/v1/vms', '/v1/vms/vm-nope'],
  },
  {
    name: 'audit-export-jsonl',
    probe: async (s) => {
      const t = await tokenFor(s);
      const q = async (f: string) =>
        (await call(s, 'GET', `/v1/audit/export?format=${f}`, { token: t })).headers.get('content-type') ?? 'none';
      return [await q('json'), await q('jsonl'), await q('csv')];
    },
    byDefault: ['application/json; charset=utf-8', 'application/json; charset=utf-8', 'text/csv; charset=utf-8'],
    variant: ['application/json; charset=utf-8', 'application/x-ndjson; charset=utf-8', 'text/csv; charset=utf-8'],
  },
  {
    name: 'task-location-only',
    probe: async (s) => {
      const r = await createVm(s, await tokenFor(s));
      return [r.status, typeof r.body.task_id, /^\/v1\/tasks\/[^/]+$/.test(r.headers.get('location') ?? '')];
    },
    byDefault: [202, 'string', true],
    variant: [202, 'undefined', true],
  },
  {
    name: 'validation-422',
    probe: async (s) => {
      const t = await tokenFor(s);
      const bad = await call(s, 'POST', '/v1/vms', { token: t, raw: '{"name": ' });
      const invalid = await call(s, 'POST', '/v1/vms', { token: t, json: {} });
      return [bad.status, bad.body.error.code, invalid.status, invalid.body.error.code];
    },
    byDefault: [400, 'invalid_request', 400, 'invalid_request'],
    variant: [400, 'invalid_json', 422, 'validation_error'],
  },
  // The other rate-limit accounting, declared in the second overlay.
  {
    name: 'limit-refused-not-counted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return count(await burst(61, () => write(s, t)), 429);
    },
    byDefault: 1,
    variant: 0,
  },
  { name: 'limit-sliding-window', timeScale: 10, probe: windowHalves, byDefault: [30, 60], variant: [30, 30] },
  { name: 'tag-filter-key-last-colon', probe: colonTagFound, byDefault: 1, variant: 0 },
  // Held 3.5 s: within the default 5 s timeout, past the variant's 2 s.
  {
    name: 'delivery-timeout-2s',
    timeScale: 100,
    probe: (s) => attemptsWhenHeld(s, 3_500, 3_000),
    byDefault: 1,
    variant: 2,
  },
  {
    name: 'retry-after-real-seconds',
    timeScale: 20,
    probe: async (s) =>
      Number((await burst(11, () => issue(s))).find((r) => r.status === 429)!.headers.get('retry-after')) > 10,
    byDefault: true,
    variant: false,
  },
  {
    name: 'alarm-fires-on-sample',
    // By default the simulated cpu_utilization (50) fires an alarm at 10 within a virtual second; the variant waits for a sample.
    timeScale: 1000,
    probe: async (s) => {
      const t = await tokenFor(s);
      const vm = (await call(s, 'GET', '/v1/vms?per_page=1', { token: t })).body.vms[0].id;
      const json = { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold: 10 };
      const a = (await call(s, 'POST', '/v1/alarms', { token: t, json })).body.id;
      await new Promise((r) => setTimeout(r, 50));
      const before = (await call(s, 'GET', `/v1/alarms/${a}`, { token: t })).body.state;
      const push = { metric: 'cpu_utilization', value: 99 };
      const pushed = (await call(s, 'POST', `/v1/vms/${vm}/metrics`, { token: t, json: push })).status;
      return [before, pushed, (await call(s, 'GET', `/v1/alarms/${a}`, { token: t })).body.state];
    },
    byDefault: ['alarm', 404, 'alarm'],
    variant: ['ok', 202, 'alarm'],
  },
];

describe('variants of the second overlay', () => {
  it('cover every variant named in ALT_VARIANTS, each once, on its own dimension', () => {
    expect(variantCases.map((c) => c.name).sort()).toEqual([...ALT_VARIANTS].sort());
    expect(new Set(VARIANTS.filter((v) => ALT_VARIANTS.includes(v.name)).map((v) => v.dimension)).size).toBe(
      ALT_VARIANTS.length
    );
  });

  it.each(variantCases)(
    '$name changes only the described choice',
    async (c) => {
      const byDefault = await start({ timeScale: c.timeScale, variants: c.beside ?? [] });
      const variant = await start({ timeScale: c.timeScale, variants: [...(c.beside ?? []), c.name] });
      expect(await c.probe(byDefault)).toEqual(c.byDefault);
      expect(await c.probe(variant)).toEqual(c.variant);
    },
    30_000
  );

  it('signature-standard-webhooks: deliveries verify with the Standard Webhooks library; other secrets are refused', async () => {
    const s = await start({ variants: ['signature-standard-webhooks'] });
    const t = await tokenFor(s);
    expect(
      (
        await call(s, 'POST', '/v1/webhooks', {
          token: t,
          json: { url: 'http://127.0.0.1:9/h', events: ['backup.completed'], secret: 'plain' },
        })
      ).status
    ).toBe(400);
    const secret = 'whsec_' + Buffer.from('a standard webhooks secret, 32 b').toString('base64');
    const d = (await testDelivery(s, secret))!;
    const headers = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, String(v)]));
    // At time scale 1 the target's clock is this machine's, which the library judges freshness against.
    expect(new StandardWebhook(secret).verify(d.body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(() =>
      new StandardWebhook('whsec_' + Buffer.from('another secret of thirty-two b..').toString('base64')).verify(
        d.body,
        headers
      )
    ).toThrow();
  });
});
