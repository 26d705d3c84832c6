import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { KEY_NAMES } from '../../src/engine/config/config.ts';
import { keyLabel } from '../../src/engine/identity/tokens.ts';

/**
 * Where an answer shows a secret: its body or one of its headers. The log holds answers redacted, so a key's secret
 * reads there as its redaction mark.
 */
function shownIn(ex: Exchange, mark: string): string | undefined {
  const r = ex.response;
  if (!r) return undefined;
  if (r.body?.includes(mark)) return 'its body';
  const header = Object.entries(r.headers).find(([, v]) => String(v).includes(mark));
  return header ? `its ${header[0]} header` : undefined;
}

/**
 * An API key's secret is displayed once only, in the console (seed §2): no answer of the API shows it again, whatever
 * the operation (the document's, the overlay's or one the run discovered). Every answer the run received is searched
 * for the secrets of the keys it holds.
 */
export const keySecretHidden: Check = {
  id: 'security.key-secret-hidden',
  group: 'security',
  clauses: ['KEY-CONSOLE-CREATED'],
  level: 'must',
  why: {
    must: "the seed says an API key's secret is displayed once only, in the console: an API answer that shows it displays it again",
  },
  title: "No answer shows an API key's secret",
  reviewsLog: true,
  async run(ctx) {
    const secrets = KEY_NAMES.filter((k) => ctx.tokens.has(k)).map(
      (k) => [k, `[REDACTED ${keyLabel(ctx.config.keyVariables[k])}]`] as const
    );
    const shown: Array<{ key: string; ex: Exchange; where: string }> = [];
    for (const ex of ctx.log)
      for (const [key, secret] of secrets) {
        const where = shownIn(ex, secret);
        if (where) shown.push({ key, ex, where });
      }
    if (shown.length) {
      const first = shown[0]!;
      const ops = [...new Set(shown.map((s) => `${s.ex.request.method} ${new URL(s.ex.request.url).pathname}`))];
      return fail(
        `${shown.length} answers show the secret of an API key the run holds, e.g. the ${first.key} key's in ${first.where} of ${ops[0]} → ${first.ex.response!.status} (${ops.length} operation${ops.length > 1 ? 's' : ''}: ${ops.slice(0, 5).join(', ')})`,
        shown.slice(0, 3).map((s) => s.ex)
      );
    }
    return pass(
      `none of the ${ctx.log.filter((ex) => ex.response).length} answers shows the secret of the ${secrets.length} keys the run holds`
    );
  },
};
