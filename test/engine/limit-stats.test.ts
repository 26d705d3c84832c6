import { describe, it, expect } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { LimitProbe } from '../../src/engine/limits/limit-probes.ts';
import { probeStats } from '../../src/engine/limits/stats.ts';

// A probe's numbers for an operator, from a probe built by hand: 10 requests answered in 10..100 real ms, the last two
// refused with 429 and Retry-After, then one retry after Retry-After that was served. At time scale 60, a real ms is
// 0.06 target s: every duration in the stats is in target seconds.
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const ex = (i: number, status: number, atMs: number, durationMs: number, retryAfter?: string): Exchange =>
  ({
    seq: i,
    sentBy: 'limits.read-limit',
    startedAt: new Date(T0 + atMs).toISOString(),
    durationMs,
    request: { method: 'GET', url: 'http://t/v1/vms', headers: {} },
    response: { status, headers: retryAfter ? { 'retry-after': retryAfter } : {}, body: '' },
  }) as Exchange;

const burst = Array.from({ length: 10 }, (_, i) =>
  ex(i, i < 8 ? 200 : 429, i * 5, (i + 1) * 10, i < 8 ? undefined : i === 8 ? '30' : '29')
);
const rejection = burst[8]!;
// Answered at 40 + 90 = 130 real ms; the retry sent at 130 + 500 real ms: 30 target s later at time scale 60.
const retry = ex(10, 200, 630, 10);

const probe = {
  limit: 8,
  what: 'reads',
  verdict: { kind: 'exact' },
  bursts: [
    {
      exchanges: burst,
      accepted: 8,
      rejections: burst.slice(8),
      others: [],
      spanMs: 140,
    },
  ],
  reset: { rejection, retryAfter: 30, afterRetryAfter: retry, backAfter: 'retry-after' },
} as LimitProbe;

describe('a limit probe in numbers (target seconds)', () => {
  const s = probeStats(probe, 60);

  it('counts the requests, the 429s and their share, the retries included', () => {
    expect(s).toMatchObject({ requests: 11, answered429: 2, share429: 0.1818, timeScale: 60 });
  });

  it('gives latency percentiles in target seconds (nearest rank)', () => {
    // Real ms 10, 10, 20, ..., 100: p50 is the 6th of 11 (50 ms), p95 the 11th (100 ms); times 60 in target ms.
    expect(s.latencyTargetSeconds).toEqual({ p50: 3, p95: 6, max: 6 });
  });

  it('keeps the Retry-After values received and the wait that worked, when the check passes', () => {
    expect(s.retryAfterTargetSeconds).toEqual([
      { seconds: 29, answers: 1 },
      { seconds: 30, answers: 1 },
    ]);
    expect(s.waits).toEqual([{ after: 'Retry-After', targetSeconds: 30, served: true }]);
  });

  it('says it in one line, every duration labelled target seconds', () => {
    expect(s.words).toBe(
      'reads: requests sent 11; answered 429 2 (18.2%); latency, target s p50 3, p95 6, max 6; Retry-After received, target s 29 (1 answer), 30 (1 answer); waits after a refusal, target s 30 after Retry-After: served (time scale 60)'
    );
  });

  it('says a wait that did not work', () => {
    const refused = ex(10, 429, 630, 10, '1');
    const late = ex(11, 200, 130 + 1100, 10);
    const p = {
      ...probe,
      reset: { rejection, retryAfter: 30, afterRetryAfter: refused, afterWindow: late, backAfter: 'window' },
    } as LimitProbe;
    expect(probeStats(p, 60).waits).toEqual([
      { after: 'Retry-After', targetSeconds: 30, served: false },
      { after: 'a whole window', targetSeconds: 66, served: true },
    ]);
  });
});
