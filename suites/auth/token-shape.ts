import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { baseSchemaViolations, describeExchange, fromLog, isSuccess, pathOf } from '../support.ts';

/** Every successful token exchange of the run answers token, expires_in = 3600, organization and role. */
export const tokenShape: Check = {
  id: 'auth.token-shape',
  group: 'auth',
  clauses: ['AUTH-FLOW', 'AUTH-TOKEN-RESPONSE', 'AUTH-TOKEN-TTL'],
  level: 'must',
  why: { must: "the seed states the token response's four fields and expires_in 3600" },
  title: 'The token response carries token, expires_in = 3600, organization and role',
  reviewsLog: true,
  async run(ctx) {
    const { checked, bad } = baseSchemaViolations(
      ctx,
      (ex) => ex.request.method === 'POST' && pathOf(ex) === '/v1/auth/tokens' && isSuccess(ex)
    );
    if (bad.length) {
      return fail(
        `${bad.length} of ${checked} token responses break the Token schema: ${bad[0]!.errors.join('; ')}`,
        bad.map((b) => b.ex),
        { violations: bad.map((b) => ({ exchange: describeExchange(b.ex), errors: b.errors })) }
      );
    }
    const ok = fromLog(ctx, (ex) => ex.request.method === 'POST' && pathOf(ex) === '/v1/auth/tokens' && isSuccess(ex));
    ctx.observe('tokenResponse', {
      statuses: [...new Set(ok.map((ex) => ex.response!.status))].sort(),
      extraFields: [...new Set(ok.flatMap((ex) => Object.keys((ex.response!.json as object | undefined) ?? {})))]
        .filter((k) => !['token', 'expires_in', 'organization', 'role'].includes(k))
        .sort(),
    });
    return pass(`${checked} token responses carry token, expires_in = 3600, organization and role`);
  },
};
