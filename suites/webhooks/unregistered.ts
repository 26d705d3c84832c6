import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';

/** Nothing is delivered to an endpoint that was deleted, or to one that was never registered. */
export const unregistered: Check = {
  id: 'webhooks.unregistered',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "registration and deletion are the overlay's declarations" },
  title: 'Deleted or never-registered endpoints receive nothing',
  async run(ctx) {
    const s = await ctx.events.events();
    await ctx.events.eventBackup().catch(() => undefined);
    await s.receiver.waitFor((d) => d.path === s.main.path, ctx.events.deliveryTimeoutMs());
    const live = new Set([s.main.path, s.retry?.path].filter((p) => p !== undefined));
    const stray = s.receiver.deliveries.filter((d) => !live.has(d.path) && !(s.deleted && d.path === s.deleted.path && d.receivedAt < s.deleted.deletedAt));
    if (stray.length) return fail(`${stray.length} deliveries reached endpoints that were deleted or never registered (e.g. ${stray[0]!.path})`, s.deleted ? [s.deleted.deletion] : []);
    if (!s.deleted) return skip('the overlay declares no delete operation; only never-registered endpoints were watched, and they received nothing', 'declare the webhook delete operation (x-cleanup-for: registerWebhook) in --overlay');
    return pass(`the deleted endpoint and every unregistered path received nothing (${s.receiver.deliveries.length} deliveries in all)`);
  },
};
