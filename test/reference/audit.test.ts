// The reference target (not the suite): the audit trail and its export, and the faults of the audit checks.
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { call, exportedEntries, start, closeStarted } from './harness.ts';
import { tokenFor, sleep, tamper, auditEntries, parseCsv, burst, count, issue, write } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('audit trail', () => {
  it('logs every authenticated request whatever its outcome, and nothing unauthenticated', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const keyId = decodeJwt(t).sub as string;
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    const expected: Array<[string, string, number]> = [['POST', '/v1/auth/tokens', 200]];
    const send = async (method: string, path: string, opts: Parameters<typeof call>[3], status: number) => {
      const r = await call(s, method, path, opts);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.body?.error === undefined || typeof r.body.error.code === 'string').toBe(true);
      expected.push([method, path.split('?')[0]!, status]);
    };
    await send('GET', '/v1/vms?per_page=2', { token: t }, 200);
    await send('POST', '/v1/vms', { token: t, json: {} }, 400);
    await send('GET', '/v1/vms/vm-nope', { token: t }, 404);
    await send('GET', '/v1/nothing', { token: t }, 404);
    await send('PATCH', '/v1/vms', { token: t }, 405);
    await send('POST', '/v1/vms', { token: t, raw: '{}', headers: { 'content-type': 'text/plain' } }, 415);
    await send('POST', '/v1/vms', { token: t, raw: JSON.stringify({ x: 'x'.repeat(1024 * 1024) }) }, 413);
    await send(
      'POST',
      '/v1/auth/tokens',
      { json: { api_key: s.apiKey }, headers: { 'content-type': 'text/plain' } },
      415
    );
    // Not logged: no or bad credentials, an unknown API key.
    expect((await call(s, 'GET', '/v1/vms')).status).toBe(401);
    expect((await call(s, 'GET', '/v1/vms', { token: tamper(t) })).status).toBe(401);
    expect((await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'ck_nope' } })).status).toBe(401);
    expect((await call(s, 'GET', '/v1/nothing')).status).toBe(404);
    // A viewer's refused write is logged under the viewer's key.
    expect((await call(s, 'POST', '/v1/vms', { token: viewer, json: {} })).status).toBe(403);
    // 429s are logged too: a fresh token spends its write budget.
    const t2 = await tokenFor(s);
    expected.push(['POST', '/v1/auth/tokens', 200]);
    const ws = await burst(61, () => write(s, t2));
    expect(count(ws, 429)).toBe(1);

    const entries = await auditEntries(s, t, 'per_page=100&actor=' + keyId);
    // Newest first: reverse to compare with the order sent (the burst's writes last, in some order).
    const seen = entries.map((e) => [e.method, e.path, e.status]).reverse();
    expect(seen.slice(0, expected.length)).toEqual(expected);
    expect(
      seen
        .slice(expected.length)
        .map((e) => e[2])
        .sort()
    ).toEqual([...Array(60).fill(400), 429]);
    for (const e of entries) {
      expect(e).toEqual({
        id: expect.stringMatching(/^au-/),
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        actor: keyId,
        organization: decodeJwt(t).org,
        source_ip: '127.0.0.1',
        method: e.method,
        path: e.path,
        status: e.status,
        result: e.status < 400 ? 'success' : 'failure',
      });
    }
    expect(JSON.stringify(entries)).not.toContain(s.apiKey);
    const all = await auditEntries(s, t);
    const viewerId = decodeJwt(viewer).sub;
    expect(all.filter((e) => e.actor === viewerId).map((e) => [e.method, e.path, e.status])).toEqual([
      ['POST', '/v1/vms', 403],
      ['POST', '/v1/auth/tokens', 200],
    ]);
    expect(all.some((e) => e.status === 401)).toBe(false);
    // Org B sees none of it; the GET /v1/audit requests themselves were logged after they answered.
    const tb = await tokenFor(s, s.apiKeyB);
    const b = await auditEntries(s, tb);
    expect(b.map((e) => [e.method, e.path])).toEqual([['POST', '/v1/auth/tokens']]);
    const again = await auditEntries(s, t, 'per_page=2&path_prefix=/v1/audit');
    expect(again.map((e) => e.path)).toEqual(['/v1/audit', '/v1/audit']);
  });

  it('logs token issuance refused by the issuance limit under the key', async () => {
    const s = await start();
    const rs = await burst(11, () => issue(s));
    expect(count(rs, 429)).toBe(1);
    const t = await tokenFor(s, s.apiKeyB);
    expect((await auditEntries(s, t)).length).toBe(1);
    // Key A's budget is spent, so org A's log is read with the viewer's key (its own issuance is logged too).
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    const entries = await auditEntries(s, viewer, 'path_prefix=/v1/auth/tokens&per_page=100');
    expect(entries.map((e) => e.status).sort()).toEqual([...Array(11).fill(200), 429]);
  });

  it('searches with exact filters, newest first, paged', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const viewer = await tokenFor(s, s.apiKeyReadonly);
    // Real time equals virtual time at scale 1; the pauses keep entries off the boundaries (from and to are inclusive).
    await sleep(5);
    const before = new Date().toISOString();
    await sleep(5);
    await call(s, 'GET', '/v1/vms', { token: t });
    await call(s, 'GET', '/v1/vms/vm-nope', { token: t });
    await call(s, 'POST', '/v1/vms', { token: viewer, json: {} });
    await call(s, 'GET', '/v1/tasks/task-nope', { token: t });
    await sleep(5);
    const after = new Date().toISOString();
    await sleep(5);
    const all = await auditEntries(s, t);
    expect(all).toHaveLength(6);
    expect(all.map((e) => e.time)).toEqual([...all.map((e) => e.time)].sort().reverse());
    // None of these filters matches the GET /v1/audit requests the test itself makes.
    const q = async (query: string) =>
      (await auditEntries(s, t, query)).map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(await q('result=failure')).toEqual([
      'GET /v1/tasks/task-nope 404',
      'POST /v1/vms 403',
      'GET /v1/vms/vm-nope 404',
    ]);
    expect(await q('result=success&path_prefix=/v1/vms')).toEqual(['GET /v1/vms 200']);
    expect(await q('method=POST')).toEqual([
      'POST /v1/vms 403',
      'POST /v1/auth/tokens 200',
      'POST /v1/auth/tokens 200',
    ]);
    expect(await q(`actor=${decodeJwt(viewer).sub}`)).toEqual(['POST /v1/vms 403', 'POST /v1/auth/tokens 200']);
    expect((await auditEntries(s, t, 'path_prefix=/v1/vms')).map((e) => e.path)).toEqual([
      '/v1/vms',
      '/v1/vms/vm-nope',
      '/v1/vms',
    ]);
    expect((await q(`from=${before}&to=${after}`)).length).toBe(4);
    expect(await q(`to=${before}`)).toEqual(['POST /v1/auth/tokens 200', 'POST /v1/auth/tokens 200']);
    const p1 = await call(s, 'GET', '/v1/audit?per_page=2&page=1&path_prefix=/v1/vms', { token: t });
    expect(p1.body).toMatchObject({ total: 3, page: 1, per_page: 2 });
    expect(p1.body.entries).toHaveLength(2);
    const p2 = await call(s, 'GET', '/v1/audit?per_page=2&page=2&path_prefix=/v1/vms', { token: t });
    expect(p2.body.entries.map((e) => e.path)).toEqual(['/v1/vms']);
    for (const bad of [
      'per_page=101',
      'per_page=0',
      'page=0',
      'result=ok',
      'from=yesterday',
      'to=2026-01-01',
      `from=${after}&to=${before}`,
    ]) {
      const r = await call(s, 'GET', `/v1/audit?${bad}`, { token: t });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    expect((await call(s, 'GET', '/v1/audit?per_page=100', { token: t })).status).toBe(200);
  });

  it('exports all matching entries as JSON and RFC 4180 CSV, agreeing with the search', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (let i = 0; i < 3; i++) await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
    await call(s, 'GET', '/v1/nothing,"quoted"', { token: t });
    const searchAll = await auditEntries(s, t, 'path_prefix=/v1/vms&per_page=100');
    const j = await call(s, 'GET', '/v1/audit/export?format=json&path_prefix=/v1/vms', { token: t });
    expect(j.status).toBe(200);
    expect(j.headers.get('content-type')).toMatch(/^application\/json/);
    expect(j.body).toEqual(searchAll);
    const c = await call(s, 'GET', '/v1/audit/export?format=csv&path_prefix=/v1/n', { token: t });
    expect(c.status).toBe(200);
    expect(c.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(c.text);
    expect(rows[0]).toEqual(['id', 'time', 'actor', 'organization', 'source_ip', 'method', 'path', 'status', 'result']);
    expect(rows).toHaveLength(2);
    const [entry] = await auditEntries(s, t, 'path_prefix=/v1/n');
    expect(entry.path).toBe('/v1/nothing,%22quoted%22');
    expect(rows[1]).toEqual([
      entry.id,
      entry.time,
      entry.actor,
      entry.organization,
      entry.source_ip,
      'GET',
      entry.path,
      '404',
      'failure',
    ]);
    expect(c.text).toContain('"/v1/nothing,%22quoted%22"');
    const csvAll = parseCsv((await call(s, 'GET', '/v1/audit/export?format=csv', { token: t })).text).slice(1);
    const jsonAll = exportedEntries(await call(s, 'GET', '/v1/audit/export?format=json', { token: t }));
    // The export requests are logged too: the JSON one came later, so it sees the CSV one.
    expect(jsonAll.slice(1).map((e) => e.id)).toEqual(csvAll.map((r) => r[0]));
    const bad = await call(s, 'GET', '/v1/audit/export?format=xml', { token: t });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect((await call(s, 'GET', '/v1/audit/export?format=csv')).status).toBe(401);
  });
});

describeFaults('audit');
