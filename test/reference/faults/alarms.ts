// Fault probes of the alarms checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, until, withReceiver, register, alarm } from '../probes.ts';
import type { FaultCase } from './index.ts';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';

/**
 * An alarm under variant alarm-fires-on-sample, a sample of 99 pushed: [the push's status (where asked), the alarm's
 * state, deliveries received].
 */
function sampleFired(s: ReferenceSettings, threshold: number, comparison: 'gt' | 'lt', withPush: boolean) {
  return withReceiver(async (rcv) => {
    const t = await tokenFor(s);
    await register(s, t, rcv.url, ['alarm.triggered']);
    const a = await alarm(s, t, threshold, comparison);
    const pushed = await call(s, 'POST', `/v1/vms/${a.body.vm_id}/metrics`, {
      token: t,
      json: { metric: 'cpu_utilization', value: 99 },
    });
    await until(() => rcv.posts.length >= 1, 500);
    await sleep(50);
    const state = (await call(s, 'GET', `/v1/alarms/${a.body.id}`, { token: t })).body.state;
    return withPush ? [pushed.status, state, rcv.posts.length] : [state, rcv.posts.length];
  });
}

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
    probe: (s) => sampleFired(s, 10, 'gt', true),
    clean: [202, 'alarm', 1],
    faulty: [202, 'ok', 0],
  },
  {
    name: 'alarm-lt-compared-as-gt',
    timeScale: 100,
    variants: ['alarm-fires-on-sample'],
    probe: (s) => sampleFired(s, 100, 'lt', false),
    clean: ['alarm', 1],
    faulty: ['ok', 0],
  },
];
