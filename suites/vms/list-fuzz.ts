import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { arbitraryFromSchema, type SchemaLike } from '../../src/engine/generate/arbitrary.ts';
import { pastTheEnd, vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess, prefetched } from '../support.ts';
import { tagFieldName, tagsOf } from './tag-filter.ts';

/** The list's query parameters as the document types them (base + overlay), by name. */
function parameterSchemas(ctx: Parameters<Check['run']>[0]): Record<string, SchemaLike> {
  const op = ctx.schema.operationFor('merged', 'GET', '/v1/vms')?.op;
  return Object.fromEntries(
    ((op?.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).map((p) => [p.name, (p.schema ?? {}) as SchemaLike])
  );
}

/**
 * Generated list queries (fast-check, --seed): page and per_page from their schemas (at least the first page and 1,
 * at most 100), tags from their key:value form over a plain alphabet. Each is served, holds at most per_page
 * items, and under a tag holds only VMs that carry it.
 */
export const listFuzz: Check = {
  id: 'vms.list-fuzz',
  group: 'vms',
  clauses: ['PAGE-PARAMS', 'PAGE-MAX-100', 'TAG-FILTER'],
  level: 'must',
  // Reads the list and changes nothing: beside the other list readers once the list is at rest.
  onlyReads: true,
  why: { must: 'the seed states page, per_page (at most 100) and the tag filter' },
  title: 'Generated list queries are served with at most per_page items, filtered by their tag',
  async run(ctx) {
    const params = parameterSchemas(ctx);
    const first = await ctx.objects.firstPage();
    const field = await tagFieldName(ctx);
    // Unbiased: fast-check leans towards the ends of a range by default, and the middle of 1-100 matters as much.
    const perPage = fc.noBias(
      arbitraryFromSchema(
        {
          ...params['per_page'],
          type: 'integer',
          minimum: Math.max(1, params['per_page']?.minimum ?? 1),
          maximum: Math.min(100, params['per_page']?.maximum ?? 100),
        },
        { numberSpan: 99 }
      ) as fc.Arbitrary<number>
    );
    const page = fc.integer({ min: first, max: first + 2 });
    const tag = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}:[a-z0-9-]{1,8}$/);
    const query = fc.record(
      { page, per_page: perPage, tag: fc.option(tag, { nil: undefined }) },
      { requiredKeys: ['per_page'] }
    );
    const sentFor = new Map<string, Exchange>();
    const problems = new Map<string, string>();
    const list = (q: Record<string, unknown>) =>
      ctx.call({ method: 'GET', path: '/v1/vms', query: q as Record<string, string | number | undefined> });
    const send = prefetched(fc.sample(query, { seed: ctx.config.seed, numRuns: ctx.config.randomCases }), 4, list);
    const property = fc.asyncProperty(query, async (q) => {
      const key = JSON.stringify(q);
      const ex = await send(q);
      sentFor.set(key, ex);
      // A page past the last one may be refused (404, say): the query's first page tells, by its totals.
      const offset = ((q.page as number | undefined) ?? first) - first;
      if (!isSuccess(ex) && offset > 0) {
        const head = await ctx.call({
          method: 'GET',
          path: '/v1/vms',
          query: { ...(q as Record<string, string | number | undefined>), page: first },
        });
        if (isSuccess(head) && pastTheEnd(ex, head, offset * (q.per_page as number))) return true;
      }
      const problem = !isSuccess(ex)
        ? `answered ${describeExchange(ex)}`
        : vmsOf(ex).length > (q.per_page as number)
          ? `returned ${vmsOf(ex).length} items for per_page=${q.per_page}`
          : q.tag &&
              vmsOf(ex).some(
                (v) => tagsOf(v, field) !== undefined && !tagsOf(v, field)!.some(([k, val]) => `${k}:${val}` === q.tag)
              )
            ? `tag=${q.tag} returned VMs without that tag`
            : undefined;
      if (problem) problems.set(key, problem);
      return !problem;
    });
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: ctx.config.randomCases });
    if (details.failed && details.counterexample) {
      const key = JSON.stringify(details.counterexample[0]);
      return fail(
        `${problems.get(key)} (query ${key}, seed ${ctx.config.seed}, after ${details.numShrinks} shrinks)`,
        [sentFor.get(key)!],
        { query: details.counterexample[0], seed: ctx.config.seed }
      );
    }
    if (details.failed) return fail(`the generation stopped: ${String(details.errorInstance)}`, []);
    return pass(`${sentFor.size} generated list queries held (seed ${ctx.config.seed})`);
  },
};
