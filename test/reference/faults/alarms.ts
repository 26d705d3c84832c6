// Fault probes of the alarms checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, until, withReceiver, register, alarm } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
  {
    name: 'alarm-never-fires',
    timeScale: 100,
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        const a = await alarm(s, t);
        await until(() => rcv.posts.length >= 1, 500);
        await sleep(50);
        return [(await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state, rcv.posts.length];
      }),
    clean: ['alarm', 1],
    faulty: ['ok', 0],
  },
  {
    name: 'alarm-sample-not-evaluated',
    timeScale: 100,
    variants: ['alarm-fires-on-sample'],
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        const a = await alarm(s, t, 10);
        const vm = a.body.vm_id as string;
        const pushed = await call(s, 'POST', `/v1/vms/${vm}/metrics`, {
          token: t,
          json: { metric: 'cpu_utilization', value: 99 },
        });
        await until(() => rcv.posts.length >= 1, 500);
        await sleep(50);
        return [
          pushed.status,
          (await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state,
          rcv.posts.length,
        ];
      }),
    clean: [202, 'alarm', 1],
    faulty: [202, 'ok', 0],
  },
  {
    name: 'alarm-lt-compared-as-gt',
    timeScale: 100,
    variants: ['alarm-fires-on-sample'],
    probe: (s) =>
      withReceiver(async (rcv) => {
        const t = await tokenFor(s);
        await register(s, t, rcv.url, ['alarm.triggered']);
        const a = await alarm(s, t, 100, 'lt');
        const vm = a.body.vm_id as string;
        await call(s, 'POST', `/v1/vms/${vm}/metrics`, { token: t, json: { metric: 'cpu_utilization', value: 99 } });
        await until(() => rcv.posts.length >= 1, 500);
        await sleep(50);
        return [(await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state, rcv.posts.length];
      }),
    clean: ['alarm', 1],
    faulty: ['ok', 0],
  },
];
