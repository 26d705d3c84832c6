import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { isSuccess } from '../support.ts';

/** A delivery the receiver fails is delivered again, as the overlay's retry policy declares. */
export const retry: Check = {
  id: 'webhooks.retry',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the retry schedule is the overlay's declaration" },
  title: 'A delivery that failed once is retried',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!s.decl.retry) return skip('the overlay declares no retry policy (x-webhook-retry)', 'declare x-webhook-retry in --overlay');
    if (!s.retry || !isSuccess(s.retry.exchange)) return skip('the retry endpoint could not be registered', 'a webhook registration the target accepts');
    await ctx.events.eventBackup().catch(() => undefined);
    const first = await s.receiver.waitFor((d) => d.path === s.retry!.path, ctx.events.deliveryTimeoutMs());
    if (!first) return skip('no delivery reached the retry endpoint at all (see webhooks.backup-event)', 'deliveries that arrive (see webhooks.backup-event)');
    const eventId = (d: { json?: unknown; headers: Record<string, string> }) => (d.json as { id?: unknown } | undefined)?.id ?? d.headers['x-event-id'];
    const again = await s.receiver.waitFor((d) => d.path === s.retry!.path && d !== first && eventId(d) === eventId(first), ctx.events.deliveryTimeoutMs());
    if (!again) return fail(`the receiver answered ${first.answered} to the first delivery, and it was never delivered again (declared: ${s.decl.retry.attempts} attempts, ${s.decl.retry.afterSeconds} s apart)`, []);
    return pass(`redelivered ${Math.round(((again.receivedAt - first.receivedAt) / 1000) * ctx.config.timeScale)} target-seconds after the receiver answered ${first.answered}`);
  },
};
