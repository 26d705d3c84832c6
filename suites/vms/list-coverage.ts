import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { vmsOf } from '../../src/engine/fixtures.ts';
import { describe, isSuccess } from '../support.ts';

/** Tag values with characters that URL and query handling get wrong. */
export const AWKWARD_TAG_VALUES = ['a b', 'a+b', 'a/b', 'a&b=c', 'a#b', 'a%b', 'a:b', 'ü', '日本', "a'b\"c"];

/**
 * Deterministic coverage of the list's query: a tag nobody carries returns no VM whatever characters its value
 * holds (TAG-FILTER), and a page or per_page that is not an integer is the client's error (PAGE-PARAMS).
 */
export const listCoverage: Check = {
  id: 'vms.list-coverage',
  group: 'vms',
  clauses: ['TAG-FILTER', 'PAGE-PARAMS'],
  level: 'must',
  why: { must: "the seed states the tag filter and the integer page parameters; any well-formed filter is honoured and nothing gets a 5xx" },
  title: 'Tag filters with awkward characters and non-integer paging are handled',
  async run(ctx) {
    const problems: Array<{ ex: Exchange; problem: string }> = [];
    for (const value of AWKWARD_TAG_VALUES) {
      const tag = `cc-absent-${ctx.config.runId}:${value}`;
      const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag } });
      const status = ex.response?.status;
      if (status === undefined || status >= 500) problems.push({ ex, problem: `tag=${JSON.stringify(tag)} answered ${describe(ex)}` });
      else if (isSuccess(ex) && vmsOf(ex).length > 0) problems.push({ ex, problem: `tag=${JSON.stringify(tag)}, which no VM carries, returned ${vmsOf(ex).length} VMs` });
    }
    for (const [param, value] of [['per_page', 'abc'], ['page', 'abc'], ['per_page', '1.5']] as const) {
      const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { [param]: value } });
      const status = ex.response?.status;
      if (status === undefined || status < 400 || status >= 500) problems.push({ ex, problem: `${param}=${value} (not an integer) answered ${describe(ex)}; expected a 4xx` });
    }
    if (problems.length) return fail(problems.map((p) => p.problem).slice(0, 4).join('; '), problems.map((p) => p.ex));
    return pass(`${AWKWARD_TAG_VALUES.length} awkward tag values returned no VM; non-integer page and per_page were refused`);
  },
};
