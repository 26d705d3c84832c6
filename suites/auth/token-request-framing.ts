import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, wasAccepted } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** The keys a framing probe may exchange: any but the primary, whose issuance budget the limit probe counts. */
const SPARE_KEYS = ['readonly', 'second'] as const;

/**
 * Convention, not seed: a token request is JSON like every other (RFC 8259 §2: one value). Token issuance often has a
 * parser of its own, so the create's media-type and trailing-data conventions are asked of it too: a valid request
 * labelled text/plain, and one followed by a second JSON value, are refused with a 4xx rather than exchanged.
 */
export const tokenRequestFraming: Check = {
  id: 'auth.token-request-framing',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['SVC-JSON'],
  level: 'should',
  why: {
    should:
      'the seed says requests are JSON and shows no media-type rule: refusing a body labelled otherwise, or a JSON value followed by more, is convention (RFC 9110 §15.5.16, RFC 8259 §2)',
  },
  title: 'A token request labelled other than JSON, or with data after its JSON value, is not exchanged for a token',
  async run(ctx) {
    const key = SPARE_KEYS.find((k) => ctx.tokens.has(k));
    const secret = key && ctx.tokens.secret(key);
    if (!key || !secret)
      return skip(
        "the primary key's issuances belong to the limit probe, and the run holds no other key",
        '--api-key-readonly or --api-key-b'
      );
    const valid = JSON.stringify({ api_key: secret });
    const cases = [
      { name: 'a valid token request labelled text/plain', rawBody: valid, type: 'text/plain' },
      {
        name: 'a valid token request followed by a second JSON value',
        rawBody: `${valid} {"api_key": "second value"}`,
        type: 'application/json',
      },
    ];
    const answers = await ctx.callEach(
      cases.map((c) => ({
        as: 'anonymous' as const,
        method: 'POST',
        path: '/v1/auth/tokens',
        rawBody: c.rawBody,
        headers: { 'content-type': c.type },
      }))
    );
    const sent: Array<{ name: string; ex: Exchange }> = cases.map((c, i) => ({ name: c.name, ex: answers[i]! }));
    // A rate-limit refusal says nothing of the body: that case is not judged.
    const limited = sent.filter((s) => s.ex.response?.status === 429);
    const judged = sent.filter((s) => !limited.includes(s));
    // Exchanged for a token is this convention's failure; a 5xx on a body that does not parse is errors.malformed-json's.
    const wrong = judged.filter((s) => wasAccepted(s.ex));
    if (wrong.length)
      return fail(
        `exchanged for a token: ${wrong.map((w) => `${w.name} (${key} key) → ${describeExchange(w.ex)}`).join('; ')}`,
        wrong.map((w) => w.ex)
      );
    if (judged.length === 0)
      return skip(
        `both token requests met the ${key} key's issuance limit (429)`,
        'a run whose spare key has issuances left'
      );
    return pass(
      `${judged.map((s) => `${s.name} → ${s.ex.response!.status}`).join('; ')}${limited.length ? ` (not judged: ${limited.map((s) => s.name).join(', ')}, refused 429)` : ''}`
    );
  },
};
