import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess } from '../support.ts';

/** The declared registration operation accepts the suite's receiver for every declared event. */
export const registration: Check = {
  id: 'webhooks.registration',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the registration operation is the overlay's declaration" },
  title: 'A webhook endpoint can be registered as the overlay declares',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!isSuccess(s.main.exchange))
      return fail(`registering ${s.main.url} was refused: ${describeExchange(s.main.exchange)}`, [s.main.exchange]);
    return pass(`registered for ${s.decl.events.map((e) => e.name).join(', ')}: ${describeExchange(s.main.exchange)}`);
  },
};
