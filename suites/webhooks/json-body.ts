import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** Events are delivered as JSON posts (seed §1, §6): JSON content type and a body that parses. */
export const jsonBody: Check = {
  id: 'webhooks.json-body',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON'],
  level: 'must',
  why: { must: 'the seed says events are delivered as JSON posts' },
  title: 'Every webhook delivery is a JSON post',
  async run(ctx) {
    const s = await ctx.events.events();
    await ctx.events.eventBackup().catch(() => undefined);
    // The events track's own registrations only: another check's probe registration (security.readonly-write-refused)
    // is made on its own track's schedule, so whether its deliveries had arrived yet changed from run to run.
    const own = new Set([s.main.path, ...(s.family ? [s.family.path] : [])]);
    await s.receiver.waitFor((d) => own.has(d.path), ctx.events.deliveryTimeoutMs());
    const all = s.receiver.deliveries.filter((d) => own.has(d.path));
    if (all.length === 0)
      return skip(
        `no delivery arrived at the events track's registrations (${[...own].join(', ')}), so there is nothing to judge (see webhooks.backup-event)`,
        'declare webhook registration and events in --overlay so deliveries arrive'
      );
    const bad = all.filter((d) => !JSON_TYPE.test(d.headers['content-type'] ?? '') || d.json === undefined);
    if (bad.length) {
      return fail(
        `${bad.length} of ${all.length} deliveries are not JSON: content type ${JSON.stringify(bad[0]!.headers['content-type'] ?? null)}, body ${JSON.stringify(bad[0]!.raw.toString('utf8').slice(0, 80))}`,
        [],
        {
          deliveries: bad.slice(0, 5).map((d) => ({
            path: d.path,
            contentType: d.headers['content-type'],
            body: d.raw.toString('utf8').slice(0, 200),
          })),
        }
      );
    }
    return pass(`all ${all.length} deliveries are JSON`);
  },
};
