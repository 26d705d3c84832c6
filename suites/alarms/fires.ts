import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import type { Delivery } from '../../src/engine/events/webhook-receiver.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { exampleLabels, idsOf, mentions } from './_examples.ts';

/**
 * An alarm made to fire as the overlay declares (its create body, then the linked request that makes it fire where
 * one is declared: a metric sample pushed) delivers a metric-alarm event. Where the overlay declares a firing example
 * per comparison the create takes, each is made in turn and each must deliver its own event (one input class at a
 * time: a comparison no run makes is never seen to be wrong).
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
    const count = Math.max(1, ctx.events.firingExamples());
    const labels = exampleLabels(ctx.declarations.alarms?.firingBodies ?? []);
    const claimed = new Set<Delivery>();
    const earlier: Exchange[] = [];
    const arrivals: string[] = [];
    for (let i = 0; i < count; i++) {
      const which = count > 1 ? ` (firing example ${i + 1} of ${count}: ${labels[i]})` : '';
      const alarm = await ctx.events.firedAlarm(i);
      if (!isSuccess(alarm.exchange))
        return fail(`creating the alarm as declared${which} was refused: ${describeExchange(alarm.exchange)}`, [
          alarm.exchange,
        ]);
      // The request the overlay links to the create to make the alarm fire (x-fires-alarm): refused, nothing can fire.
      if (alarm.firing && (alarm.firing.response === undefined || alarm.firing.response.status >= 300))
        return fail(
          `the declared request that makes the alarm${which} fire was refused: ${describeExchange(alarm.firing)}`,
          [alarm.exchange, alarm.firing]
        );
      const made = alarm.firing
        ? `creating a firing alarm${which} and ${describeExchange(alarm.firing)}`
        : `creating a firing alarm${which}`;
      // An event naming an earlier alarm of the run (a value only its answer holds: its id) is that alarm's, not this one's.
      const own = idsOf(alarm.exchange.response?.json);
      const foreign = earlier.flatMap((e) => [...idsOf(e.response?.json)].filter((v) => !own.has(v)));
      const got = await s.receiver.waitFor(
        (d) =>
          d.path === s.main.path &&
          d.receivedAt >= alarm.startedAt &&
          !claimed.has(d) &&
          names.has(eventTypeOf(d, s.decl) ?? '') &&
          !foreign.some((v) => mentions(d.raw, v)),
        ctx.events.deliveryTimeoutMs()
      );
      if (!got)
        return fail(
          `no ${[...names].join('/')} event arrived within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s of ${made}` +
            (i > 0 ? `, though the ${i === 1 ? 'first example' : `first ${i} examples`} fired` : ''),
          alarm.firing ? [alarm.exchange, alarm.firing] : [alarm.exchange]
        );
      claimed.add(got);
      earlier.push(alarm.exchange);
      const after = Math.round(((got.receivedAt - alarm.startedAt) / 1000) * ctx.config.timeScale);
      arrivals.push(`${eventTypeOf(got, s.decl)} ${after} target-seconds after ${count > 1 ? labels[i] : 'creation'}`);
    }
    return pass(
      count > 1
        ? `each of the ${count} declared firing examples delivered its own event: ${arrivals.join('; ')}`
        : `${arrivals[0]?.replace('creation', 'the alarm was created')}`
    );
  },
};
