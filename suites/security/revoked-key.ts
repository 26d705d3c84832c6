import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { describe, isSuccess } from '../support.ts';

/**
 * Revocation is immediate (seed §2): once a key is revoked, its tokens are refused at once and the key gets no new
 * token. The revoking operation is not shown, so it must be declared; the key must be one the user set aside.
 */
export const revokedKey: Check = {
  id: 'security.revoked-key',
  group: 'security',
  clauses: ['KEY-REVOCATION-IMMEDIATE'],
  level: 'must',
  why: { must: "the seed says revocation is immediate (the revoking operation must be declared)" },
  title: 'A revoked key and its tokens stop working at once',
  async run(ctx) {
    const op = ctx.declarations.revokeKey;
    if (!op) return skip('the overlay declares no revocation operation (x-revokes-key: current); keys are revoked in the console', 'declare a revocation operation (x-revokes-key) in --overlay');
    if (!ctx.tokens.has('revocable')) return skip('needs --api-key-revocable (a key the run may revoke)', '--api-key-revocable KEY (a key the run may revoke)');
    if (ctx.config.readOnly) return skip('--read-only: revoking a key is a write', 'a run without --read-only');
    const { token } = await ctx.tokens.issue('revocable', ctx.checkId);
    const before = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    if (!isSuccess(before)) return skip(`the revocable key's token was not accepted to begin with (${describe(before)})`, 'an --api-key-revocable the target accepts');
    const revoked = await ctx.call({ bearer: token, method: op.method, path: op.path });
    if (!isSuccess(revoked)) return fail(`the declared revocation answered ${describe(revoked)}`, [revoked]);
    ctx.ledger.record({ kind: 'api-key-revoked', createdBy: ctx.checkId, note: '--api-key-revocable was revoked by this run' });
    const after = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    const reissue: Exchange = await ctx.tokens.exchange(ctx.tokens.secret('revocable')!, ctx.checkId);
    const still = [after, reissue].filter(isSuccess);
    if (still.length) return fail(`after revocation ${still.map(describe).join(' and ')} still succeeded`, [revoked, ...still]);
    return pass(`after revocation the token was refused (${after.response?.status}) and the key got no new token (${reissue.response?.status})`);
  },
};
