import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { parseRetryAfter } from '../../src/engine/retry-after.ts';
import { describe } from '../support.ts';

/**
 * HTTP convention (RFC 6585 §4, RFC 9110 §10.2.3): a rate-limit rejection is 429 with a Retry-After that says
 * when to come back; in the full profile, a request sent once it has passed (plus a second) is served.
 */
export const retryAfter: Check = {
  id: 'limits.retry-after',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60', 'LIMIT-TOKEN-10'],
  level: 'should',
  title: 'Rate-limit rejections are 429 with a Retry-After that is right to within a second',
  async run(ctx) {
    const probes = [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write].filter((p) => p?.firstRejection);
    if (probes.length === 0) return skip('no rate-limit rejection was seen');
    const problems: Array<[string, Exchange]> = [];
    for (const p of probes) {
      const r = p!.firstRejection!;
      const ra = parseRetryAfter(r);
      if (r.response!.status !== 429) problems.push([`${p!.what} rejected with ${r.response!.status}, not 429`, r]);
      if (ra === undefined) problems.push([`${p!.what} rejection has no usable Retry-After`, r]);
      else if (ra > 60) problems.push([`${p!.what} Retry-After ${ra} s is longer than the one-minute window`, r]);
      const after = p!.reset?.afterRetryAfter;
      if (after && p!.reset!.afterWindow) problems.push([`${p!.what}: still refused ${ra! + 1} s after the rejection, although Retry-After said ${ra} (${describe(after)})`, after]);
    }
    if (problems.length) return fail(problems.map((x) => x[0]).join('; '), problems.map((x) => x[1]));
    const checked = probes.filter((p) => p!.reset?.afterRetryAfter).length;
    return pass(`rejections are 429 with Retry-After${checked ? `, and it was right for ${checked} probes` : ' (accuracy is checked with --profile full)'}`);
  },
};
