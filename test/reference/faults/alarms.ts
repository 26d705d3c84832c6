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
];
