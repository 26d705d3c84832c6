import type { Check, Finding } from '../../src/engine/run/check.ts';
import { judge, finding, skip } from '../../src/engine/run/check.ts';
import { isSuccess, describeExchange } from '../support.ts';

/**
 * Issuance is limited per key: another key still gets a token when the primary key's budget is spent, be it a key of
 * a second organization or another key of the same organization (the read-only key), so the count is not per organization.
 */
export const keyScope: Check = {
  id: 'limits.key-scope',
  group: 'limits',
  clauses: ['LIMIT-TOKEN-10'],
  level: 'must',
  why: { must: 'the seed states the issuance limit per API key' },
  title: 'Another API key has its own token-issuance budget',
  async run(ctx) {
    if (!ctx.tokens.has('second') && !ctx.tokens.has('readonly'))
      return skip(
        'needs --api-key-b or --api-key-readonly (another key)',
        '--api-key-b KEY (a key of a second organization) or --api-key-readonly KEY'
      );
    const probe = ctx.limits?.token;
    const others = [
      { flag: '--api-key-b', ex: probe?.scope },
      // The same secret twice is one key, which shares its budget.
      {
        flag: '--api-key-readonly',
        ex: ctx.tokens.secret('readonly') === ctx.tokens.secret('primary') ? undefined : probe?.scopeReadonly,
      },
    ].filter((o) => o.ex !== undefined);
    if (!probe?.firstRejection || others.length === 0)
      return skip(
        'the primary key was never limited during the probe, so the scope could not be seen',
        'the issuance probe must meet a rejection (see limits.token-limit)'
      );
    const findings: Finding[] = others
      .filter((o) => !isSuccess(o.ex!))
      .map((o) =>
        finding(
          'must',
          `${o.flag} was refused a token while --api-key's budget was spent: ${describeExchange(o.ex!)}`,
          [probe.firstRejection!, o.ex!]
        )
      );
    return judge(
      findings,
      `${others.map((o) => o.flag).join(' and ')} ${others.length > 1 ? 'were' : 'was'} issued a token while --api-key was limited`
    );
  },
};
