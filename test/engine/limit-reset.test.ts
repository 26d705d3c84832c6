import { describe, it, expect, afterEach } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';
import type { CrossObservation } from '../../src/engine/limits/cross-budget.ts';
import { Waits } from '../../src/engine/transport/waits.ts';
import { observeReset, rejectionToWaitFrom } from '../../src/engine/limits/limit-probes.ts';

// A reset is watched from a rejection: the request sent once its Retry-After has passed must be served. Found by CI on
// java-httpserver (a sliding log) at --time-scale 60: the cross-charge witness, sent after the first rejection, was
// served (the oldest slot had just freed) and so took the slot that Retry-After promised; the request sent then was
// refused for the run's own doing, a false limits.retry-after warning. Simulated on a virtual clock: deterministic.

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
});

/** A sliding log of `limit` per 60 target seconds on a virtual clock; Retry-After rounded up, as HTTP asks. */
function slidingLog(limit: number) {
  let now = 0;
  const log: number[] = [];
  const base = realNow();
  Date.now = () => base + now;
  const answer = (status: number, retryAfter?: number): Exchange =>
    ({
      seq: 0,
      sentBy: 't',
      startedAt: new Date(base + now).toISOString(),
      durationMs: 0,
      request: { method: 'GET', url: 'http://t/v1/vms?per_page=1', headers: {} },
      response: { status, headers: retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }, body: '' },
    }) as Exchange;
  const send = async (): Promise<Exchange> => {
    while (log.length && log[0]! <= now - 60_000) log.shift();
    if (log.length < limit) return (log.push(now), answer(200));
    return answer(429, Math.ceil((log[0]! + 60_000 - now) / 1000));
  };
  // Sleeps advance the virtual clock (time scale 1: a target second is a real one).
  const waits = new (class extends Waits {
    override async sleep(ms: number): Promise<void> {
      now += Math.max(0, ms);
    }
  })();
  return { send, waits, advance: (ms: number) => (now += ms) };
}

const cls = {
  accepted: (ex: Exchange) => ex.response?.status === 200,
  rejected: (ex: Exchange) => ex.response?.status === 429,
};
const config = { timeScale: 1 } as RunConfig;

/** Ten requests 3 s apart spend the budget; the eleventh is refused with Retry-After 30; the witness comes 31 s later. */
async function spentThenWitness(limit: number) {
  const target = slidingLog(limit);
  for (let i = 0; i < limit; i++) {
    expect(cls.accepted(await target.send())).toBe(true);
    target.advance(3000);
  }
  const firstRejection = await target.send();
  expect(firstRejection.response!.headers['retry-after']).toBe('30');
  target.advance(31_000);
  const witness = await target.send();
  return { target, firstRejection, witness };
}

describe('the rejection a reset is watched from', () => {
  it('is the first one when the cross-charge witness was refused', async () => {
    const target = slidingLog(10);
    for (let i = 0; i < 10; i++) await target.send();
    const firstRejection = await target.send();
    const witness = await target.send();
    const cross = { witness, witnessRefused: true } as CrossObservation;
    expect(await rejectionToWaitFrom({ limit: 10, firstRejection, cross }, target.send, cls)).toBe(firstRejection);
  });

  it('is a later one when the witness was served: the witness took the slot the first Retry-After promised', async () => {
    const { target, firstRejection, witness } = await spentThenWitness(10);
    expect(cls.accepted(witness)).toBe(true);
    // Watched from the first rejection, the request sent once its Retry-After has passed is refused: the run's own doing.
    const stale = await observeReset(
      { config, waits: target.waits },
      'reads',
      firstRejection,
      target.send,
      cls.accepted
    );
    expect(stale.afterWindow).toBeDefined();
    const cross = { witness, witnessRefused: false } as CrossObservation;
    const from = await rejectionToWaitFrom({ limit: 10, firstRejection, cross }, target.send, cls);
    expect(from).not.toBe(firstRejection);
    expect(cls.rejected(from)).toBe(true);
  });

  it('watched from that later rejection, the budget is back once its Retry-After has passed', async () => {
    const { target, firstRejection, witness } = await spentThenWitness(10);
    const cross = { witness, witnessRefused: false } as CrossObservation;
    const from = await rejectionToWaitFrom({ limit: 10, firstRejection, cross }, target.send, cls);
    const reset = await observeReset({ config, waits: target.waits }, 'reads', from, target.send, cls.accepted);
    expect(reset.rejection).toBe(from);
    expect(cls.accepted(reset.afterRetryAfter!)).toBe(true);
    expect(reset.afterWindow).toBeUndefined();
    expect(reset.backAfter).toBe('retry-after');
  });
});
