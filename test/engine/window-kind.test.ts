import { describe, it, expect } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { judgeWindowKind, probeWindowKind } from '../../src/engine/limits/window-kind.ts';

// A budget spent in two halves half a window apart tells fixed windows from a sliding one by what a
// window after the first half serves. The probe's timing is simulated on a virtual budget, so these are deterministic.
const refused = [{} as Exchange];

describe('judgeWindowKind: what the third burst shows', () => {
  it.each([
    { accepted: 60, rejections: [], kind: 'fixed' },
    { accepted: 30, rejections: refused, kind: 'sliding' },
  ])('$accepted of 60 served → $kind', ({ accepted, rejections, kind }) => {
    expect(judgeWindowKind(60, 30, { accepted, rejections })).toEqual({ kind });
  });

  it.each([
    { accepted: 45, rejections: refused },
    { accepted: 30, rejections: [] },
    { accepted: 0, rejections: refused },
  ])('$accepted of 60 served is neither: not told', ({ accepted, rejections }) => {
    expect(judgeWindowKind(60, 30, { accepted, rejections }).kind).toBeUndefined();
  });
});

/** A budget of `limit` per window on a clock the probe's sleeps advance: fixed windows or a sliding log. */
function simulated(kind: 'fixed' | 'sliding' | 'bucket', limit: number, windowMs: number) {
  let now = 0;
  let start = -Infinity;
  let count = 0;
  const log: number[] = [];
  let tokens = limit;
  let last = 0;
  const answer = (status: number) =>
    ({
      seq: 0,
      sentBy: 't',
      startedAt: '',
      durationMs: 0,
      request: { method: 'GET', url: 'http://t/v1/vms', headers: {} },
      response: { status, headers: {}, body: '' },
    }) as unknown as Exchange;
  const send = async (): Promise<Exchange> => {
    if (kind === 'fixed') {
      if (now >= start + windowMs) [start, count] = [now, 0];
      return answer(count < limit ? (count++, 200) : 429);
    }
    if (kind === 'sliding') {
      while (log.length && log[0]! <= now - windowMs) log.shift();
      return answer(log.length < limit ? (log.push(now), 200) : 429);
    }
    // A token bucket refilling continuously: neither kind.
    tokens = Math.min(limit, tokens + ((now - last) * limit) / windowMs);
    last = now;
    return answer(tokens >= 1 ? (tokens--, 200) : 429);
  };
  const realNow = Date.now;
  return {
    run: async () => {
      const base = realNow();
      Date.now = () => base + now;
      try {
        return await probeWindowKind({
          what: 'reads',
          limit,
          windowMs,
          concurrency: 4,
          send,
          cls: { accepted: (ex) => ex.response?.status === 200, rejected: (ex) => ex.response?.status === 429 },
          sleep: async (ms) => void (now += Math.max(0, ms)),
        });
      } finally {
        Date.now = realNow;
      }
    },
  };
}

describe('probeWindowKind: two halves half a window apart, then the whole budget', () => {
  it('tells fixed windows: the whole budget is back a window after the first half', async () => {
    const o = await simulated('fixed', 60, 60_000).run();
    expect(o.kind).toBe('fixed');
    expect(o.bursts.map((b) => b.accepted)).toEqual([30, 30, 60]);
  });

  it('tells a sliding window: only the first half is back', async () => {
    const o = await simulated('sliding', 60, 60_000).run();
    expect(o.kind).toBe('sliding');
    expect(o.bursts.map((b) => b.accepted)).toEqual([30, 30, 30]);
  });

  it('tells nothing of a budget that is neither (a token bucket): the second half is served whole', async () => {
    const o = await simulated('bucket', 60, 60_000).run();
    expect(o.kind).toBeUndefined();
    expect(o.reason).toMatch(/served 31 and refused 0/);
  });
});
