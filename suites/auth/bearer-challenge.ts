import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, fromLog, pathOf } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** Whether a WWW-Authenticate value offers the Bearer scheme (RFC 9110 §11.1: the scheme is case-insensitive; a list may hold several). */
export function offersBearer(value: string | undefined): boolean {
  return value !== undefined && /(^|,)\s*bearer(\s|,|$)/i.test(value);
}

/**
 * HTTP convention (RFC 9110 §11.6.1, RFC 6750 §3): a 401 from a protected resource carries a WWW-Authenticate challenge
 * for the Bearer scheme, so a client knows which credentials to present. Token issuance is not a protected resource
 * (its 401 is about an API key in the body) and is left out.
 */
export const bearerChallenge: Check = {
  id: 'auth.bearer-challenge',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-BEARER-REQUIRED'],
  level: 'should',
  why: {
    should:
      'the seed does not show the 401 answer: a WWW-Authenticate challenge for Bearer is HTTP convention (RFC 9110 §11.6.1, RFC 6750 §3)',
  },
  title: 'A 401 from a protected resource carries a WWW-Authenticate: Bearer challenge',
  reviewsLog: true,
  async run(ctx) {
    // Provoke the two common cases, so the check has material when run alone.
    await ctx.callEach([
      { as: 'anonymous', method: 'GET', path: '/v1/vms' },
      { bearer: 'not-a-token', method: 'GET', path: '/v1/vms' },
    ]);
    // Missing or invalid credentials only: a 401 to a valid token (for a missing permission) is security.readonly-status's.
    const refused = fromLog(
      ctx,
      (ex) =>
        ex.response!.status === 401 &&
        (ex.caller === 'anonymous' || ex.caller === 'explicit') &&
        pathOf(ex) !== '/v1/auth/tokens' &&
        pathOf(ex).startsWith('/v1/')
    );
    if (refused.length === 0)
      return skip(
        'no request to a protected resource was answered 401 (see auth.unauthenticated-status); nothing to judge'
      );
    const bare: Exchange[] = refused.filter((ex) => !offersBearer(ex.response!.headers['www-authenticate']));
    if (bare.length) {
      const shown = bare[0]!.response!.headers['www-authenticate'];
      return fail(
        `${bare.length} of ${refused.length} 401 answers offer no Bearer challenge: ${describeExchange(bare[0]!)} with ${shown === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${shown}`}`,
        bare.slice(0, 10)
      );
    }
    return pass(
      `all ${refused.length} 401 answers carry a Bearer challenge (${[...new Set(refused.map((ex) => ex.response!.headers['www-authenticate']))].slice(0, 3).join('; ')})`
    );
  },
};
