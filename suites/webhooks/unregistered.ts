import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { describe, isSuccess } from '../support.ts';

/** A registration deleted as declared is deleted: nothing reaches it afterwards, nor any endpoint never registered. */
export const unregistered: Check = {
  id: 'webhooks.unregistered',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "registration and deletion are the overlay's declarations" },
  title: 'Deleted or never-registered endpoints receive nothing',
  async run(ctx) {
    const s = await ctx.events.events();
    if (s.deleted && !isSuccess(s.deleted.deletion)) return fail(`deleting the registration ${s.deleted.id} with the declared operation was refused: ${describe(s.deleted.deletion)}`, [s.deleted.exchange, s.deleted.deletion]);
    await ctx.events.eventBackup().catch(() => undefined);
    await s.receiver.waitFor((d) => d.path === s.main.path, ctx.events.deliveryTimeoutMs());
    const live = new Set([s.main.path, s.family?.path, s.undeletable?.path].filter((p) => p !== undefined));
    const stray = s.receiver.deliveries.filter((d) => !live.has(d.path) && !(s.deleted && d.path === s.deleted.path && d.receivedAt < s.deleted.deletedAt));
    if (stray.length) return fail(`${stray.length} deliveries reached endpoints that were deleted or never registered (e.g. ${stray[0]!.path})`, s.deleted ? [s.deleted.deletion] : []);
    if (s.undeletable) return skip(`${s.undeletable.reason}, so it was not deleted; only never-registered endpoints were watched, and they received nothing`, "declare where the registration's id is: a link from its response to the delete operation ($response.body#/…)");
    if (!s.deleted) return undeclared('the overlay declares no delete operation; only never-registered endpoints were watched, and they received nothing', 'declare the webhook delete operation (x-cleanup-for: the registration operationId) in --overlay');
    return pass(`the deleted endpoint and every unregistered path received nothing (${s.receiver.deliveries.length} deliveries in all)`);
  },
};
