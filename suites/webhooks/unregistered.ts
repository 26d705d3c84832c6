import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess } from '../support.ts';

/** The path of a registered URL (undefined when it is not one). */
function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/** How long after a deletion a delivery the target sent before it may still arrive (real ms). */
const IN_FLIGHT_MS = 15_000;

/** The ids an answer hands out: string values of fields named id or …_id / …Id, two levels deep. */
export function idsIn(json: unknown, depth = 0): string[] {
  if (!json || typeof json !== 'object' || depth > 1) return [];
  return Object.entries(json as Record<string, unknown>).flatMap(([k, v]) =>
    typeof v === 'string' ? (/(^|_)id$|[a-z]Id$/.test(k) && v.length >= 4 ? [v] : []) : idsIn(v, depth + 1)
  );
}

/**
 * Deliveries to an endpoint that was never registered, or to the deleted one after its deletion, except those that
 * were on their way: an event raised while the registration stood may still arrive from a busy target or machine; one
 * about what was made after the deletion (madeAfter: its ids), or one arriving long after it, was not on its way.
 */
export function strayDeliveries<D extends { path: string; receivedAt: number; raw: Buffer }>(
  deliveries: readonly D[],
  live: ReadonlySet<string>,
  deleted: { path: string; deletedAt: number } | undefined,
  madeAfter: readonly string[]
): D[] {
  return deliveries.filter((d) => {
    if (live.has(d.path)) return false;
    if (!deleted || d.path !== deleted.path) return true;
    if (d.receivedAt < deleted.deletedAt) return false;
    const body = d.raw.toString('utf8');
    return madeAfter.some((id) => body.includes(id)) || d.receivedAt > deleted.deletedAt + IN_FLIGHT_MS;
  });
}

/** A stray delivery as a certifier needs it: where, when against the deletion, and what it named that was made after. */
function describeStray(
  d: { path: string; receivedAt: number; raw: Buffer },
  deleted: { path: string; deletedAt: number } | undefined,
  madeAfter: readonly string[]
): string {
  const body = d.raw.toString('utf8');
  const when =
    deleted && d.path === deleted.path
      ? `, ${d.receivedAt - deleted.deletedAt} ms after its deletion`
      : ', never registered';
  const named = madeAfter.filter((id) => body.includes(id));
  return `${d.path}${when}${named.length ? `, naming ${named.join(', ')}, made after it` : ''}: ${body.slice(0, 300)}`;
}

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
    if (s.deleted && !isSuccess(s.deleted.deletion))
      return fail(
        `deleting the registration ${s.deleted.id} with the declared operation was refused: ${describeExchange(s.deleted.deletion)}`,
        [s.deleted.exchange, s.deleted.deletion]
      );
    const backup = await ctx.events.eventBackup().catch(() => undefined);
    await s.receiver.waitFor((d) => d.path === s.main.path, ctx.events.deliveryTimeoutMs());
    // Endpoints other checks registered on the receiver (the read-only probe's) were registered too, if briefly.
    const others = ctx.ledger.entries
      .filter((e) => e.kind === 'webhook' && e.name && e.createdBy !== 'webhooks')
      .map((e) => pathOf(e.name!))
      .filter((p) => p !== undefined && p !== s.deleted?.path);
    const live = new Set([s.main.path, s.family?.path, s.undeletable?.path, ...others].filter((p) => p !== undefined));
    // Ids the target made after the deletion (the event backup's): no event about them can have been under way before it.
    // Only ids no answer named before the deletion: the backup's VM (and its alarms' events) are older than it.
    const deletedAt = s.deleted?.deletedAt ?? 0;
    const before = ctx.log.filter((ex) => Date.parse(ex.startedAt) + ex.durationMs < deletedAt);
    const madeAfter = (backup ? idsIn(backup.exchange.response?.json) : []).filter(
      (id) => !before.some((ex) => ex.response?.body.includes(id) || ex.request.url.includes(id))
    );
    const stray = strayDeliveries(s.receiver.deliveries, live, s.deleted, madeAfter);
    if (stray.length)
      return fail(
        `${stray.length} deliveries reached endpoints that were deleted or never registered (e.g. ${describeStray(stray[0]!, s.deleted, madeAfter)})`,
        s.deleted ? [s.deleted.deletion] : []
      );
    if (s.undeletable)
      return skip(
        `${s.undeletable.reason}, so it was not deleted; only never-registered endpoints were watched, and they received nothing`,
        "declare where the registration's id is: a link from its response to the delete operation ($response.body#/…)"
      );
    if (!s.deleted)
      return undeclared(
        'the overlay declares no delete operation; only never-registered endpoints were watched, and they received nothing',
        'declare the webhook delete operation (x-cleanup-for: the registration operationId) in --overlay'
      );
    return pass(
      `the deleted endpoint and every unregistered path received nothing (${s.receiver.deliveries.length} deliveries in all)`
    );
  },
};
