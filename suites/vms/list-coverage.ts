import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge } from '../../src/engine/run/check.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** Tag values with characters that URL and query handling get wrong. */
const AWKWARD_TAG_VALUES = ['a b', 'a+b', 'a/b', 'a&b=c', 'a#b', 'a%b', 'a:b', 'ü', '日本', 'a\'b"c'];

/**
 * Deterministic coverage of the list's query: a tag nobody carries returns no VM whatever characters its value
 * holds (TAG-FILTER), and a page or per_page that is not an integer never gets a 5xx (PAGE-PARAMS types them) and
 * is refused as the client's error (convention: a lenient target may read it its own way, as create fields may be).
 */
export const listCoverage: Check = {
  id: 'vms.list-coverage',
  group: 'vms',
  shares: [REFUSAL_PROBES],
  clauses: ['TAG-FILTER', 'PAGE-PARAMS'],
  level: 'must',
  why: {
    must: 'the seed states the tag filter and the integer page parameters; any well-formed filter is honoured and nothing gets a 5xx',
    should:
      'the seed shows no validation rules: refusing a page or per_page that is not an integer is convention, not seed',
  },
  title: 'Tag filters with awkward characters and non-integer paging are handled',
  async run(ctx) {
    const problems: Array<{ ex: Exchange; problem: string }> = [];
    const lenient: Array<{ ex: Exchange; problem: string }> = [];
    const tags = AWKWARD_TAG_VALUES.map((value) => `cc-absent-${ctx.config.runId}:${value}`);
    const tagged = await ctx.callEach(tags.map((tag) => ({ method: 'GET', path: '/v1/vms', query: { tag } })));
    for (const [i, tag] of tags.entries()) {
      const ex = tagged[i]!;
      const status = ex.response?.status;
      if (status === undefined || status >= 500)
        problems.push({ ex, problem: `tag=${JSON.stringify(tag)} answered ${describeExchange(ex)}` });
      else if (isSuccess(ex) && vmsOf(ex).length > 0)
        problems.push({
          ex,
          problem: `tag=${JSON.stringify(tag)}, which no VM carries, returned ${vmsOf(ex).length} VMs`,
        });
    }
    const paging = [
      ['per_page', 'abc'],
      ['page', 'abc'],
      ['per_page', '1.5'],
    ] as const;
    const paged = await ctx.callEach(
      paging.map(([param, value]) => ({ method: 'GET', path: '/v1/vms', query: { [param]: value } }))
    );
    for (const [i, [param, value]] of paging.entries()) {
      const ex = paged[i]!;
      const status = ex.response?.status;
      if (status === undefined || status >= 500)
        problems.push({ ex, problem: `${param}=${value} (not an integer) answered ${describeExchange(ex)}` });
      else if (status < 400)
        lenient.push({
          ex,
          problem: `${param}=${value} (not an integer) was served: ${describeExchange(ex)}; expected a 4xx`,
        });
    }
    const findings = [
      ...(problems.length
        ? [
            finding(
              'must',
              problems
                .map((p) => p.problem)
                .slice(0, 4)
                .join('; '),
              problems.map((p) => p.ex)
            ),
          ]
        : []),
      ...(lenient.length
        ? [
            finding(
              'should',
              lenient.map((p) => p.problem).join('; '),
              lenient.map((p) => p.ex)
            ),
          ]
        : []),
    ];
    return judge(
      findings,
      `${AWKWARD_TAG_VALUES.length} awkward tag values returned no VM; non-integer page and per_page were refused`
    );
  },
};
