// The judgments the checks that range over every operation make from answers alone, as data.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { treatedAsValid } from '../../suites/auth/_bearer-writes.ts';
import { pageIgnored } from '../../suites/pagination/declared-lists.ts';

const answer = (status: number, code?: string): Exchange =>
  ({
    seq: 0,
    sentBy: 'test',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    request: { method: 'DELETE', url: 'http://127.0.0.1/v1/vms/absent', headers: {} },
    response: { status, headers: {}, json: code ? { error: { code, message: code } } : undefined },
  }) as unknown as Exchange;

describe('an altered token on a write to an id that exists nowhere (auth.tampered-token)', () => {
  const cases: Array<[string, Exchange, Exchange, Exchange, boolean]> = [
    [
      'refused as a missing token is',
      answer(401, 'unauthenticated'),
      answer(404, 'not_found'),
      answer(401, 'unauthenticated'),
      false,
    ],
    [
      'refused with 403 although a valid token also gets 403 (objects hidden behind 403)',
      answer(403, 'forbidden'),
      answer(403, 'forbidden'),
      answer(401, 'unauthenticated'),
      false,
    ],
    [
      'answered as a valid token is: the object lookup ran',
      answer(404, 'not_found'),
      answer(404, 'not_found'),
      answer(401, 'unauthenticated'),
      true,
    ],
    ['served', answer(202), answer(404, 'not_found'), answer(401, 'unauthenticated'), true],
    [
      '404 for every caller, a missing token included (no evidence either way)',
      answer(404, 'not_found'),
      answer(404, 'not_found'),
      answer(404, 'not_found'),
      false,
    ],
    [
      '404 with another code than a valid token gets',
      answer(404, 'invalid_token'),
      answer(404, 'not_found'),
      answer(401, 'unauthenticated'),
      false,
    ],
    [
      'a server error (not the token judged)',
      answer(500, 'internal'),
      answer(500, 'internal'),
      answer(401, 'unauthenticated'),
      false,
    ],
  ];
  for (const [what, altered, valid, anonymous, accepted] of cases) {
    it(`${what}: ${accepted ? 'let through' : 'refused'}`, () =>
      expect(treatedAsValid(altered, valid, anonymous)).toBe(accepted));
  }
});

describe('two pages of a declared list (pagination.declared-lists)', () => {
  const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `e${from + i}` }));
  const cases: Array<[string, unknown[], unknown[], boolean]> = [
    ['disjoint pages', ids(0, 10), ids(10, 10), false],
    ['the same page twice (page ignored)', ids(0, 10), ids(0, 10), true],
    ['a list that grew by two entries between the reads (newest first)', ids(0, 10), ids(8, 10), false],
    ['an empty second page', ids(0, 10), [], false],
    ['one item per page, the same item', ids(0, 1), ids(0, 1), true],
  ];
  for (const [what, first, second, ignored] of cases) {
    it(`${what}: ${ignored ? 'page ignored' : 'page honoured'}`, () =>
      expect(pageIgnored(first, second)).toBe(ignored));
  }
});
