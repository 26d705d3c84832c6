import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { fromLog, describeExchange } from '../support.ts';

/** A whole value that reads as a date and time (free text that merely starts with one, a VM name, is not a timestamp). */
const LOOKS_LIKE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(:?\d{2})?)?$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;
const TIME_KEY = /(_at|At|_time|Time|timestamp|Timestamp)$/;
// A number under a name that says "at" or "timestamp" is a point in time (epoch seconds or ms), not a duration ("_time" may be one).
const INSTANT_KEY = /(_at|At|timestamp|Timestamp)$/;

interface Found {
  ex: Exchange;
  pointer: string;
  value: string | number;
}

function timestamps(ex: Exchange): Found[] {
  const out: Found[] = [];
  const visit = (v: unknown, pointer: string, key: string, depth: number) => {
    if (depth > 6) return;
    // Under a time-named key, any value with a digit is a timestamp of some form; a word ("never") is not one.
    if (typeof v === 'string' && (LOOKS_LIKE_TIME.test(v) || (TIME_KEY.test(key) && /\d/.test(v))))
      out.push({ ex, pointer, value: v });
    else if (typeof v === 'number' && INSTANT_KEY.test(key)) out.push({ ex, pointer, value: v });
    else if (Array.isArray(v)) v.slice(0, 200).forEach((x, i) => visit(x, `${pointer}/${i}`, key, depth + 1));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) visit(x, `${pointer}/${k}`, k, depth + 1);
  };
  visit(ex.response?.json, '', '', 0);
  return out;
}

/** Timestamps are UTC ISO-8601: every date-time string, and every value named as a point in time (*_at, *timestamp), in every response. */
export const timestampsUtc: Check = {
  id: 'schema.timestamps-utc',
  group: 'schema',
  clauses: ['TIME-UTC-ISO8601'],
  level: 'must',
  why: { must: 'the seed states that timestamps are UTC, ISO-8601' },
  title: 'Timestamps in responses are UTC ISO-8601',
  reviewsLog: true,
  async run(ctx) {
    const found = fromLog(ctx, () => true).flatMap(timestamps);
    if (found.length === 0) return pass("no timestamps in this run's responses, so none breaks the rule");
    const bad = found.filter(
      (f) => typeof f.value !== 'string' || !ISO_UTC.test(f.value) || Number.isNaN(Date.parse(f.value))
    );
    if (bad.length) {
      return fail(
        `${bad.length} of ${found.length} timestamps are not UTC ISO-8601, e.g. ${bad[0]!.pointer} = ${JSON.stringify(bad[0]!.value)} in ${describeExchange(bad[0]!.ex)}`,
        [...new Set(bad.map((b) => b.ex))],
        {
          examples: bad.slice(0, 10).map((b) => `${b.pointer} = ${b.value}`),
        }
      );
    }
    // The notation, digits aside: fractions and how UTC is written.
    ctx.observe('timestampNotation', [...new Set(found.map((f) => String(f.value).replace(/\d/g, '9')))].sort());
    return pass(`all ${found.length} timestamps are UTC ISO-8601`);
  },
};
