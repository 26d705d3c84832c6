import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, fromLog, pathOf, wasAccepted } from '../support.ts';
import { REFUSAL_PROBES, UNAUTHENTICATED_PROBES } from '../shares.ts';

/**
 * HTTP convention (RFC 9110 §15.5.2, RFC 6750 §3.1): missing or invalid credentials get 401, not 403. Provoked on a
 * read and a write; then every request the run has sent without a token to a protected operation (auth.bearer-required
 * asks each operation once, auth.tampered-token compares with one; both run before it) is held to it too: a handler
 * may answer otherwise.
 */
export const unauthenticatedStatus: Check = {
  id: 'auth.unauthenticated-status',
  group: 'auth',
  // After auth.bearer-required (every operation without a token) and auth.tampered-token, whose requests it judges too.
  shares: [REFUSAL_PROBES, UNAUTHENTICATED_PROBES],
  clauses: ['AUTH-BEARER-REQUIRED'],
  level: 'should',
  why: {
    should: 'the seed does not show the status: 401 for missing credentials is HTTP convention (RFC 9110, RFC 6750)',
  },
  title: 'Missing or invalid credentials are answered 401, on every protected operation',
  async run(ctx) {
    const sent: Exchange[] = await ctx.callEach([
      { as: 'anonymous', method: 'GET', path: '/v1/vms' },
      { bearer: 'not-a-token', method: 'GET', path: '/v1/vms' },
    ]);
    // A write without a token too: a handler may answer a missing token otherwise on writes. The body is a valid
    // create, so a target that validates before it authenticates has nothing to refuse but the credentials.
    const { body } = ctx.objects.vmCreateBody('anonymous-write');
    const writes = await ctx.callEach([{ as: 'anonymous', method: 'POST', path: '/v1/vms', json: body }]);
    for (const ex of writes.filter(wasAccepted))
      ctx.ledger.record(
        { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'accepted without a token' },
        ex
      );
    // Only refusals are judged here; a request that was served is auth.bearer-required's or auth.malformed-token's failure.
    const refused = sent.filter((ex) => ex.response !== undefined && ex.response.status >= 400);
    if (refused.length === 0) return skip('neither request was refused; nothing to judge');
    // On the write, 403 is the convention's break (a 400 or 404 says something else, judged elsewhere).
    const other = [
      ...refused.filter((ex) => ex.response?.status !== 401),
      ...writes.filter((ex) => ex.response?.status === 403),
    ];
    if (other.length) return fail(`expected 401: ${other.map(describeExchange).join('; ')}`, other);
    // The rest of the run's requests without a token, to protected operations (token issuance is public); a 404 or 400
    // before authentication says something else, judged elsewhere.
    const swept = fromLog(
      ctx,
      (ex) =>
        ex.caller === 'anonymous' &&
        pathOf(ex).startsWith('/v1/') &&
        pathOf(ex) !== '/v1/auth/tokens' &&
        ![...sent, ...writes].includes(ex)
    );
    const forbidden = swept.filter((ex) => ex.response!.status === 403);
    const operations = (list: Exchange[]) => [...new Set(list.map((ex) => `${ex.request.method} ${pathOf(ex)}`))];
    if (forbidden.length)
      return fail(
        `expected 401 without a token, got 403 on ${operations(forbidden).length} of ${operations(swept).length} operations the run asked: ${forbidden.slice(0, 5).map(describeExchange).join('; ')}`,
        forbidden.slice(0, 10)
      );
    return pass(
      `missing and invalid credentials were answered 401 (a read; a write without a token: ${writes.map(describeExchange).join('')}); no 403 among ${swept.length} more requests without a token to ${operations(swept).length} operations`
    );
  },
};
