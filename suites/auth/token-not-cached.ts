import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, fromLog, isSuccess, pathOf } from '../support.ts';

/** Whether a Cache-Control value holds the no-store directive (RFC 9111 §5.2: directives are case-insensitive, comma-separated). */
export function forbidsStoring(value: string | undefined): boolean {
  return (
    value !== undefined && value.split(',').some((d) => d.trim().split('=')[0]!.trim().toLowerCase() === 'no-store')
  );
}

/**
 * OAuth convention (RFC 6749 §5.1, RFC 9111 §5.2.2.5): an answer that carries a credential is marked Cache-Control:
 * no-store, so no shared cache or proxy between the client and the target keeps the bearer token.
 */
export const tokenNotCached: Check = {
  id: 'auth.token-not-cached',
  group: 'auth',
  clauses: ['AUTH-TOKEN-RESPONSE'],
  level: 'should',
  why: {
    should:
      "the seed does not show the token answer's headers: Cache-Control: no-store on an answer carrying a credential is OAuth convention (RFC 6749 §5.1)",
  },
  title: 'Token answers are marked Cache-Control: no-store',
  reviewsLog: true,
  async run(ctx) {
    const issued = fromLog(
      ctx,
      (ex) => ex.request.method === 'POST' && pathOf(ex) === '/v1/auth/tokens' && isSuccess(ex)
    );
    if (issued.length === 0)
      return skip('no token was issued in this run; nothing to judge', 'a run that obtains a token');
    const cacheable = issued.filter((ex) => !forbidsStoring(ex.response!.headers['cache-control']));
    if (cacheable.length) {
      const shown = cacheable[0]!.response!.headers['cache-control'];
      return fail(
        `${cacheable.length} of ${issued.length} token answers may be stored by a cache: ${describeExchange(cacheable[0]!)} with ${shown === undefined ? 'no Cache-Control header' : `Cache-Control: ${shown}`}`,
        cacheable.slice(0, 10)
      );
    }
    return pass(`all ${issued.length} token answers carry Cache-Control: no-store`);
  },
};
