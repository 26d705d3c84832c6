import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/**
 * Broken authentication (OWASP API2), beyond altered tokens (auth.tampered-token): the long-lived API key itself is
 * no bearer token (AUTH-FLOW: it is exchanged for one), and a token travels in the Authorization header only.
 */
export const brokenAuth: Check = {
  id: 'security.broken-auth',
  group: 'security',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-FLOW', 'AUTH-BEARER-REQUIRED'],
  level: 'must',
  why: { must: 'the seed says the key is exchanged for a token, which travels in the Authorization header' },
  title: 'The API key as a bearer, or a token in the query string, is refused',
  async run(ctx) {
    const key = ctx.tokens.secret('primary')!;
    // A token with most of its life ahead: refused in the query string for where it is, never for its age.
    const token = await ctx.tokens.fresh('primary', ctx.checkId);
    const sent: Array<{ what: string; ex: Exchange }> = [
      {
        what: 'the API key as the bearer token',
        ex: await ctx.call({ bearer: key, method: 'GET', path: '/v1/vms', query: { per_page: 1 } }),
      },
      {
        what: 'the token as ?access_token=',
        ex: await ctx.call({
          as: 'anonymous',
          method: 'GET',
          path: '/v1/vms',
          query: { per_page: 1, access_token: token },
        }),
      },
      {
        what: 'the token as ?token=',
        ex: await ctx.call({ as: 'anonymous', method: 'GET', path: '/v1/vms', query: { per_page: 1, token } }),
      },
    ];
    const accepted = sent.filter((s) => isSuccess(s.ex));
    if (accepted.length)
      return fail(
        `accepted ${accepted.map((a) => a.what).join(', ')}: ${accepted.map((a) => describeExchange(a.ex)).join('; ')}`,
        accepted.map((a) => a.ex)
      );
    return pass(`refused ${sent.map((s) => `${s.what} (${s.ex.response?.status ?? s.ex.transportError})`).join(', ')}`);
  },
};
