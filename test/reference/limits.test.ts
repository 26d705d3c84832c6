// The reference target (not the suite): rate limits, and the faults of the limits checks.
import { afterAll, describe, expect, it } from 'vitest';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, sleep } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('rate limits', () => {
  it('limits writes to 60, reads to 300 and issuance to 10 per window with Retry-After', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (let i = 0; i < 60; i++) expect((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status).toBe(400);
    const w = await call(s, 'POST', '/v1/vms', { token: t, json: {} });
    expect(w.status).toBe(429);
    expect(w.body.error.code).toBe('rate_limited');
    const ra = Number(w.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    expect(ra).toBeLessThanOrEqual(60);
    const reads = await Promise.all(
      Array.from({ length: 301 }, () => call(s, 'GET', '/v1/vms?per_page=1', { token: t }))
    );
    expect(reads.filter((r) => r.status === 200)).toHaveLength(300);
    expect(reads.filter((r) => r.status === 429)).toHaveLength(1);
    // Issuance is per key: tokenFor above used one of key A's ten.
    for (let i = 0; i < 9; i++)
      expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } })).status).toBe(200);
    const iss = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
    expect(iss.status).toBe(429);
    expect(Number(iss.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } })).status).toBe(200);
    // A new token has its own request budget.
    const t2 = await tokenFor(s, s.apiKeyB);
    expect((await call(s, 'GET', '/v1/vms', { token: t2 })).status).toBe(200);
  });

  it('resets the window on the virtual clock', async () => {
    // 60 virtual seconds = 2 s: the 61 writes land in one window on a busy machine (in 500 ms they did not).
    const s = await start({ timeScale: 30 });
    const t = await tokenFor(s);
    const burst = await Promise.all(
      Array.from({ length: 61 }, () => call(s, 'POST', '/v1/vms', { token: t, json: {} }))
    );
    const limited = burst.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    const ra = Number(limited!.headers.get('retry-after'));
    expect(ra).toBeGreaterThanOrEqual(1);
    await sleep((ra * 1000) / 30 + 50);
    expect((await call(s, 'POST', '/v1/vms', { token: t, json: {} })).status).toBe(400);
  });
});

describeFaults('limits');
