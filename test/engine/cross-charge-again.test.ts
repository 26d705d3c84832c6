import { describe, it, expect, afterEach } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';
import type { HttpClient } from '../../src/engine/transport/http.ts';
import type { TokenManager } from '../../src/engine/identity/tokens.ts';
import { observeAfterRefusal, type LimitProbe } from '../../src/engine/limits/limit-probes.ts';

// Found by CI on java-httpserver (a sliding log of 60 target seconds) at --time-scale 60: the cross-charge witness was
// served (the spent writes had aged out while 300 reads ran on the token), so the observation was made once more
// after the writes were spent again. On the same token the first observation's 300 reads were still in the window: 0
// reads served, a false "writes are charged to the reads budget". Simulated on a virtual clock: deterministic.

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
});

/** Separate sliding logs per token and class (300 reads, 60 writes per 60 s); every request takes 200 virtual ms. */
function target() {
  let now = 0;
  const base = realNow();
  Date.now = () => base + now;
  const logs = new Map<string, number[]>();
  const answer = (method: string, status: number): Exchange =>
    ({
      seq: 0,
      sentBy: 't',
      startedAt: new Date(base + now).toISOString(),
      durationMs: 0,
      request: { method, url: 'http://t/v1/vms', headers: {} },
      response: { status, headers: {}, body: '' },
    }) as Exchange;
  const send = async (req: { method: string; headers?: Record<string, string> }): Promise<Exchange> => {
    now += 200;
    const write = req.method !== 'GET';
    const key = `${req.headers?.['authorization']}:${write ? 'w' : 'r'}`;
    const log = (logs.get(key) ?? []).filter((t) => t > now - 60_000);
    logs.set(key, log);
    if (log.length >= (write ? 60 : 300)) return answer(req.method, 429);
    log.push(now);
    return answer(req.method, write ? 400 : 200);
  };
  let issued = 0;
  const tokens = {
    get: async () => 'scope-token',
    issue: async () => ({ token: `t${++issued}`, body: {}, exchange: answer('POST', 200) }),
  };
  return { send, tokens, issuedCount: () => issued };
}

describe('the cross-charge observation made again after a served witness', () => {
  it('spends the budget anew on a fresh token, so its own earlier reads are not charged to it', async () => {
    const t = target();
    const http = { send: t.send } as unknown as HttpClient;
    const config = { timeScale: 1, readOnly: false, profile: 'quick', names: {} } as unknown as RunConfig;
    const writes = (token: string) => t.send({ method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const cls = {
      accepted: (ex: Exchange) => ex.response?.status === 400,
      rejected: (ex: Exchange) => ex.response?.status === 429,
    };
    // The write budget of t0 spent: 60 served, the 61st refused.
    for (let i = 0; i < 60; i++) expect(cls.accepted(await writes('t0'))).toBe(true);
    const refusal = await writes('t0');
    expect(cls.rejected(refusal)).toBe(true);
    const probe: LimitProbe = {
      limit: 60,
      what: 'writes',
      verdict: { kind: 'exact' },
      bursts: [{ exchanges: [refusal], accepted: 60, rejections: [refusal], others: [], spanMs: 12_000 }],
      firstRejection: refusal,
    };
    await observeAfterRefusal(
      { config, http, tokens: t.tokens as unknown as TokenManager },
      { what: 'writes', sentBy: 'limits', send: writes },
      probe,
      {
        scopeLane: 'scope',
        turns: { run: (fn) => fn() },
        cls,
        held: 't0',
        firstAnswer: refusal,
        inFlight: 1,
        token: async () => (await t.tokens.issue()).token,
      }
    );
    // It was made again: the witness of the first observation was served (300 reads took the writes' whole window).
    expect(probe.crossAfter).toBeDefined();
    expect(t.issuedCount()).toBe(1);
    const cross = probe.cross!;
    expect('skipped' in cross).toBe(false);
    if ('skipped' in cross) return;
    expect(cross.burst.accepted).toBe(300);
    expect(cross.burst.rejections).toHaveLength(0);
  });
});
