// The reference target (not the suite): token exchange and authentication, and the faults of the auth checks.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, sleep, tamper } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('token exchange', () => {
  it('issues an HS256 JWT with the documented response shape', async () => {
    const s = await start();
    const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject({ expires_in: 3600, role: 'operator' });
    expect(r.body.organization).toMatch(/^org_/);
    const claims = decodeJwt(r.body.token);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.sub).not.toBe(s.apiKey);
    expect(claims.org).toBe(r.body.organization);
    const ro = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyReadonly } });
    expect(ro.body.role).toBe('viewer');
    const b = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyB } });
    expect(b.body.organization).not.toBe(r.body.organization);
  });

  it('rejects bad requests and unknown keys', async () => {
    const s = await start();
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: {} })).body.error.code).toBe('invalid_request');
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 5 } })).status).toBe(400);
    expect((await call(s, 'POST', '/v1/auth/tokens', { raw: '{"api_key":' })).status).toBe(400);
    const unknown = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'ck_' + '0'.repeat(32) } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
    const media = await call(s, 'POST', '/v1/auth/tokens', {
      raw: JSON.stringify({ api_key: s.apiKey }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(media.status).toBe(415);
  });
});

describe('authentication', () => {
  it('rejects missing, malformed, tampered, alg-none and query-string tokens with 401 unauthenticated', async () => {
    const s = await start();
    const good = await tokenFor(s);
    const [h, p] = good.split('.');
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { authorization: 'Bearer not-a-jwt' },
      { authorization: `Bearer ${tamper(good)}` },
      { authorization: `Bearer ${noneHeader}.${p}.` },
      { authorization: `Bearer ${h}.${p}` },
    ];
    for (const headers of cases) {
      const r = await call(s, 'GET', '/v1/vms', { headers });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body.error.code).toBe('unauthenticated');
      expect(typeof r.body.error.message).toBe('string');
    }
    const q = await call(s, 'GET', `/v1/vms?access_token=${good}&token=${good}`);
    expect(q.status).toBe(401);
    expect((await call(s, 'GET', '/v1/vms', { token: good })).status).toBe(200);
  });

  it('expires tokens after 3600 virtual seconds with token_expired', async () => {
    const s = await start({ timeScale: 36_000 }); // one virtual hour = 100 ms
    const t = await tokenFor(s);
    expect((await call(s, 'GET', '/v1/vms', { token: t })).status).toBe(200);
    await sleep(150);
    const r = await call(s, 'GET', '/v1/vms', { token: t });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('token_expired');
  });
});

describeFaults('auth');
