// The header readings behind the convention review's assertions (docs/checks-and-levels.md): each convention's
// valid spellings are accepted and its lapses are not.
import { describe, expect, it } from 'vitest';
import { offersBearer } from '../../suites/auth/bearer-challenge.ts';
import { forbidsStoring } from '../../suites/auth/token-not-cached.ts';
import { allowedMethods } from '../../suites/errors/allow-on-405.ts';

describe('a WWW-Authenticate challenge for Bearer (RFC 9110 §11.6.1, RFC 6750 §3)', () => {
  it.each([
    ['Bearer', true],
    ['bearer realm="cloud-platform", error="invalid_token"', true],
    ['Basic realm="x", Bearer', true],
    ['BEARER', true],
    ['Basic realm="x"', false],
    ['BearerToken', false],
    ['', false],
    [undefined, false],
  ])('%j offers Bearer: %s', (value, offered) => expect(offersBearer(value)).toBe(offered));
});

describe('Cache-Control no-store on a token answer (RFC 6749 §5.1)', () => {
  it.each([
    ['no-store', true],
    ['No-Store, no-cache, must-revalidate', true],
    ['private, no-store', true],
    ['private, max-age=300', false],
    ['no-cache', false],
    [undefined, false],
  ])('%j forbids storing: %s', (value, forbids) => expect(forbidsStoring(value)).toBe(forbids));
});

describe('the methods a 405 answer allows (RFC 9110 §10.2.1)', () => {
  it.each([
    ['GET, HEAD', ['GET', 'HEAD']],
    ['GET,HEAD', ['GET', 'HEAD']],
    ['', []],
    [undefined, undefined],
  ])('%j lists %j', (value, methods) => expect(allowedMethods(value)).toEqual(methods));
});
