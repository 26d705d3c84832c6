import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { fromLog, describeExchange } from '../support.ts';
import { isShapedPath } from './path-shapes.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

function problemOf(ex: Exchange, declaredTypes: string[]): string | undefined {
  const r = ex.response!;
  if (r.status === 204 || r.status === 304 || ex.request.method === 'HEAD') return undefined;
  const type = r.headers['content-type'];
  // A success the overlay declares in another media type (an export as text/csv) is held to that instead.
  if (
    type &&
    r.status < 400 &&
    declaredTypes.some((t) => !JSON_TYPE.test(t) && type.toLowerCase().startsWith(t.toLowerCase()))
  )
    return undefined;
  if (!type || !JSON_TYPE.test(type)) return `content type ${JSON.stringify(type ?? null)}`;
  if (r.json === undefined) return r.truncated ? 'body larger than the suite accepts' : 'body is not valid JSON';
  return undefined;
}

/** Responses are JSON: a JSON content type and a body that parses. */
export const jsonResponses: Check = {
  id: 'errors.json-responses',
  group: 'errors',
  clauses: ['SVC-JSON'],
  level: 'must',
  why: { must: 'the seed says responses are JSON' },
  title: 'Every response is JSON (content type and body)',
  reviewsLog: true,
  async run(ctx) {
    // errors.path-shapes holds the answers to its paths of other shapes to JSON itself (a redirect's body aside).
    const all = fromLog(ctx, (ex) => !isShapedPath(ex));
    const declaredTypes = (ex: Exchange): string[] => {
      const found = ctx.schema.operationFor('merged', ex.request.method, new URL(ex.request.url).pathname);
      return Object.values(found?.op.responses ?? {}).flatMap((r) =>
        Object.keys((r as { content?: object }).content ?? {})
      );
    };
    const bad = all.map((ex) => ({ ex, problem: problemOf(ex, declaredTypes(ex)) })).filter((r) => r.problem);
    if (bad.length) {
      return fail(
        `${bad.length} of ${all.length} responses are not JSON: ${describeExchange(bad[0]!.ex)}: ${bad[0]!.problem}`,
        bad.map((b) => b.ex),
        {
          violations: bad.slice(0, 10).map((b) => `${describeExchange(b.ex)}: ${b.problem}`),
        }
      );
    }
    ctx.observe(
      'jsonMediaTypes',
      [...new Set(all.map((ex) => ex.response!.headers['content-type']).filter((t) => t && JSON_TYPE.test(t)))].sort()
    );
    return pass(`all ${all.length} responses are JSON`);
  },
};
