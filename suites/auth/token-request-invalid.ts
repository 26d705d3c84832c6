import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { wasAccepted, describe, observeErrorCase } from '../support.ts';

/** Token issuance exchanges a valid key only: no key, a wrong key or a key of the wrong type gets no token. */
export const tokenRequestInvalid: Check = {
  id: 'auth.token-request-invalid',
  group: 'auth',
  clauses: ['AUTH-TOKEN-REQUEST'],
  level: 'must',
  why: { must: "the seed says issuance exchanges an API key: no key, no token" },
  title: 'A token request without an api_key or with a wrong one is refused',
  async run(ctx) {
    const wrongKey = `cc-${ctx.config.runId}-not-a-key-${'0'.repeat(24)}`;
    const cases: Array<{ name: string; body: unknown }> = [
      { name: 'no api_key', body: {} },
      { name: 'wrong api_key', body: { api_key: wrongKey } },
      { name: 'empty api_key', body: { api_key: '' } },
      { name: 'api_key of the wrong type', body: { api_key: 12345 } },
    ];
    const sent: Array<{ name: string; ex: Exchange }> = [];
    for (const c of cases) sent.push({ name: c.name, ex: await ctx.call({ as: 'anonymous', method: 'POST', path: '/v1/auth/tokens', json: c.body }) });
    const accepted = sent.filter((s) => wasAccepted(s.ex));
    if (accepted.length) {
      return fail(`issued a token for: ${accepted.map((a) => `${a.name} (${describe(a.ex)})`).join('; ')}`, accepted.map((a) => a.ex));
    }
    observeErrorCase(ctx, 'invalid-api-key', sent[1]!.ex);
    observeErrorCase(ctx, 'invalid-request', sent[0]!.ex);
    return pass(`all ${sent.length} invalid token requests were refused`, [], { statuses: sent.map((s) => `${s.name}: ${describe(s.ex)}`) });
  },
};
