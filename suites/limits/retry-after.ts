import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { parseRetryAfter, retryAfterBeforeDate } from '../../src/engine/transport/retry-after.ts';
import { describeExchange } from '../support.ts';
import { WINDOW_SECONDS } from '../../src/engine/documented-limits/limits.js';

/**
 * HTTP convention (RFC 6585 §4, RFC 9110 §10.2.3): a rate-limit rejection is 429 with a Retry-After that says
 * when to come back; in the full profile, a request sent once it has passed (plus a second) is served. An HTTP date is
 * read against the answer's own Date header (both on the target's clock, whatever the time scale): a date before it
 * asks for no wait at all, a finding at any scale. A reading whose tolerance is not smaller than the window at the
 * run's time scale is not judged, and said so.
 */
export const retryAfter: Check = {
  id: 'limits.retry-after',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60', 'LIMIT-TOKEN-10'],
  level: 'should',
  why: {
    should: 'the seed does not show the rejection: 429 with a Retry-After is HTTP convention (RFC 6585, RFC 9110)',
  },
  title: 'Rate-limit rejections are 429 with a Retry-After that is right to within a second',
  async run(ctx) {
    const probes = [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write].filter((p) => p?.firstRejection);
    if (probes.length === 0) return skip('no rate-limit rejection was seen', 'the limit probes must meet a rejection');
    const problems: Array<[string, Exchange]> = [];
    const unjudged: string[] = [];
    for (const p of [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write]) {
      // Every rejection of the probe, not its first only: the date is judged on each answer against its own Date.
      const early = (p?.bursts ?? [])
        .flatMap((b) => b.rejections)
        .find((r) => retryAfterBeforeDate(r, ctx.config.timeScale) !== undefined);
      if (early)
        problems.push([
          `${p!.what} rejection's Retry-After ${early.response!.headers['retry-after']} is ${retryAfterBeforeDate(early, ctx.config.timeScale)} s before the answer's own Date (${early.response!.headers['date']}): it asks for no wait although the request was refused`,
          early,
        ]);
    }
    for (const p of probes) {
      const r = p!.firstRejection!;
      const ra = parseRetryAfter(r, ctx.config.timeScale);
      if (r.response!.status !== 429) problems.push([`${p!.what} rejected with ${r.response!.status}, not 429`, r]);
      if (ra === undefined) problems.push([`${p!.what} rejection has no usable Retry-After`, r]);
      else if (ra > WINDOW_SECONDS)
        problems.push([`${p!.what} Retry-After ${ra} s is longer than the one-minute window`, r]);
      const reset = p!.reset;
      const after = reset?.afterRetryAfter;
      // Under --time-scale a target may give Retry-After in real or in target seconds: right if either reading was.
      const realRight = reset?.afterRetryAfterReal !== undefined && !reset.afterWindow;
      if (after && reset!.afterWindow && reset!.realReadingUnjudged) {
        // Refused once the target reading had passed; the real reading, which this scale cannot judge, may be meant.
        unjudged.push(
          `${p!.what}: Retry-After ${reset!.retryAfter} was not met read as target seconds, and ${reset!.realReadingUnjudged}`
        );
      } else if (after && reset!.afterWindow) {
        // The rejection waited from may be a later one than the first (limit-probes.ts rejectionToWaitFrom).
        const waited = reset!.retryAfter!;
        const readings = reset!.afterRetryAfterReal
          ? ` (nor ${waited + 1} real seconds after; ${describeExchange(reset!.afterRetryAfterReal)})`
          : '';
        problems.push([
          `${p!.what}: still refused ${waited + 1} s after the rejection, although Retry-After said ${waited}${readings} (${describeExchange(after)})`,
          after,
        ]);
      }
      if (realRight) ctx.observe(`retryAfterUnit.${p!.what}`, 'real seconds');
    }
    const headers = probes.map((p) => p!.firstRejection!.response!.headers);
    const ra = headers.find((h) => h['retry-after'] !== undefined)?.['retry-after'];
    if (ra !== undefined) ctx.observe('retryAfterFormat', /^\s*\d+\s*$/.test(ra) ? 'delta-seconds' : 'HTTP date');
    const rateHeaders = [
      ...new Set(headers.flatMap((h) => Object.keys(h).filter((k) => /^(x-)?ratelimit-/i.test(k)))),
    ].sort();
    if (rateHeaders.length) ctx.observe('rateLimitHeaders', rateHeaders);
    if (problems.length)
      return fail(
        problems.map((x) => x[0]).join('; '),
        problems.map((x) => x[1])
      );
    const checked = probes.filter((p) => p!.reset?.afterRetryAfter && !p!.reset.afterWindow).length;
    return pass(
      `rejections are 429 with Retry-After${checked ? `, and it was right for ${checked} probes` : ' (accuracy is checked with --profile full)'}${unjudged.length ? `; not judged: ${unjudged.join('; ')}` : ''}`
    );
  },
};
