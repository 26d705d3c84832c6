import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { readLocation, describeLocation } from '../../src/engine/target/discover.ts';
import { describeExchange, isSuccess, observeErrorCase } from '../support.ts';
import { requestFor, servedOperations } from '../operations.ts';

/**
 * Revocation is immediate (seed §2): once a key is revoked, its tokens are refused at once and the key gets no new
 * token. The revoking operation is not shown, so it must be declared; the key must be one the user set aside.
 */
export const revokedKey: Check = {
  id: 'security.revoked-key',
  group: 'security',
  clauses: ['KEY-REVOCATION-IMMEDIATE'],
  level: 'must',
  why: { must: 'the seed says revocation is immediate (the revoking operation must be declared)' },
  title: 'A revoked key and its tokens stop working at once',
  async run(ctx) {
    const op = ctx.declarations.revokeKey;
    if (!op)
      return skip(
        'the overlay declares no revocation operation (x-revokes-key); keys are revoked in the console',
        'declare a revocation operation (x-revokes-key) in --overlay'
      );
    if (op.mode === 'by-id' && !op.lookup)
      return skip(
        "the revocation is declared by key id, but no link says where a key's id is",
        "declare a link to the revoking operation on the token response or on a GET answered with the key's own token"
      );
    if (!ctx.tokens.has('revocable'))
      return skip(
        'needs --api-key-revocable (a key the run may revoke)',
        '--api-key-revocable KEY (a key the run may revoke)'
      );
    if (ctx.config.readOnly) return skip('--read-only: revoking a key is a write', 'a run without --read-only');
    const { token, exchange: issued } = await ctx.tokens.issue('revocable', ctx.checkId);
    const before = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    if (!isSuccess(before))
      return skip(
        `the revocable key's token was not accepted to begin with (${describeExchange(before)})`,
        'an --api-key-revocable the target accepts'
      );
    let path = op.path;
    if (op.mode === 'by-id' && op.lookup) {
      // The key's id: on its token response, or from the declared lookup answered with its own token.
      const lookup =
        op.lookup.from === 'token'
          ? issued
          : await ctx.call({ bearer: token, method: op.lookup.from.method, path: op.lookup.from.path });
      const id = readLocation(lookup, op.lookup.id);
      if (typeof id !== 'string' || id === '')
        return fail(
          `the revocable key's id is not at the declared ${describeLocation(op.lookup.id)} of ${describeExchange(lookup)}`,
          [lookup]
        );
      path = op.path.replace('{id}', encodeURIComponent(id));
    }
    // Every other read the target serves (declared and discovered) with the key's token, before and after: a route that
    // validates tokens through a cache of its own keeps serving a revoked key's token, and only a read of it shows it.
    const reads = await Promise.all(
      (await servedOperations(ctx))
        .filter((o) => !o.public && o.shown && o.method === 'GET' && o.path !== '/v1/vms')
        .map((o) => requestFor(ctx, o))
    );
    const servedBefore = (
      await ctx.callEach(reads.map((r) => ({ bearer: token, method: 'GET', path: r.path })))
    ).filter(isSuccess).length;
    const revoked = await ctx.call({ bearer: token, method: op.method, path });
    if (!isSuccess(revoked)) return fail(`the declared revocation answered ${describeExchange(revoked)}`, [revoked]);
    ctx.ledger.record({
      kind: 'api-key-revoked',
      createdBy: ctx.checkId,
      note: '--api-key-revocable was revoked by this run',
    });
    const after = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    const reissue: Exchange = await ctx.tokens.exchange(ctx.tokens.secret('revocable')!, ctx.checkId);
    const swept = await ctx.callEach(reads.map((r) => ({ bearer: token, method: 'GET', path: r.path })));
    const still = [after, reissue, ...swept].filter(isSuccess);
    if (still.length)
      return fail(`after revocation ${still.map(describeExchange).join(' and ')} still succeeded`, [revoked, ...still]);
    // What a revoked key's token is refused with: the key-revoked case schema.declared-choices holds to the overlay.
    observeErrorCase(ctx, 'key-revoked', after);
    return pass(
      `after revocation the token was refused (${after.response?.status}) on the list and on ${swept.length} other reads (${servedBefore} of them served before the revocation), and the key got no new token (${reissue.response?.status})`
    );
  },
};
