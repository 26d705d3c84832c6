import type { Check } from '../../src/engine/check.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { fromLog, describe, isSuccess } from '../support.ts';

/** Every successful token exchange of the run answers token, expires_in = 3600, organization and role. */
export const tokenShape: Check = {
  id: 'auth.token-shape',
  group: 'auth',
  clauses: ['AUTH-FLOW', 'AUTH-TOKEN-RESPONSE', 'AUTH-TOKEN-TTL'],
  level: 'must',
  title: 'The token response carries token, expires_in = 3600, organization and role',
  reviewsLog: true,
  async run(ctx) {
    const exchanges = fromLog(ctx, (ex) => ex.request.method === 'POST' && new URL(ex.request.url).pathname === '/v1/auth/tokens' && isSuccess(ex));
    const bad = exchanges
      .map((ex) => ({ ex, errors: ctx.schema.assert(ex)?.baseErrors ?? [] }))
      .filter((r) => r.errors.length > 0);
    if (bad.length) {
      return fail(
        `${bad.length} of ${exchanges.length} token responses break the Token schema: ${bad[0]!.errors.join('; ')}`,
        bad.map((b) => b.ex),
        { violations: bad.map((b) => ({ exchange: describe(b.ex), errors: b.errors })) },
      );
    }
    return pass(`${exchanges.length} token responses carry token, expires_in = 3600, organization and role`);
  },
};
