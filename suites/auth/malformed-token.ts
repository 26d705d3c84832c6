import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { wasAccepted, describeExchange } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** Bearer values that are not tokens the target issued must be refused. */
export const malformedToken: Check = {
  id: 'auth.malformed-token',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-BEARER-REQUIRED'],
  level: 'must',
  why: { must: 'the seed requires a bearer token issued by the service on every request' },
  title: 'Malformed bearer values are refused',
  async run(ctx) {
    const values = ['not-a-token', 'abc.def.ghi', `cc${ctx.config.runId}${'x'.repeat(40)}`, '0', '[]'];
    const sent: Exchange[] = await ctx.callEach([
      ...values.map((bearer) => ({ bearer, method: 'GET', path: '/v1/vms' })),
      // An Authorization header with no credentials after the scheme.
      { as: 'anonymous' as const, headers: { authorization: 'Bearer' }, method: 'GET', path: '/v1/vms' },
    ]);
    const accepted = sent.filter(wasAccepted);
    if (accepted.length)
      return fail(`accepted a malformed bearer value: ${accepted.map(describeExchange).join('; ')}`, accepted);
    return pass(`all ${sent.length} malformed bearer values were refused`, [], {
      statuses: sent.map(describeExchange),
    });
  },
};
