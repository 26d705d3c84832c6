import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import { describeExchange, isSuccess } from '../support.ts';

/** A registration for the backup-job family (by its names or a declared pattern) gets its events and no others. */
export const subscription: Check = {
  id: 'webhooks.subscription',
  group: 'webhooks',
  clauses: ['EVENTS-BACKUP-JOB', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "event names, families and subscription values are the overlay's declarations" },
  title: 'A registration for one event family receives its events and no others',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    if (!s.family)
      return undeclared(
        'the overlay declares no backup-job event',
        'declare a backup-job event under webhooks in --overlay'
      );
    if (!isSuccess(s.family.exchange))
      return fail(
        `registering for ${s.family.subscribed.join(', ')} was refused: ${describeExchange(s.family.exchange)}`,
        [s.family.exchange]
      );
    const names = new Set(s.decl.events.filter((e) => e.family === 'backup-job').map((e) => e.name));
    const backup = await ctx.events.eventBackup();
    const got = await s.receiver.waitFor(
      (d) => d.path === s.family!.path && names.has(eventTypeOf(d, s.decl) ?? ''),
      ctx.events.deliveryTimeoutMs()
    );
    if (!got)
      return fail(
        `no ${[...names].join('/')} event reached the endpoint registered for ${s.family.subscribed.join(', ')} within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s of a backup`,
        [s.family.exchange, backup.exchange]
      );
    const others = new Set(
      s.decl.events.filter((e) => e.family !== 'backup-job' && e.family !== 'test').map((e) => e.name)
    );
    const outside = s.receiver.deliveries.filter(
      (d) => d.path === s.family!.path && others.has(eventTypeOf(d, s.decl) ?? '')
    );
    if (outside.length)
      return fail(
        `the endpoint registered for ${s.family.subscribed.join(', ')} also received ${outside.map((d) => eventTypeOf(d, s.decl)).join(', ')}`,
        [s.family.exchange]
      );
    return pass(
      `registered for ${s.family.subscribed.join(', ')}: received ${eventTypeOf(got, s.decl)} and nothing of another family`
    );
  },
};
