import { describe, it, expect, afterEach } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { burst } from '../../src/engine/limits/probes.ts';
import { observeWindowLength, windowTooShort } from '../../src/engine/limits/window-length.ts';

// LIMIT-*: "per minute". Whatever a target counts with, a window of a minute serves at most twice its limit in a span
// shorter than a minute; a 10 s window serves six times. Simulated on a virtual clock (5 ms a request): deterministic.

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
});

type Kind = 'fixed' | 'aligned' | 'sliding' | 'bucket' | 'fixed-10s';

/** A budget of `limit` on a virtual clock that starts `phase` ms into a minute; Retry-After as the kind would say it. */
function budget(kind: Kind, limit: number, phase: number) {
  let now = 60_000 * 1000 + phase;
  const base = realNow() - now;
  Date.now = () => base + now;
  const windowMs = kind === 'fixed-10s' ? 10_000 : 60_000;
  let start = -Infinity;
  let count = 0;
  const log: number[] = [];
  let tokens = limit;
  let last = now;
  const decide = (): [boolean, number] => {
    if (kind === 'fixed' || kind === 'fixed-10s' || kind === 'aligned') {
      if (now >= start + windowMs) [start, count] = [kind === 'aligned' ? now - (now % windowMs) : now, 0];
      return count < limit ? (count++, [true, 0]) : [false, start + windowMs - now];
    }
    if (kind === 'sliding') {
      while (log.length && log[0]! <= now - windowMs) log.shift();
      return log.length < limit ? (log.push(now), [true, 0]) : [false, log[0]! + windowMs - now];
    }
    tokens = Math.min(limit, tokens + ((now - last) * limit) / windowMs);
    last = now;
    return tokens >= 1 ? (tokens--, [true, 0]) : [false, ((1 - tokens) * windowMs) / limit];
  };
  const send = async (): Promise<Exchange> => {
    const startedAt = new Date(base + now).toISOString();
    const [served, waitMs] = decide();
    now += 5;
    const headers: Record<string, string> = served
      ? {}
      : { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) };
    return {
      seq: 0,
      sentBy: 't',
      startedAt,
      durationMs: 5,
      request: { method: 'POST', url: 'http://t/v1/auth/tokens', headers: {} },
      response: { status: served ? 200 : 429, headers, body: '' },
    } as Exchange;
  };
  const sleep = async (ms: number) => void (now += Math.max(0, ms));
  return { send, sleep };
}

const cls = {
  accepted: (ex: Exchange) => ex.response?.status === 200,
  rejected: (ex: Exchange) => ex.response?.status === 429,
};

/** The probe's burst, then its reset observed the way the probes do (Retry-After + 1 s), then the window's length. */
async function observe(kind: Kind, phase = 0) {
  const b = budget(kind, 10, phase);
  const first = await burst({ max: 11, concurrency: 1, stopAtFirstRejection: true }, b.send, cls);
  await b.sleep((Number(first.rejections[0]!.response!.headers['retry-after']) + 1) * 1000);
  let back = await b.send();
  // A Retry-After that said too little: the probes then wait out the rest of the window.
  if (!cls.accepted(back)) {
    await b.sleep(60_000);
    back = await b.send();
  }
  return observeWindowLength({
    what: 'token issuances',
    limit: 10,
    timeScale: 1,
    first,
    servedSince: [back],
    send: b.send,
    cls,
    concurrency: 1,
    sleep: b.sleep,
  });
}

describe('limits.window-length: a spent budget stays spent as long as a minute holds it', () => {
  it.each<[string, Kind, number]>([
    ['fixed windows opened by the first request', 'fixed', 0],
    ["fixed windows on the clock's minutes, spent 50 s into one", 'aligned', 50_000],
    ["fixed windows on the clock's minutes, spent 2 s into one", 'aligned', 2_000],
    ['a sliding log', 'sliding', 0],
    ['a bucket refilled over a minute', 'bucket', 0],
  ])('%s: a minute', async (_, kind, phase) => {
    const o = (await observe(kind, phase))!;
    expect(o.served).toBeLessThanOrEqual(20);
    expect(windowTooShort(o), `${o.served} in ${o.spanSeconds} s`).toBe(false);
  });

  it('a window of 10 s: more than twice the limit in less than a minute', async () => {
    const o = (await observe('fixed-10s'))!;
    expect(o.served).toBe(21);
    expect(o.spanSeconds).toBeLessThan(60);
    expect(windowTooShort(o)).toBe(true);
  });

  it('sends nothing more once the minute since the first burst is past', async () => {
    const o = (await observe('fixed'))!;
    expect(o.again).toBeUndefined();
    expect(o.nearMinute).toBeUndefined();
    expect(o.served).toBe(11);
  });
});
