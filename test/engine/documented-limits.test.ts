// The limit arithmetic exists once (src/engine/documented-limits/): the engine and the k6 scripts read a Retry-After,
// place a window and judge a count the same way, because they call the same functions.
import { describe, expect, it } from 'vitest';
import { readRetryAfter, retryAfterRealSeconds } from '../../src/engine/documented-limits/retry-after.js';
import {
  clockRateOf,
  fasterClockOf,
  countVerdict,
  describeVerdict,
  judgeBursts,
  judgeLateCount,
  judgeWindow,
  neverLimited,
} from '../../src/engine/documented-limits/verdicts.js';
import { parseRetryAfter } from '../../src/engine/transport/retry-after.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';

const answer = (headers: Record<string, string>): Exchange => ({
  seq: 1,
  sentBy: 't',
  request: { method: 'GET', url: 'http://127.0.0.1/v1/vms', headers: {} },
  response: { status: 429, headers, body: '' },
  startedAt: new Date(0).toISOString(),
  durationMs: 1,
});

describe('Retry-After, read once', () => {
  const cases: Array<[string, Record<string, string>, number, number]> = [
    // [what, headers, time scale, target-seconds]
    ['delta-seconds', { 'retry-after': '30' }, 10, 30],
    [
      "an HTTP date against the Date header (the target's clock)",
      { 'retry-after': new Date(40_000).toUTCString(), date: new Date(10_000).toUTCString() },
      10,
      30,
    ],
  ];
  for (const [what, headers, scale, seconds] of cases) {
    it(`${what}: the engine waits ${seconds} target-seconds, the k6 scripts ${seconds / scale} real seconds`, () => {
      expect(parseRetryAfter(answer(headers), scale)).toBe(seconds);
      expect(retryAfterRealSeconds(headers['retry-after'], scale, undefined, headers['date'])).toBe(seconds / scale);
    });
  }

  it("an HTTP date without a Date header is measured on this machine's clock: real seconds, scaled to target-seconds", () => {
    expect(readRetryAfter(new Date(10_000).toUTCString(), undefined, 10, 4_000)).toEqual({
      seconds: 60,
      form: 'HTTP date',
    });
    expect(retryAfterRealSeconds(new Date(10_000).toUTCString(), 10, 4_000)).toBe(6);
  });

  it('absent, empty or unreadable: undefined; a negative delta waits nothing', () => {
    expect(readRetryAfter(undefined, undefined, 1)).toBeUndefined();
    expect(readRetryAfter(' ', undefined, 1)).toBeUndefined();
    expect(readRetryAfter('soon', undefined, 1)).toBeUndefined();
    expect(readRetryAfter('-3', undefined, 1)).toEqual({ seconds: 0, form: 'delta-seconds' });
  });
});

describe('one count, one verdict, for bursts and for windows', () => {
  const counts: Array<[string, { sent: number; accepted: number; refused: number }, string, string, string]> = [
    // [what, counts of limit 10, countVerdict, judgeWindow, judgeBursts]
    ['exactly the limit served, the next refused', { sent: 11, accepted: 10, refused: 1 }, 'exact', 'pass', 'exact'],
    ['fewer served', { sent: 11, accepted: 7, refused: 4 }, 'stricter', 'stricter', 'stricter'],
    ['all served', { sent: 11, accepted: 11, refused: 0 }, 'looser', 'looser', 'inconclusive'],
    ['too few sent to tell', { sent: 10, accepted: 10, refused: 0 }, 'not-filled', 'inconclusive', 'inconclusive'],
  ];
  for (const [what, c, core, window, bursts] of counts) {
    it(`${what}: ${core} (a k6 window: ${window}; one engine burst: ${bursts})`, () => {
      expect(countVerdict(10, c)).toBe(core);
      expect(judgeWindow(10, c).verdict).toBe(window);
      expect(judgeBursts(10, 60_000, { accepted: c.accepted, rejected: c.refused, others: 0, spanMs: 100 }).kind).toBe(
        bursts
      );
    });
  }

  it('a burst served whole is settled by a second one on fresh budget', () => {
    const whole = { accepted: 11, rejected: 0, others: 0, spanMs: 100 };
    expect(judgeBursts(10, 60_000, whole, { accepted: 10, rejected: 1, others: 0, spanMs: 100 })).toEqual({
      kind: 'exact',
      note: 'the first burst straddled a window boundary',
    });
    expect(judgeBursts(10, 60_000, whole, { accepted: 22, rejected: 0, others: 0, spanMs: 100 })).toEqual({
      kind: 'looser',
      accepted: 'unlimited',
    });
    expect(judgeBursts(10, 60_000, whole, { accepted: 15, rejected: 1, others: 0, spanMs: 100 })).toEqual({
      kind: 'looser',
      accepted: 15,
    });
  });

  it('a burst slower than half a window, or with answers neither served nor limited, proves nothing', () => {
    expect(judgeBursts(10, 1000, { accepted: 10, rejected: 1, others: 0, spanMs: 500 }).kind).toBe('inconclusive');
    expect(judgeBursts(10, 60_000, { accepted: 9, rejected: 1, others: 1, otherExample: '503', spanMs: 5 })).toEqual({
      kind: 'inconclusive',
      reason: '1 answers were neither served nor limited (e.g. 503)',
    });
  });
});

describe('a burst never refused, judged once', () => {
  const never = { kind: 'looser', accepted: 'unlimited' } as const;
  it('is never limited only when no request was refused at all', () => {
    expect(neverLimited(never)).toBe(true);
    expect(neverLimited({ kind: 'looser', accepted: 88 })).toBe(false);
    expect(neverLimited({ kind: 'exact' })).toBe(false);
    expect(neverLimited(undefined)).toBe(false);
  });
  it('a request refused a moment after it shows the burst was counted late: more than the limit served', () => {
    const v = judgeLateCount(never, 122, true, 1000);
    expect(v).toMatchObject({ kind: 'looser', accepted: 122 });
    expect(describeVerdict(60, 'writes', v)).toBe(
      '122 writes served; the documented limit is 60 (none was refused, yet a request 1000 ms after the burst was: they were counted, late)'
    );
  });
  it('a request served then leaves the verdict: the target may not count such requests', () => {
    expect(judgeLateCount(never, 122, false, 1000)).toBe(never);
    const exact = { kind: 'exact' } as const;
    expect(judgeLateCount(exact, 60, true, 1000)).toBe(exact);
  });
});

describe("the target's clock against the run's", () => {
  it("is read where its countdown and its Date both say so: a target at 10 run at 60 counts 10 of the run's 61 s", () => {
    expect(clockRateOf({ first: 55, later: 45, dated: 10, elapsed: 61 })).toBeCloseTo(10 / 61);
    expect(clockRateOf({ first: 55, later: 0, dated: 60, elapsed: 10 })).toBe(5.5);
  });

  it("is not read off a countdown that froze or wrapped beside a Date that kept time: that is the target's own", () => {
    // A window that never resets: its nominal countdown wraps (55, then 50 a window on), while its Date kept time.
    expect(clockRateOf({ first: 55, later: 50, dated: 61, elapsed: 61 })).toBeUndefined();
    expect(clockRateOf({ first: 55, later: 55, dated: 10, elapsed: 61 })).toBeUndefined();
    expect(clockRateOf({ first: 600, later: 539, dated: 61, elapsed: 61 })).toBeUndefined();
  });

  it("is said where only its Date ran faster by over three times: the run's waits were longer than needed", () => {
    expect(fasterClockOf({ dated: 600, elapsed: 60 })).toBe(10);
    expect(fasterClockOf({ dated: 150, elapsed: 60 })).toBeUndefined();
    expect(fasterClockOf({ dated: 100, elapsed: 5 })).toBeUndefined();
    expect(fasterClockOf({ elapsed: 60 })).toBeUndefined();
  });

  it('is not read without a Date, or over too short a time for its whole seconds', () => {
    expect(clockRateOf({ first: 55, later: 45, elapsed: 61 })).toBeUndefined();
    expect(clockRateOf({ first: 55, later: 54, dated: 0, elapsed: 5 })).toBeUndefined();
  });
});
