import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, Unavailable } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { readLocation } from '../../src/engine/target/discover.ts';
import { wasAccepted, describeExchange, errorCode, alarmBodyFor } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';
import { documentOperations, requestFor } from '../operations.ts';

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const unb64url = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

/** Changes one character in the middle of a string to another of the same alphabet. */
export function alterMiddle(s: string): string {
  const i = Math.floor(s.length / 2);
  const c = s[i]!;
  const replacement = c === 'A' ? 'B' : c === 'a' ? 'b' : c === '0' ? '1' : /[A-Za-z0-9]/.test(c) ? 'A' : 'x';
  return s.slice(0, i) + replacement + s.slice(i + 1);
}

/** Variants of a genuine token that a signed-token scheme must refuse. */
export function tamperedVariants(token: string): Array<{ name: string; value: string }> {
  const parts = token.split('.');
  if (parts.length !== 3) return [{ name: 'one character altered', value: alterMiddle(token) }];
  const [header, payload, signature] = parts as [string, string, string];
  const variants = [
    { name: 'signature altered', value: `${header}.${payload}.${alterMiddle(signature)}` },
    { name: 'signature stripped', value: `${header}.${payload}.` },
  ];
  try {
    const claims = JSON.parse(unb64url(payload)) as Record<string, unknown>;
    const altered = { ...claims, role: 'admin', organization: 'cc-other-org', org: 'cc-other-org' };
    variants.push({ name: 'payload altered (role, organization)', value: `${header}.${b64url(JSON.stringify(altered))}.${signature}` });
    variants.push({ name: 'alg none', value: `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.` });
  } catch {
    variants.push({ name: 'payload altered', value: `${header}.${alterMiddle(payload)}.${signature}` });
  }
  return variants;
}

/**
 * Whether an altered token was let through on a write to an id that exists nowhere: it was served, or it got the very
 * answer a valid token gets (the object lookup's, say 404 not_found) where a request without a token gets another. An
 * answer of 401 or 403 is a refusal whatever a valid token gets.
 */
export function treatedAsValid(altered: Exchange, valid: Exchange, anonymous: Exchange): boolean {
  if (wasAccepted(altered)) return true;
  const status = altered.response?.status;
  if (status === undefined || status === 401 || status === 403 || status >= 500) return false;
  return status === valid.response?.status && errorCode(altered) === errorCode(valid) && status !== anonymous.response?.status;
}

/** Writes of the document (declared ones included) on ids that exist nowhere, each with an altered, a valid and no token. */
async function writesOnAbsentIds(ctx: CheckContext, altered: string): Promise<Array<{ name: string; altered: Exchange; valid: Exchange; anonymous: Exchange }>> {
  const revocation = ctx.declarations.revokeKey;
  // Only writes whose path names an object (which does not exist), so the valid token changes nothing; never a
  // revocation (an altered token a faulty target lets through would revoke the run's key).
  const ops = documentOperations(ctx).filter((o) => !o.public && o.method !== 'GET' && /\{[^}]+\}/.test(o.path)
    && !(revocation && revocation.method === o.method && revocation.path === o.path) && !/api-keys/.test(o.path));
  const out = [];
  for (const op of ops) {
    const request = await requestFor(ctx, op);
    const [a, v, n] = await ctx.callEach([{ ...request, bearer: altered }, request, { ...request, as: 'anonymous' as const }]);
    out.push({ name: op.operationId, altered: a!, valid: v!, anonymous: n! });
  }
  return out;
}

/**
 * The declared creates (a webhook registration, an alarm) with the altered token and a body valid in every other
 * respect: the suite's own receiver, the run's VM. What a faulty target makes is recorded for cleanup.
 */
async function declaredCreates(ctx: CheckContext, altered: string): Promise<Array<{ name: string; ex: Exchange }>> {
  const out: Array<{ name: string; ex: Exchange }> = [];
  const hooks = ctx.declarations.webhooks;
  if (hooks) {
    try {
      const s = await ctx.events.events();
      const url = `${new URL(s.main.url).origin}/cc-${ctx.config.runId}/tampered-probe`;
      const ex = await ctx.call({ bearer: altered, method: hooks.register.method, path: hooks.register.path, json: { [hooks.register.urlField]: url, [hooks.register.eventsField]: hooks.events.slice(0, 1).map((e) => e.name) } });
      if (wasAccepted(ex)) {
        const id = readLocation(ex, hooks.register.id);
        ctx.ledger.record({ kind: 'webhook', id: typeof id === 'string' && id !== '' ? id : undefined, name: url, createdBy: ctx.checkId, note: 'registered with an altered token' }, ex);
      }
      out.push({ name: 'altered token, registerWebhook with a valid body', ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
  }
  const alarms = ctx.declarations.alarms;
  if (alarms) {
    try {
      const vmId = await ctx.objects.createdVmId();
      const body = alarmBodyFor(alarms.firingBody, vmId);
      const ex = await ctx.call({ bearer: altered, method: alarms.create.method, path: alarms.create.path, json: body });
      if (wasAccepted(ex)) {
        const id = (ex.response?.json as { id?: unknown } | undefined)?.id;
        ctx.ledger.record({ kind: 'alarm', id: typeof id === 'string' ? id : undefined, createdBy: ctx.checkId, note: 'created with an altered token' }, ex);
      }
      out.push({ name: 'altered token, createAlarm with a valid body', ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
  }
  return out;
}

export const tamperedToken: Check = {
  id: 'auth.tampered-token',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-TOKEN-SIGNED'],
  level: 'must',
  why: { must: "the seed says the token is a signed credential" },
  title: 'A token whose payload or signature was altered is refused',
  async run(ctx) {
    // The list, and an object that exists (the run's task): a route that only decodes the token serves what it finds.
    const paths = ['/v1/vms'];
    let untried = '';
    try {
      paths.push(`/v1/tasks/${encodeURIComponent((await ctx.objects.vmTask()).id)}`);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      untried = `; not tried on the run's task (${err.message})`;
    }
    // A token with most of its life ahead, so an altered copy is refused for its alteration and never for its age.
    const genuine = await ctx.tokens.fresh('primary', ctx.checkId);
    ctx.observe('tokenFormat', genuine.split('.').length === 3 ? 'three dot-separated parts (JWT-like)' : 'opaque');
    const asked = tamperedVariants(genuine).flatMap((v) => {
      ctx.registerSecret(v.value, 'altered token');
      return paths.map((path) => ({ name: v.name, opts: { bearer: v.value, method: 'GET', path } }));
    });
    // Every other read of the document (declared ones included) with the first alteration: a handler that decodes the token itself serves it.
    const covered = new Set(paths.map((p) => ctx.schema.operationFor('merged', 'GET', p)?.op.operationId));
    const first = tamperedVariants(genuine)[0]!;
    for (const op of documentOperations(ctx).filter((o) => !o.public && o.method === 'GET' && !covered.has(o.operationId))) {
      const request = await requestFor(ctx, op);
      asked.push({ name: `${first.name}, ${op.operationId}`, opts: { bearer: first.value, method: 'GET', path: request.path } });
    }
    const answers = await ctx.callEach(asked.map((a) => a.opts));
    const sent: Array<{ name: string; ex: Exchange }> = asked.map((a, i) => ({ name: a.name, ex: answers[i]! }));
    const accepted = sent.filter((s) => wasAccepted(s.ex));
    // Writes too, where they stay harmless: on ids that exist nowhere, judged against a valid token and no token.
    const writes = ctx.config.readOnly ? [] : await writesOnAbsentIds(ctx, first.value);
    // And a create whose body is valid, so that only the token can be why it is refused.
    try {
      const { body } = ctx.objects.vmCreateBody('tampered');
      const ex = await ctx.call({ bearer: first.value, method: 'POST', path: '/v1/vms', json: body });
      if (wasAccepted(ex)) ctx.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'created with an altered token' }, ex);
      sent.push({ name: `${first.name}, createVm with a valid body`, ex });
      if (wasAccepted(ex)) accepted.push({ name: `${first.name}, createVm with a valid body`, ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      untried += `; no create sent (${err.message})`;
    }
    if (!ctx.config.readOnly) {
      for (const probe of await declaredCreates(ctx, first.value)) {
        sent.push(probe);
        if (wasAccepted(probe.ex)) accepted.push(probe);
      }
    }
    for (const w of writes.filter((w) => treatedAsValid(w.altered, w.valid, w.anonymous))) {
      accepted.push({ name: `${first.name}, ${w.name} (answered as a valid token is: ${describeExchange(w.valid)}; without a token: ${describeExchange(w.anonymous)})`, ex: w.altered });
    }
    if (accepted.length) {
      return fail(`accepted altered tokens: ${accepted.map((a) => `${a.name} (${describeExchange(a.ex)})`).join('; ')}`, accepted.map((a) => a.ex));
    }
    const reads = new Set(sent.map((s) => ctx.schema.operationFor('merged', 'GET', new URL(s.ex.request.url).pathname)?.op.operationId)).size;
    const writeNote = writes.length ? `; the first on ${writes.length} writes to ids that exist nowhere, each answered otherwise than a valid token` : '';
    return pass(`all ${sent.length + writes.length} requests with altered tokens were refused (${tamperedVariants(genuine).map((v) => v.name).join(', ')} on ${paths.length === 1 ? 'the list' : "the list and the run's task"}; the first on every other read, ${reads} reads in all${writeNote})${untried}`);
  },
};
