import { describe, it, expect } from 'vitest';
import { idFromHeaderValue, tokenClaim } from '../../src/engine/target/discover.ts';
import { recentEntries } from '../../suites/audit/_search.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { AuditDeclaration } from '../../src/spec/declarations.ts';

// A header linked by $response.header.X may hold the bare id, a path or a URL: the id is where the linked
// operation's path template puts it.
describe('an id in a header value', () => {
  it.each([
    ['task-1', '/v1/tasks/{id}', 'task-1'],
    ['/v1/tasks/task-1', '/v1/tasks/{id}', 'task-1'],
    ['https://api.example.com/v1/tasks/task-1?x=1', '/v1/tasks/{id}', 'task-1'],
    ['https://api.example.com/base/v1/tasks/t%2F1', '/v1/tasks/{id}', 't/1'],
    ['/tasks/task-1', '/v1/tasks/{id}', undefined],
    ['/v1/tasks/task-1/status', '/v1/tasks/{id}', undefined],
    ['/v1/tasks/task-1', undefined, '/v1/tasks/task-1'],
  ])('%s read as %s gives %s', (value, template, id) => {
    expect(idFromHeaderValue(value, template)).toBe(id);
  });
});

/** A fake audit search over n entries (e-1 oldest ... e-n newest), paged in the given order. */
function auditContext(
  n: number,
  order: 'newest-first' | 'oldest-first',
  declaredOrder?: 'oldest-first'
): { ctx: CheckContext; pagesRead: number[] } {
  const all = Array.from({ length: n }, (_, i) => ({
    id: `e-${i + 1}`,
    path: `/p/${i + 1}`,
    time: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  }));
  const served = order === 'newest-first' ? [...all].reverse() : all;
  const pagesRead: number[] = [];
  const audit: AuditDeclaration = {
    search: { method: 'GET', path: '/v1/audit' },
    entriesPointer: '/entries',
    fields: {
      id: '/id',
      actor: '/actor',
      sourceIp: '/source_ip',
      result: '/result',
      path: '/path',
      status: '/status',
      method: '/method',
      time: '/time',
    },
    filters: {},
    resultValues: { success: 'success', failure: 'failure' },
    ...(declaredOrder ? { order: declaredOrder } : {}),
  };
  const ctx = {
    declarations: { audit, firstPage: 1 },
    call: async (o: { query?: Record<string, unknown> }): Promise<Exchange> => {
      const page = Number(o.query?.['page']);
      const perPage = Number(o.query?.['per_page']);
      pagesRead.push(page);
      const entries = served.slice((page - 1) * perPage, page * perPage);
      const json = { entries, total: n };
      return {
        seq: 0,
        sentBy: 't',
        request: { method: 'GET', url: 'http://x/v1/audit', headers: {} },
        response: { status: 200, headers: {}, body: JSON.stringify(json), json },
        startedAt: '',
        durationMs: 0,
      };
    },
  } as unknown as CheckContext;
  return { ctx, pagesRead };
}

// The issue: after ~740 calls, an oldest-first log has the run's latest calls past page 3.
describe('the most recent audit entries', () => {
  it('are the first pages of a newest-first log', async () => {
    const { ctx, pagesRead } = auditContext(740, 'newest-first');
    const r = await recentEntries(ctx, {}, 3);
    expect(r.entries[0]).toMatchObject({ id: 'e-740' });
    expect(pagesRead).toEqual([1, 2, 3]);
  });

  it('are the last pages of a log declared oldest first, found through its total, newest first', async () => {
    const { ctx, pagesRead } = auditContext(740, 'oldest-first', 'oldest-first');
    const r = await recentEntries(ctx, {}, 3);
    expect(r.entries.slice(0, 2)).toMatchObject([{ id: 'e-740' }, { id: 'e-739' }]);
    expect(r.entries).toHaveLength(240);
    expect(pagesRead).toEqual([1, 8, 7, 6]);
  });

  it('are missed in an oldest-first log read as the default newest first (why the order must be declared)', async () => {
    const { ctx } = auditContext(740, 'oldest-first');
    const r = await recentEntries(ctx, {}, 3);
    expect(r.entries.some((e) => e['id'] === 'e-740')).toBe(false);
  });
});

// x-token-claim: the calling key's id where only its token says it.
describe('a claim of the token at a location', () => {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const jwt = `${b64({ alg: 'HS256', kid: 'key-in-header' })}.${b64({ sub: 'key-1', org: 'o' })}.sig`;
  it.each([
    ['sub', 'key-1'],
    ['kid', 'key-in-header'],
    ['missing', undefined],
  ])('reads %s from the payload, else the protected header', (claim, expected) => {
    expect(tokenClaim(jwt, claim)).toBe(expected);
  });
  it('reads nothing from a value that is not a JWT', () => {
    expect(tokenClaim('opaque-token', 'sub')).toBeUndefined();
    expect(tokenClaim(42, 'sub')).toBeUndefined();
  });
});
