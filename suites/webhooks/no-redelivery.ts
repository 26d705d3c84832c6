import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventKeyOf } from '../../src/engine/events/events.ts';
import type { Delivery } from '../../src/engine/events/webhook-receiver.ts';

/** Real ms allowed, beyond the first declared delay, for a redelivery of an acknowledged event to arrive. */
const REDELIVERY_SLACK_MS = 500;

/**
 * Declared retries follow failures: an attempt the receiver acknowledged (2xx) ends its event, at every endpoint.
 * Judged once every other check has run, on every delivery of the run, a first retry delay after the last
 * acknowledgement: the wait overlaps the limit probes instead of holding up the run.
 */
export const noRedelivery: Check = {
  id: 'webhooks.no-redelivery',
  group: 'webhooks',
  clauses: ['U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the retry schedule is the overlay's declaration, and its retries follow failures" },
  title: 'An event the receiver acknowledged is not delivered again',
  reviewsLog: true,
  async run(ctx) {
    const s = await ctx.events.events();
    const schedule = s.decl.retry;
    if (!schedule)
      return undeclared(
        'the overlay declares no retry schedule (x-webhook-retry)',
        'declare x-webhook-retry in --overlay'
      );
    const acknowledged = s.receiver.deliveries.filter((d) => d.answered >= 200 && d.answered < 300 && !d.heldMs);
    if (acknowledged.length === 0)
      return skip(
        'the receiver acknowledged no delivery in this run, so none could come again',
        'deliveries that arrive (see webhooks.subscription)'
      );
    // A redelivery comes a first retry delay after the acknowledgement; the time since the last one already counts.
    const lastAck = Math.max(...acknowledged.map((d) => d.receivedAt));
    const dueMs = lastAck + (schedule.delays[0]! * 1000) / ctx.config.timeScale + REDELIVERY_SLACK_MS - Date.now();
    if (dueMs > 0)
      await ctx.sleepTarget(
        (dueMs * ctx.config.timeScale) / 1000,
        'a redelivery of an acknowledged event, if one comes'
      );
    const again = redeliveredAfterAck(s.receiver.deliveries, schedule.eventIdHeader);
    if (again.length) {
      return fail(
        `an event the receiver acknowledged was delivered again ${again.length} time${again.length === 1 ? '' : 's'} (e.g. event ${again[0]!.key} at ${again[0]!.path}, after a ${again[0]!.ackedWith}); declared retries follow failures only`,
        [],
        { redeliveries: again.slice(0, 5) }
      );
    }
    return pass(
      `none of the ${acknowledged.length} acknowledged deliveries came again, ${schedule.delays[0]} s (the first declared retry delay) after the last of them`
    );
  },
};

/** Deliveries of an event that came after the same endpoint had acknowledged it (2xx), per endpoint and event id. */
export function redeliveredAfterAck(
  deliveries: readonly Delivery[],
  idHeader?: string
): Array<{ path: string; key: string; ackedWith: number }> {
  const acked = new Map<string, number>();
  const again: Array<{ path: string; key: string; ackedWith: number }> = [];
  for (const d of [...deliveries].sort((a, b) => a.receivedAt - b.receivedAt)) {
    const key = eventKeyOf(d, idHeader);
    if (key === undefined) continue;
    const id = `${d.path}\u0000${key}`;
    const ack = acked.get(id);
    if (ack !== undefined) again.push({ path: d.path, key, ackedWith: ack });
    // An answer held back (webhooks.delivery-timeout) is one a timing-out target never saw: not an acknowledgement.
    else if (d.answered >= 200 && d.answered < 300 && !d.heldMs) acked.set(id, d.answered);
  }
  return again;
}
