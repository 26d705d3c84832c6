import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { signatureValid } from '../../src/engine/events.ts';

/** Deliveries carry the declared signature, computed over the exact body with the registered secret. */
export const signature: Check = {
  id: 'webhooks.signature',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the signing scheme is the overlay's declaration" },
  title: 'Deliveries are signed as the overlay declares',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!s.decl.signature) return skip('the overlay declares no signature scheme (x-webhook-signature)', 'declare x-webhook-signature in --overlay');
    if (!s.main.secret) return skip('the overlay declares no secret field to register a secret with', 'declare the secret field of x-webhook-registration in --overlay');
    await ctx.events.eventBackup().catch(() => undefined);
    await s.receiver.waitFor((d) => d.path === s.main.path, ctx.events.deliveryTimeoutMs());
    const signed = s.receiver.deliveries.filter((d) => d.path === s.main.path);
    if (signed.length === 0) return skip('no delivery arrived at the signed endpoint', 'deliveries that arrive (see webhooks.backup-event)');
    const bad = signed.filter((d) => !signatureValid(d, s.decl, s.main.secret!));
    if (bad.length) {
      const header = s.decl.signature.header;
      return fail(`${bad.length} of ${signed.length} deliveries fail the ${s.decl.signature.algorithm} signature in ${header} (got ${JSON.stringify(bad[0]!.headers[header.toLowerCase()] ?? null)})`, []);
    }
    return pass(`all ${signed.length} deliveries carry a valid ${s.decl.signature.algorithm} signature`);
  },
};
