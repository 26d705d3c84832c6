import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import { describeExchange, isSuccess } from '../support.ts';

/**
 * An alarm made to fire as the overlay declares (its create body, then the linked request that makes it fire where
 * one is declared: a metric sample pushed) delivers a metric-alarm event.
 */
export const alarmFires: Check = {
  id: 'alarms.fires',
  group: 'alarms',
  clauses: ['EVENTS-METRIC-ALARM', 'EVENTS-WEBHOOK-JSON'],
  level: 'declared',
  why: { declared: "how an alarm is made to fire and its event name are the overlay's declarations" },
  title: 'A firing metric alarm delivers its event',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    const names = new Set(s.decl.events.filter((e) => e.family === 'metric-alarm').map((e) => e.name));
    if (names.size === 0)
      return undeclared(
        'the overlay declares no metric-alarm event',
        'declare a metric-alarm event under webhooks in --overlay'
      );
    const alarm = await ctx.events.firedAlarm();
    if (!isSuccess(alarm.exchange))
      return fail(`creating the alarm as declared was refused: ${describeExchange(alarm.exchange)}`, [alarm.exchange]);
    // The request the overlay links to the create to make the alarm fire (x-fires-alarm): refused, nothing can fire.
    if (alarm.firing && (alarm.firing.response === undefined || alarm.firing.response.status >= 300))
      return fail(`the declared request that makes the alarm fire was refused: ${describeExchange(alarm.firing)}`, [
        alarm.exchange,
        alarm.firing,
      ]);
    const made = alarm.firing
      ? `creating a firing alarm and ${describeExchange(alarm.firing)}`
      : 'creating a firing alarm';
    const got = await s.receiver.waitFor(
      (d) => d.path === s.main.path && names.has(eventTypeOf(d, s.decl) ?? ''),
      ctx.events.deliveryTimeoutMs()
    );
    if (!got)
      return fail(
        `no ${[...names].join('/')} event arrived within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s of ${made}`,
        alarm.firing ? [alarm.exchange, alarm.firing] : [alarm.exchange]
      );
    return pass(
      `${eventTypeOf(got, s.decl)} arrived ${Math.round(((got.receivedAt - alarm.startedAt) / 1000) * ctx.config.timeScale)} target-seconds after the alarm was created`
    );
  },
};
