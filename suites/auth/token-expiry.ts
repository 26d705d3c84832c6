import type { Check } from '../../src/engine/run/check.ts';
import { fail, skip, judge, finding, type Finding } from '../../src/engine/run/check.ts';
import { QUICK_MAX_WAIT_SECONDS } from '../../src/engine/config/config.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { wasAccepted, describeExchange, observeErrorCase } from '../support.ts';
import { requestFor, servedOperations } from '../operations.ts';
import {
  declaredCreates,
  letThroughOnIds,
  unreachedWrites,
  vmCreateWith,
  writesOnAbsentIds,
} from './_bearer-writes.ts';

/** The expired token on every read the target serves but the list (declared and discovered ones): expiry is enforced per route. */
async function sweepReads(ctx: CheckContext, token: string): Promise<Exchange[]> {
  const reads = await Promise.all(
    (await servedOperations(ctx))
      .filter((o) => !o.public && o.shown && o.method === 'GET' && o.path !== '/v1/vms')
      .map((o) => requestFor(ctx, o))
  );
  return ctx.callEach(reads.map((r) => ({ bearer: token, method: 'GET', path: r.path })));
}

const LIFETIME_SECONDS = 3600;

/** What the expired token got on the writes (G4): those let through as a valid token is, and every answer. */
interface WriteSweep {
  letThrough: Array<{ name: string; ex: Exchange }>;
  answers: Exchange[];
}

/**
 * The expired token on every write that stays harmless: the writes of the document on ids that exist nowhere (judged
 * against a valid token and none), the VM create and the declared creates with a valid body (what a faulty target
 * makes is recorded for cleanup). None under --read-only.
 */
async function sweepWrites(ctx: CheckContext, token: string): Promise<WriteSweep> {
  if (ctx.config.readOnly) return { letThrough: [], answers: [] };
  const onIds = await writesOnAbsentIds(ctx, token);
  const letThrough = letThroughOnIds(onIds);
  const creates = await declaredCreates(ctx, token, 'expired');
  const create = await vmCreateWith(ctx, token, 'expired', 'expired');
  if (!('untried' in create)) creates.push(create);
  letThrough.push(...creates.filter((c) => wasAccepted(c.ex)));
  return { letThrough, answers: [...onIds.map((w) => w.refusable), ...creates.map((c) => c.ex)] };
}

/** An expired bearer token is invalid_token, 401 (RFC 6750 §3.1): a 403 is warned, on the list and on every other request. */
function expiredStatus(refused: Exchange[]): Finding[] {
  const forbidden = refused.filter((ex) => ex.response?.status === 403);
  if (forbidden.length === 0) return [];
  return [
    finding(
      'should',
      `the expired token was answered 403 on ${forbidden.length} of ${refused.length} requests (${forbidden.slice(0, 3).map(describeExchange).join('; ')}); an expired bearer token is invalid_token, 401 (RFC 6750 §3.1), and 403 says the caller may not`,
      forbidden.slice(0, 10)
    ),
  ];
}

/** A token is accepted until just before its lifetime ends, refused once it is older, and a new token from the same key works. */
export const tokenExpiry: Check = {
  id: 'auth.token-expiry',
  group: 'auth',
  clauses: ['AUTH-TOKEN-EXPIRY', 'AUTH-TOKEN-TTL'],
  level: 'must',
  why: {
    must: 'the seed states a one-hour lifetime after which a token is no longer valid',
    should:
      'the seed shows no status for an expired token: 401 invalid_token is the bearer-token convention (RFC 6750 §3.1), 403 says the caller may not',
  },
  title: 'A token is valid until 3600 seconds and refused after, on reads and writes; a new one must be requested',
  async run(ctx) {
    if (ctx.config.expiredToken) {
      // A token the user vouches is past its lifetime: judged at once, no waiting.
      ctx.registerSecret(ctx.config.expiredToken, 'expired token');
      const ex = await ctx.call({
        bearer: ctx.config.expiredToken,
        method: 'GET',
        path: '/v1/vms',
        query: { per_page: 1 },
      });
      if (wasAccepted(ex)) return fail('the token given with --expired-token was accepted', [ex]);
      const swept = await sweepReads(ctx, ctx.config.expiredToken);
      const served = swept.filter(wasAccepted);
      if (served.length)
        return fail(
          `the token given with --expired-token was refused on the list but served by ${served.map(describeExchange).join('; ')}`,
          [ex, ...served]
        );
      const writes = await sweepWrites(ctx, ctx.config.expiredToken);
      if (writes.letThrough.length)
        return fail(
          `the token given with --expired-token was refused on the list but let through on writes: ${writes.letThrough.map((w) => `${w.name} → ${describeExchange(w.ex)}`).join('; ')}`,
          [ex, ...writes.letThrough.map((w) => w.ex)]
        );
      observeErrorCase(ctx, 'token-expired', ex);
      return judge(
        expiredStatus([ex, ...swept, ...writes.answers]),
        `the token given with --expired-token was refused (${describeExchange(ex)}), on the list, on every other read${writes.answers.length ? ` and on ${writes.answers.length} writes` : ''}${await unreachedWrites(ctx)}`
      );
    }
    const realWait = (LIFETIME_SECONDS + 2) / ctx.config.timeScale;
    if (ctx.config.profile === 'quick' && realWait > QUICK_MAX_WAIT_SECONDS) {
      return skip(
        `needs --profile full: it waits out the token lifetime (${Math.ceil(realWait)} s at time scale ${ctx.config.timeScale})`,
        '--profile full (or certify), or --expired-token TOKEN'
      );
    }
    const { token, exchange: issued } = await ctx.tokens.issue('primary', ctx.checkId);
    const fresh = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    if (!wasAccepted(fresh))
      return skip(
        `a fresh token was not accepted (${describeExchange(fresh)}); cannot tell expiry apart`,
        'a token the target accepts (see auth.token-shape)'
      );
    // Target-seconds since the token was asked for (the earliest it can have been issued) and since it arrived.
    const requestedAt = Date.parse(issued.startedAt);
    const arrivedAt = requestedAt + issued.durationMs;
    const ageAt = (since: number, realMs: number) => ((realMs - since) * ctx.config.timeScale) / 1000;
    // Shortly before the lifetime ends it is still valid: a guard of a minute, or half a real second under a time scale.
    const guard = Math.max(60, 0.5 * ctx.config.timeScale);
    await ctx.sleepTarget(
      Math.max(0, LIFETIME_SECONDS - guard - ageAt(requestedAt, Date.now())),
      'the token lifetime, less a guard, to pass (target time)'
    );
    const late = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    const lateAge = ageAt(requestedAt, Date.parse(late.startedAt) + late.durationMs);
    if (!wasAccepted(late) && lateAge < LIFETIME_SECONDS - 1) {
      return fail(
        `a token at most ${Math.ceil(lateAge)} s old was refused, before its ${LIFETIME_SECONDS}-s lifetime ended (${describeExchange(late)})`,
        [fresh, late],
        { ageSeconds: Math.ceil(lateAge) }
      );
    }
    await ctx.sleepTarget(
      Math.max(0, LIFETIME_SECONDS + 2 - ageAt(arrivedAt, Date.now())),
      'the token lifetime to pass (3600 s and 2 more, target time)'
    );
    const expired = await ctx.call({ bearer: token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    if (wasAccepted(expired)) return fail(`a token ${LIFETIME_SECONDS + 2} s old was still accepted`, [fresh, expired]);
    const swept = await sweepReads(ctx, token);
    const served = swept.filter(wasAccepted);
    if (served.length)
      return fail(
        `a token ${LIFETIME_SECONDS + 2} s old was refused on the list but still served by ${served.map(describeExchange).join('; ')}`,
        [expired, ...served]
      );
    const writes = await sweepWrites(ctx, token);
    if (writes.letThrough.length)
      return fail(
        `a token ${LIFETIME_SECONDS + 2} s old was refused on the list but let through on writes: ${writes.letThrough.map((w) => `${w.name} → ${describeExchange(w.ex)}`).join('; ')}`,
        [expired, ...writes.letThrough.map((w) => w.ex)]
      );
    const renewed = await ctx.tokens.issue('primary', ctx.checkId);
    const after = await ctx.call({ bearer: renewed.token, method: 'GET', path: '/v1/vms', query: { per_page: 1 } });
    if (!wasAccepted(after))
      return fail(`a new token requested after expiry was not accepted (${describeExchange(after)})`, [expired, after]);
    observeErrorCase(ctx, 'token-expired', expired);
    const lateNote = wasAccepted(late) ? `accepted at ${Math.floor(lateAge)} s, ` : '';
    return judge(
      expiredStatus([expired, ...swept, ...writes.answers]),
      `${lateNote}the expired token was refused (${describeExchange(expired)}), on the list, on every other read${writes.answers.length ? ` and on ${writes.answers.length} writes` : ''}; a new token worked${await unreachedWrites(ctx)}`,
      [late, expired]
    );
  },
};
