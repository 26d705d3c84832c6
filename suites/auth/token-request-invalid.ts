import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { wasAccepted, describeExchange, observeErrorCase } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';
import { CredentialError } from '../../src/engine/identity/tokens.ts';

const swapCase = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/** Strings that differ from the key by little: each is not the key, so none may be exchanged. */
function nearMisses(key: string): Array<{ name: string; value: string }> {
  if (key.length < 2) return [];
  const last = key[key.length - 1]!;
  const out = [
    { name: 'the API key with its last character changed', value: key.slice(0, -1) + (last === 'a' ? 'b' : 'a') },
    { name: 'the API key without its last character', value: key.slice(0, -1) },
    { name: 'the API key with a character appended', value: key + 'a' },
    { name: 'the API key in the other case', value: swapCase(key) },
  ];
  // A key without letters reads the same in either case: that value is the key itself and is not sent.
  return out.filter((n) => n.value !== key);
}

/**
 * Token issuance exchanges a valid key only: no key, a wrong key, a key of the wrong type, or a near miss of the real
 * key (a character changed, dropped or added, the other case) gets no token.
 */
export const tokenRequestInvalid: Check = {
  id: 'auth.token-request-invalid',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-TOKEN-REQUEST'],
  level: 'must',
  why: { must: 'the seed says issuance exchanges an API key: no key, no token' },
  title: 'A token request without an api_key or with a wrong one is refused',
  async run(ctx) {
    const wrongKey = `cc-${ctx.config.runId}-not-a-key-${'0'.repeat(24)}`;
    const cases: Array<{ name: string; body: unknown }> = [
      { name: 'no api_key', body: {} },
      { name: 'wrong api_key', body: { api_key: wrongKey } },
      { name: 'empty api_key', body: { api_key: '' } },
      { name: 'api_key of the wrong type', body: { api_key: 12345 } },
    ];
    // Near misses of every key the run holds (whatever its organization or role): a target that compares a prefix, or
    // ignores case, gives them its token.
    const keys = (['primary', 'second', 'readonly'] as const).filter((k) => ctx.tokens.has(k));
    for (const key of keys) {
      for (const near of nearMisses(ctx.tokens.secret(key) ?? '')) {
        ctx.registerSecret(near.value, 'altered api key');
        cases.push({ name: `${near.name}${key === 'primary' ? '' : ` (${key} key)`}`, body: { api_key: near.value } });
      }
    }
    const answers = await ctx.callEach(
      cases.map((c) => ({ as: 'anonymous' as const, method: 'POST', path: '/v1/auth/tokens', json: c.body }))
    );
    const sent: Array<{ name: string; ex: Exchange }> = cases.map((c, i) => ({ name: c.name, ex: answers[i]! }));
    const accepted = sent.filter((s) => wasAccepted(s.ex));
    if (accepted.length) {
      return fail(
        `issued a token for: ${accepted.map((a) => `${a.name} (${describeExchange(a.ex)})`).join('; ')}`,
        accepted.map((a) => a.ex)
      );
    }
    // The other half of the clause: each valid key is exchanged (the token answer the run holds for it, else a new one).
    const refused: CredentialError[] = [];
    for (const key of keys) {
      await ctx.tokens.response(key).catch((err: unknown) => {
        if (!(err instanceof CredentialError)) throw err;
        refused.push(err);
      });
    }
    if (refused.length)
      return fail(
        `a valid key got no token: ${refused.map((e) => e.message).join('; ')}`,
        refused.map((e) => e.exchange)
      );
    observeErrorCase(ctx, 'invalid-api-key', sent[1]!.ex);
    observeErrorCase(ctx, 'invalid-request', sent[0]!.ex);
    return pass(
      `all ${sent.length} invalid token requests were refused (near misses of ${keys.length === 1 ? 'the key' : `each of the ${keys.length} keys`}), and ${keys.length === 1 ? 'the valid key was' : 'every valid key was'} exchanged`,
      [],
      { statuses: sent.map((s) => `${s.name}: ${describeExchange(s.ex)}`) }
    );
  },
};
