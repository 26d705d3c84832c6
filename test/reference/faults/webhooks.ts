// Fault probes of the webhooks checks' faults: each observation on a clean target and on one with only that fault.
import { expect } from 'vitest';
import { createHmac } from 'node:crypto';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { call } from '../harness.ts';
import {
  tokenFor,
  sleep,
  until,
  attemptsWhenHeld,
  withReceiver,
  sign,
  firstVm,
  register,
  alarm,
  testDelivery,
} from '../probes.ts';
import type { FaultCase } from './index.ts';

const hmacHex = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

/** [signed, signature verifies with the registered secret, webhook without secret signed]. */
function signatureProbe(s: ReferenceSettings): Promise<unknown> {
  return withReceiver(async (rcv) => {
    const t = await tokenFor(s);
    await register(s, t, `${rcv.url}/secret`, ['alarm.triggered'], 'shh');
    await register(s, t, `${rcv.url}/plain`, ['alarm.triggered']);
    await alarm(s, t);
    await until(() => rcv.posts.length >= 2);
    const withSecret = rcv.posts.find((p) => p.path === '/secret')!;
    const plain = rcv.posts.find((p) => p.path === '/plain')!;
    return [
      withSecret.headers['x-signature'] !== undefined,
      withSecret.headers['x-signature'] === sign('shh', withSecret.body),
      plain.headers['x-signature'] !== undefined,
    ];
  });
}

export const faults: FaultCase[] = [
  {
    name: 'webhook-registration-refused',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/webhooks', {
          token: await tokenFor(s),
          json: { url: 'http://127.0.0.1:9/hook', events: ['backup.completed'] },
        })
      ).status,
    clean: 201,
    faulty: 500,
  },
  // Held 7 s, past the 5 s timeout: retried by the clean target, taken as delivered by the fault.
  {
    name: 'delivery-timeout-ignored',
    timeScale: 100,
    probe: (s) => attemptsWhenHeld(s, 7_000, 6_500),
    clean: 2,
    faulty: 1,
  },
  {
    name: 'webhook-not-delivered',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['backup.completed', 'backup.failed', 'alarm.triggered']);
        const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
        await alarm(s, t);
        await until(() => rcv.posts.length >= 2, 1000);
        await sleep(100);
        const task = await call(s, 'GET', `/v1/tasks/${b.body.task_id}`, { token: t });
        return [rcv.posts.map((p) => JSON.parse(p.body).type).sort(), task.body.status];
      }),
    clean: [['alarm.triggered', 'backup.completed'], 'succeeded'],
    faulty: [['alarm.triggered'], 'succeeded'],
  },
  {
    name: 'backup-event-outcome-swapped',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['backup.completed', 'backup.failed']);
        const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
        await until(() => rcv.posts.length >= 1, 1000);
        await sleep(100);
        const task = await call(s, 'GET', `/v1/tasks/${b.body.task_id}`, { token: t });
        return [rcv.posts.map((p) => JSON.parse(p.body).type), task.body.status];
      }),
    clean: [['backup.completed'], 'succeeded'],
    faulty: [['backup.failed'], 'succeeded'],
  },
  {
    name: 'webhook-unsigned',
    timeScale: 100,
    probe: signatureProbe,
    clean: [true, true, false],
    faulty: [false, false, false],
  },
  {
    name: 'webhook-wrong-signature',
    timeScale: 100,
    probe: signatureProbe,
    clean: [true, true, false],
    faulty: [true, false, false],
  },
  {
    name: 'webhook-not-json',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered'], 'k');
        await alarm(s, t);
        await until(() => rcv.posts.length >= 1);
        const p = rcv.posts[0]!;
        let type: unknown;
        try {
          type = JSON.parse(p.body).type;
        } catch {
          type = null;
        }
        const form = /^type=alarm\.triggered&id=(evt-[0-9a-f]+)$/.exec(p.body);
        return [
          p.headers['content-type'],
          type,
          form?.[1] === p.headers['x-event-id'],
          p.headers['x-event-type'],
          p.headers['x-signature'] === sign('k', p.body),
        ];
      }),
    clean: ['application/json', 'alarm.triggered', false, 'alarm.triggered', true],
    faulty: ['text/plain', null, true, 'alarm.triggered', true],
  },
  {
    name: 'webhook-not-retried',
    timeScale: 100,
    probe: (s) =>
      withReceiver(
        async (rcv) => {
          const t = await tokenFor(s);
          await register(s, t, rcv.url, ['alarm.triggered']);
          await alarm(s, t);
          await until(() => rcv.posts.length >= 2, 1000);
          await sleep(100);
          return rcv.posts.map((p) => p.headers['x-delivery-attempt']);
        },
        (_p, n) => (n === 1 ? 503 : 204)
      ),
    clean: ['1', '2'],
    faulty: ['1'],
  },
  {
    name: 'webhook-redelivers-acknowledged',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        await alarm(s, t);
        await until(() => rcv.posts.length >= 1, 1000);
        // The first retry delay (1 target-second) is 10 real ms at scale 100: a redelivery has come by now.
        await sleep(200);
        return rcv.posts.map((p) => p.headers['x-delivery-attempt']);
      }),
    clean: ['1'],
    faulty: ['1', '2'],
  },
  {
    name: 'webhook-delete-ignored',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        const gone = await register(s, t, `${rcv.url}/gone`, ['alarm.triggered']);
        await register(s, t, `${rcv.url}/kept`, ['alarm.triggered']);
        const d = await call(s, 'DELETE', `/v1/webhooks/${gone.body.id}`, { token: t });
        await alarm(s, t);
        await until(() => rcv.posts.length >= 2, 1000);
        await sleep(100);
        const listed = (await call(s, 'GET', '/v1/webhooks', { token: t })).body.total;
        return [d.status, listed, rcv.posts.map((p) => p.path).sort()];
      }),
    clean: [200, 1, ['/kept']],
    faulty: [200, 1, ['/gone', '/kept']],
  },
  // Designs of the second overlay, each under the variant whose design it breaks.
  {
    name: 'signature-timestamp-unsigned',
    variants: ['signature-timestamped'],
    probe: async (s) => {
      const d = (await testDelivery(s, 'k1'))!;
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
      return [m !== null, m[2] === hmacHex('k1', `${m[1]}.${d.body}`), m[2] === hmacHex('k1', d.body)];
    },
    clean: [true, true, false],
    faulty: [true, false, true],
  },
  {
    name: 'signature-timestamp-stale',
    variants: ['signature-timestamped'],
    probe: async (s) => {
      const d = (await testDelivery(s, 'k1'))!;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
      return [v1 === hmacHex('k1', `${t}.${d.body}`), Math.abs(Number(t) - d.date / 1000) < 60];
    },
    clean: [true, true],
    faulty: [true, false],
  },
  {
    name: 'signature-wall-clock-stale',
    variants: ['signature-timestamped', 'signature-wall-clock'],
    probe: async (s) => {
      const d = (await testDelivery(s, 'k1'))!;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(d.headers['x-signature']))!;
      return [v1 === hmacHex('k1', `${t}.${d.body}`), Math.abs(Number(t) - Date.now() / 1000) < 60];
    },
    clean: [true, true],
    faulty: [true, false],
  },
  {
    name: 'retry-schedule-short',
    variants: ['retry-exponential'],
    timeScale: 2000,
    probe: async (s) =>
      withReceiver(
        async (r) => {
          const t = await tokenFor(s);
          const w = await register(s, t, r.url + '/h', ['backup.completed']);
          await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
          await until(() => r.posts.length >= 5, 1500);
          await sleep(100);
          return r.posts.length;
        },
        () => 503
      ),
    clean: 5,
    faulty: 2,
  },
  {
    name: 'event-id-header-per-attempt',
    variants: ['delivery-id-per-attempt'],
    timeScale: 100,
    probe: async (s) =>
      withReceiver(
        async (r) => {
          const t = await tokenFor(s);
          const w = await register(s, t, r.url + '/h', ['backup.completed']);
          await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t });
          await until(() => r.posts.length >= 2, 1500);
          return r.posts[0]!.headers['x-hook-event'] === r.posts[1]!.headers['x-hook-event'];
        },
        (_p, n) => (n === 1 ? 503 : 204)
      ),
    clean: true,
    faulty: false,
  },
  {
    name: 'restore-event-missing',
    variants: ['events-on-restore'],
    timeScale: 100,
    probe: async (s) =>
      withReceiver(async (r) => {
        const t = await tokenFor(s);
        await register(s, t, r.url + '/h', ['backup.completed', 'backup.failed']);
        const backup = (
          await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: { description: 'x' } })
        ).body.backup_id;
        for (
          let i = 0;
          i < 300 && (await call(s, 'GET', `/v1/backups/${backup}`, { token: t })).body.status !== 'available';
          i++
        )
          await sleep(10);
        await call(s, 'POST', `/v1/backups/${backup}/restore`, { token: t, json: {} });
        await until(() => r.posts.length >= 2, 1000);
        return r.posts.length;
      }),
    clean: 2,
    faulty: 1,
  },
  {
    name: 'webhook-delete-404',
    probe: async (s) => {
      const t = await tokenFor(s);
      const w = await register(s, t, 'http://127.0.0.1:9/h', ['backup.completed']);
      const d = await call(s, 'DELETE', `/v1/webhooks/${w.body.id}`, { token: t });
      return [d.status, (await call(s, 'GET', '/v1/webhooks', { token: t })).body.total];
    },
    clean: [200, 0],
    faulty: [404, 1],
  },
  {
    name: 'webhook-wildcard-ignored',
    variants: ['event-names-dotted'],
    timeScale: 100,
    probe: async (s) =>
      withReceiver(async (r) => {
        const t = await tokenFor(s);
        await register(s, t, r.url + '/pattern', ['backup.job.*']);
        await register(s, t, r.url + '/name', ['backup.job.completed']);
        await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
        await until(() => r.posts.length >= 2, 1000);
        return r.posts.map((p) => p.path).sort();
      }),
    clean: ['/name', '/pattern'],
    faulty: ['/name'],
  },
  {
    name: 'webhook-test-event-not-sent',
    probe: async (s) => (await testDelivery(s, 'k1')) !== undefined,
    clean: true,
    faulty: false,
  },
  // Tolerances below their windows: under retry-exponential the first retries come 10 and
  // 30 target-seconds after a failure (500 and 1500 real ms at time scale 20), a tenth of that under the fault.
  {
    name: 'retry-delays-tenth',
    variants: ['retry-exponential'],
    timeScale: 20,
    probe: async (s) => {
      const times: number[] = [];
      const attempts = await withReceiver(
        async (r) => {
          const t = await tokenFor(s);
          const w = await register(s, t, r.url + '/failing', ['backup.completed']);
          expect((await call(s, 'POST', `/v1/webhooks/${w.body.id}/test`, { token: t })).status).toBe(202);
          await until(() => r.posts.length >= 3, 5000);
          return r.posts.map((p) => p.headers['x-delivery-attempt']).slice(0, 3);
        },
        () => {
          times.push(Date.now());
          return 503;
        }
      );
      // Each gap against half its declared delay: timers only come late, so a clean gap is never shorter.
      const gaps = [times[1]! - times[0]!, times[2]! - times[1]!];
      return [attempts, gaps[0]! >= 250, gaps[1]! >= 750];
    },
    clean: [['1', '2', '3'], true, true],
    faulty: [['1', '2', '3'], false, false],
  },
];
