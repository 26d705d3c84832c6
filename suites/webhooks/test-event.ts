import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import { describeExchange, isSuccess } from '../support.ts';

/** The declared test-event operation sends the registration an event of the test family. */
export const testEvent: Check = {
  id: 'webhooks.test-event',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the test-event operation and the test event's name are the overlay's declarations" },
  title: 'A test event is delivered when the declared operation asks for one',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!s.decl.testEvent)
      return undeclared(
        'the overlay declares no operation that sends a test event (x-sends-test-event)',
        'declare the test-event operation (x-sends-test-event) in --overlay'
      );
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    const names = new Set(s.decl.events.filter((e) => e.family === 'test').map((e) => e.name));
    const t = await ctx.events.testEvent();
    if (!isSuccess(t.exchange))
      return fail(`the declared test-event operation was refused: ${describeExchange(t.exchange)}`, [t.exchange]);
    const got = await s.receiver.waitFor(
      (d) =>
        d.path === s.main.path &&
        d.receivedAt >= t.startedAt &&
        (names.size === 0 || names.has(eventTypeOf(d, s.decl) ?? '')),
      ctx.events.deliveryTimeoutMs()
    );
    if (!got)
      return fail(
        `no ${names.size ? [...names].join('/') : ''} event reached ${s.main.url} within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s of ${describeExchange(t.exchange)}`,
        [t.exchange]
      );
    return pass(
      `${eventTypeOf(got, s.decl) ?? 'an event'} arrived ${Math.round(((got.receivedAt - t.startedAt) / 1000) * ctx.config.timeScale)} target-seconds after ${describeExchange(t.exchange)}`
    );
  },
};
