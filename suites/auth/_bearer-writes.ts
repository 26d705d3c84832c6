// Helpers, not checks: writes sent with a token a target must refuse (altered, expired), where they stay harmless, and
// how their answers are told from a valid token's.
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { Unavailable } from '../../src/engine/run/check.ts';
import { readLocation } from '../../src/engine/target/discover.ts';
import { wasAccepted, errorCode, alarmBodyFor, describeExchange } from '../support.ts';
import { notShown, requestFor, servedOperations } from '../operations.ts';

/**
 * Whether a token that must be refused (altered, expired) was let through on a write to an id that exists nowhere: it
 * was served, or it got the very answer a valid token gets (the object lookup's, say 404 not_found) where a request
 * without a token gets another. An answer of 401 or 403 is a refusal whatever a valid token gets.
 */
export function treatedAsValid(refusable: Exchange, valid: Exchange, anonymous: Exchange): boolean {
  if (wasAccepted(refusable)) return true;
  const status = refusable.response?.status;
  // 405 and 501 say no operation was reached, with either token.
  if (status === undefined || [401, 403, 405, 501].includes(status) || status >= 500) return false;
  return (
    status === valid.response?.status &&
    errorCode(refusable) === errorCode(valid) &&
    status !== anonymous.response?.status
  );
}

/**
 * Writes the target serves (the document's, the overlay's, those an Allow listed) on ids that exist nowhere, each with
 * the given token, a valid one and none. A conventional write no answer listed is left out: whether its route exists
 * is unknown, and an answer of a route that does not exist says nothing of tokens (notShown names it).
 */
export async function writesOnAbsentIds(
  ctx: CheckContext,
  bearer: string
): Promise<Array<{ name: string; refusable: Exchange; valid: Exchange; anonymous: Exchange }>> {
  const revocation = ctx.declarations.revokeKey;
  // Only writes whose path names an object (which does not exist), so the valid token changes nothing; never a
  // revocation (a token a faulty target lets through would revoke the run's key).
  const ops = (await servedOperations(ctx)).filter(
    (o) =>
      !o.public &&
      o.shown &&
      o.method !== 'GET' &&
      /\{[^}]+\}/.test(o.path) &&
      !o.revokesKey &&
      !(revocation && revocation.method === o.method && revocation.path === o.path) &&
      !/api-keys/.test(o.path)
  );
  const out = [];
  for (const op of ops) {
    const request = await requestFor(ctx, op);
    const [r, v, n] = await ctx.callEach([{ ...request, bearer }, request, { ...request, as: 'anonymous' as const }]);
    out.push({ name: op.operationId, refusable: r!, valid: v!, anonymous: n! });
  }
  return out;
}

/** What the writes on absent ids could not reach, with the declaration that would reach it ('' when nothing). */
export async function unreachedWrites(ctx: CheckContext): Promise<string> {
  if (ctx.config.readOnly) return '';
  const left = notShown((await servedOperations(ctx)).filter((o) => o.method !== 'GET'));
  return left.length ? `; not verified on ${left.join(', ')}` : '';
}

/** The writes on absent ids the token was let through on, each named with what a valid token and no token got. */
export function letThroughOnIds(
  writes: ReadonlyArray<{ name: string; refusable: Exchange; valid: Exchange; anonymous: Exchange }>
): Array<{ name: string; ex: Exchange }> {
  return writes
    .filter((w) => treatedAsValid(w.refusable, w.valid, w.anonymous))
    .map((w) => ({
      name: `${w.name} (answered as a valid token is: ${describeExchange(w.valid)}; without a token: ${describeExchange(w.anonymous)})`,
      ex: w.refusable,
    }));
}

/**
 * The VM create with a token that must be refused (`what` it is) and a body valid in every other respect, so only the
 * token can be why it is refused; what a faulty target makes is recorded for cleanup. Why none was sent, otherwise.
 */
export async function vmCreateWith(
  ctx: CheckContext,
  bearer: string,
  what: string,
  nameSuffix: string
): Promise<{ name: string; ex: Exchange } | { untried: string }> {
  try {
    const { body } = ctx.objects.vmCreateBody(nameSuffix);
    const ex = await ctx.call({ bearer, method: 'POST', path: '/v1/vms', json: body });
    if (wasAccepted(ex))
      ctx.ledger.record(
        { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: `created with an ${what} token` },
        ex
      );
    return { name: 'createVm with a valid body', ex };
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    return { untried: err.message };
  }
}

/**
 * The declared creates (a webhook registration, an alarm) with a token that must be refused (`what` it is: altered,
 * expired) and a body valid in every other respect: the suite's own receiver, the run's VM. What a faulty target makes
 * is recorded for cleanup.
 */
export async function declaredCreates(
  ctx: CheckContext,
  bearer: string,
  what: string
): Promise<Array<{ name: string; ex: Exchange }>> {
  const out: Array<{ name: string; ex: Exchange }> = [];
  const hooks = ctx.declarations.webhooks;
  if (hooks) {
    try {
      const s = await ctx.events.events();
      const url = `${new URL(s.main.url).origin}/cc-${ctx.config.runId}/${what}-token-probe`;
      const ex = await ctx.call({
        bearer,
        method: hooks.register.method,
        path: hooks.register.path,
        json: {
          [hooks.register.urlField]: url,
          [hooks.register.eventsField]: hooks.events.slice(0, 1).map((e) => e.name),
        },
      });
      if (wasAccepted(ex)) {
        const id = readLocation(ex, hooks.register.id);
        ctx.ledger.record(
          {
            kind: 'webhook',
            id: typeof id === 'string' && id !== '' ? id : undefined,
            name: url,
            createdBy: ctx.checkId,
            note: `registered with an ${what} token`,
          },
          ex
        );
      }
      out.push({ name: `${what} token, registerWebhook with a valid body`, ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
  }
  const alarms = ctx.declarations.alarms;
  if (alarms) {
    try {
      const vmId = await ctx.objects.createdVmId();
      const body = alarmBodyFor(alarms.firingBody, vmId);
      const ex = await ctx.call({ bearer, method: alarms.create.method, path: alarms.create.path, json: body });
      if (wasAccepted(ex)) {
        const id = (ex.response?.json as { id?: unknown } | undefined)?.id;
        ctx.ledger.record(
          {
            kind: 'alarm',
            id: typeof id === 'string' ? id : undefined,
            createdBy: ctx.checkId,
            note: `created with an ${what} token`,
          },
          ex
        );
      }
      out.push({ name: `${what} token, createAlarm with a valid body`, ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
  }
  return out;
}
