import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, Unavailable } from '../../src/engine/run/check.ts';
import { wasAccepted, describeExchange } from '../support.ts';
import {
  declaredCreates,
  letThroughOnIds,
  unreachedWrites,
  vmCreateWith,
  writesOnAbsentIds,
} from './_bearer-writes.ts';
import { REFUSAL_PROBES } from '../shares.ts';
import { requestFor, servedOperations } from '../operations.ts';

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const unb64url = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

/** Changes one character in the middle of a string to another of the same alphabet. */
function alterMiddle(s: string): string {
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
    variants.push({
      name: 'payload altered (role, organization)',
      value: `${header}.${b64url(JSON.stringify(altered))}.${signature}`,
    });
    variants.push({ name: 'alg none', value: `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.` });
  } catch {
    variants.push({ name: 'payload altered', value: `${header}.${alterMiddle(payload)}.${signature}` });
  }
  return variants;
}

export const tamperedToken: Check = {
  id: 'auth.tampered-token',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-TOKEN-SIGNED'],
  level: 'must',
  why: { must: 'the seed says the token is a signed credential' },
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
    // Every other read the target serves (declared and discovered ones) with the first alteration: a handler that
    // decodes the token itself serves it.
    const covered = new Set(paths.map((p) => ctx.operations.operationFor('GET', p)?.operationId));
    const first = tamperedVariants(genuine)[0]!;
    for (const op of (await servedOperations(ctx)).filter(
      (o) => !o.public && o.shown && o.method === 'GET' && !covered.has(o.operationId)
    )) {
      const request = await requestFor(ctx, op);
      asked.push({
        name: `${first.name}, ${op.operationId}`,
        opts: { bearer: first.value, method: 'GET', path: request.path },
      });
    }
    const answers = await ctx.callEach(asked.map((a) => a.opts));
    const sent: Array<{ name: string; ex: Exchange }> = asked.map((a, i) => ({ name: a.name, ex: answers[i]! }));
    const accepted = sent.filter((s) => wasAccepted(s.ex));
    // Writes too, where they stay harmless: on ids that exist nowhere, judged against a valid token and no token.
    const writes = ctx.config.readOnly ? [] : await writesOnAbsentIds(ctx, first.value);
    // And a create whose body is valid, so that only the token can be why it is refused.
    const create = await vmCreateWith(ctx, first.value, 'altered', 'tampered');
    if ('untried' in create) untried += `; no create sent (${create.untried})`;
    else {
      const probe = { name: `${first.name}, ${create.name}`, ex: create.ex };
      sent.push(probe);
      if (wasAccepted(create.ex)) accepted.push(probe);
    }
    if (!ctx.config.readOnly) {
      for (const probe of await declaredCreates(ctx, first.value, 'altered')) {
        sent.push(probe);
        if (wasAccepted(probe.ex)) accepted.push(probe);
      }
    }
    for (const w of letThroughOnIds(writes)) accepted.push({ name: `${first.name}, ${w.name}`, ex: w.ex });
    if (accepted.length) {
      return fail(
        `accepted altered tokens: ${accepted.map((a) => `${a.name} (${describeExchange(a.ex)})`).join('; ')}`,
        accepted.map((a) => a.ex)
      );
    }
    const reads = new Set(
      sent.map((s) => ctx.operations.operationFor('GET', new URL(s.ex.request.url).pathname)?.operationId)
    ).size;
    const writeNote = writes.length
      ? `; the first on ${writes.length} writes to ids that exist nowhere, each answered otherwise than a valid token`
      : '';
    return pass(
      `all ${sent.length + writes.length} requests with altered tokens were refused (${tamperedVariants(genuine)
        .map((v) => v.name)
        .join(
          ', '
        )} on ${paths.length === 1 ? 'the list' : "the list and the run's task"}; the first on every other read, ${reads} reads in all${writeNote})${untried}${await unreachedWrites(ctx)}`
    );
  },
};
