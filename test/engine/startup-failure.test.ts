import { describe, it, expect } from 'vitest';
import {
  describeStartupFailure,
  mayBeSpentBudget,
  SPEAKS_TLS,
  StartupFailure,
  type StartupFailureKind,
} from '../../src/engine/identity/startup-failure.ts';
import type { Exchange, IncompleteResponse, RecordedResponse } from '../../src/engine/transport/exchange.ts';
import { INPUT_NAMES } from '../../src/cli/options.ts';

const LIMITS = {
  baseUrl: 'https://api.example.test',
  requestTimeoutSeconds: 3,
  maxBodyBytes: 8 * 1024 * 1024,
  names: INPUT_NAMES,
};

function exchange(outcome: {
  response?: Partial<RecordedResponse> & { status: number };
  transportError?: string;
  incompleteResponse?: IncompleteResponse;
}): Exchange {
  const response = outcome.response && { headers: {}, body: '', ...outcome.response };
  if (response && response.json === undefined) {
    try {
      response.json = JSON.parse(response.body);
    } catch {
      // not JSON: left undefined, as the HTTP client leaves it
    }
  }
  return {
    seq: 1,
    sentBy: 'limits.token-limit',
    request: {
      method: 'POST',
      url: 'https://api.example.test/v1/auth/tokens',
      headers: { 'content-type': 'application/json' },
      body: '{"api_key":"[REDACTED api key CONFORMANCE_API_KEY]"}',
    },
    response,
    transportError: outcome.transportError,
    incompleteResponse: outcome.incompleteResponse,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 5,
  };
}

const json = { 'content-type': 'application/json' };

/** What the target did with the first token request → the kind of failure and the message that names it. */
const CASES: Array<[string, Exchange, StartupFailureKind, RegExp]> = [
  [
    'connection refused',
    exchange({ transportError: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' }),
    'unreachable',
    /^target unreachable at https:\/\/api\.example\.test: ECONNREFUSED/,
  ],
  [
    'no answer at all within the deadline',
    exchange({ transportError: 'timed out' }),
    'unreachable',
    /^target unreachable at https:\/\/api\.example\.test: no answer within --request-timeout 3 s$/,
  ],
  [
    'headers, then a body past the deadline',
    exchange({
      transportError: 'timed out',
      incompleteResponse: { status: 200, headers: json, receivedBytes: 12, headersAfterMs: 4 },
    }),
    'incomplete',
    /^the target answered POST \/v1\/auth\/tokens with 200 \(application\/json\) after 4 ms, but the body did not complete within --request-timeout 3 s: 12 bytes arrived$/,
  ],
  [
    'headers, then a reset mid-body',
    exchange({
      transportError: 'UND_ERR_SOCKET: other side closed',
      incompleteResponse: { status: 200, headers: json, receivedBytes: 3, headersAfterMs: 2 },
    }),
    'incomplete',
    /but the body broke off \(UND_ERR_SOCKET: other side closed\): 3 bytes arrived$/,
  ],
  [
    'a body over the cap',
    exchange({ response: { status: 200, headers: json, body: 'a'.repeat(100), truncated: true } }),
    'body-over-cap',
    /with 200 \(application\/json\) and a body over the 8 MiB cap/,
  ],
  [
    '307 to another origin',
    exchange({ response: { status: 307, headers: { location: 'https://elsewhere.test/v1/auth/tokens' } } }),
    'redirect',
    /redirected POST \/v1\/auth\/tokens \(307\) to https:\/\/elsewhere\.test\/v1\/auth\/tokens \(another origin\); redirects are not followed/,
  ],
  [
    '301 within the origin',
    exchange({ response: { status: 301, headers: { location: '/api/v1/auth/tokens' } } }),
    'redirect',
    /\(301\) to https:\/\/api\.example\.test\/api\/v1\/auth\/tokens; redirects are not followed/,
  ],
  ['302 without Location', exchange({ response: { status: 302 } }), 'redirect', /\(302\) with no Location header/],
  [
    '500 HTML page',
    exchange({
      response: { status: 500, headers: { 'content-type': 'text/html' }, body: '<html><title>Oops</title></html>' },
    }),
    'server-error',
    /^the target failed on POST \/v1\/auth\/tokens: 500 with text\/html \(32 bytes, page title "Oops"\)$/,
  ],
  [
    '503 error object',
    exchange({
      response: { status: 503, headers: json, body: '{"error":{"code":"maintenance","message":"back soon"}}' },
    }),
    'server-error',
    /503 with application\/json \(\d+ bytes, error code maintenance \("back soon"\)\)$/,
  ],
  [
    '502 without content type',
    exchange({ response: { status: 502 } }),
    'server-error',
    /502 with no content type \(0 bytes\)$/,
  ],
  [
    '401 with an error code',
    exchange({
      response: { status: 401, headers: json, body: '{"error":{"code":"invalid_api_key","message":"unknown key"}}' },
    }),
    'refused',
    /^the target refused to issue a token for --api-key \(401 invalid_api_key: "unknown key"\); check --api-key and --base-url$/,
  ],
  [
    '403 without an error object',
    exchange({ response: { status: 403, body: 'Forbidden' } }),
    'refused',
    /\(403, no content type, no error object\); check --api-key and --base-url$/,
  ],
  [
    '404: not the API host',
    exchange({ response: { status: 404, body: 'Not Found' } }),
    'rejected',
    /^the target answered POST \/v1\/auth\/tokens with 404 \(no content type, no error object\): is --base-url the API host \(paths begin with \/v1\)\?$/,
  ],
  [
    '404 HTML page: a web server, not the API',
    exchange({
      response: { status: 404, headers: { 'content-type': 'text/html' }, body: '<title>404 Not Found</title>' },
    }),
    'rejected',
    /with 404 \(text\/html, no error object, page title "404 Not Found"\): is --base-url the API host/,
  ],
  [
    '403 S3 error document: the object storage endpoint given as --base-url',
    exchange({
      response: {
        status: 403,
        headers: { 'content-type': 'application/xml' },
        body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>',
      },
    }),
    'rejected',
    /with 403 \(application\/xml, no error object, an S3 error document \(AccessDenied\)\): that is an S3 endpoint; --base-url is the API host .*--s3-url$/,
  ],
  [
    '400 from a TLS port given a plain request (nginx)',
    exchange({
      response: {
        status: 400,
        headers: { 'content-type': 'text/html' },
        body: '<html><center>The plain HTTP request was sent to HTTPS port</center></html>',
      },
    }),
    'rejected',
    /api\.example\.test speaks TLS and the request was plain HTTP: use --base-url https:\/\/api\.example\.test$/,
  ],
  [
    'https:// to a port that answers plain HTTP',
    exchange({ transportError: 'ERR_SSL_WRONG_VERSION_NUMBER: wrong version number' }),
    'unreachable',
    /; api\.example\.test answered without TLS \(plain HTTP on that port\?\): use --base-url http:\/\/api\.example\.test$/,
  ],
  [
    '429: issuances spent',
    exchange({
      response: { status: 429, headers: json, body: '{"error":{"code":"rate_limited","message":"slow down"}}' },
    }),
    'rejected',
    /with 429 rate_limited: the key's token issuances are spent for now/,
  ],
  [
    '400 with a code',
    exchange({ response: { status: 400, headers: json, body: '{"error":{"code":"invalid_request","message":"?"}}' } }),
    'rejected',
    /with 400 invalid_request$/,
  ],
  [
    '201 with truncated JSON',
    exchange({ response: { status: 201, headers: json, body: '{"token":"ab' } }),
    'not-json',
    /^the target answered POST \/v1\/auth\/tokens with 201 \(application\/json\) but the body is not JSON: Unterminated string in JSON at position 12/,
  ],
  [
    '200 with an empty body',
    exchange({ response: { status: 200 } }),
    'not-json',
    /with 200 \(no content type\) but the body is not JSON: Unexpected end of JSON input$/,
  ],
  [
    '200 JSON without a token',
    exchange({ response: { status: 200, headers: json, body: '{"access_token":"x","expires_in":3600}' } }),
    'no-token',
    /with 200 and JSON without a string field token \(fields: access_token, expires_in\)$/,
  ],
  [
    '200 JSON array',
    exchange({ response: { status: 200, headers: json, body: '[]' } }),
    'no-token',
    /\(a JSON array\)$/,
  ],
  [
    '100-class status',
    exchange({ response: { status: 199 } }),
    'unexpected',
    /with 199, which is neither a token nor an error$/,
  ],
];

describe('describeStartupFailure names what the target did', () => {
  it.each(CASES)('%s → %s', (_name, ex, kind, message) => {
    const d = describeStartupFailure(ex, 'primary', LIMITS);
    expect(d.kind).toBe(kind);
    expect(d.message).toMatch(message);
  });

  it('suggests checking the key only for a refusal', () => {
    for (const [name, ex, kind] of CASES) {
      const { message } = describeStartupFailure(ex, 'primary', LIMITS);
      expect(/check --api-key/.test(message), name).toBe(kind === 'refused');
    }
  });

  it('http:// to a port that speaks TLS (the note the runner adds after a bare handshake): names https://', () => {
    const ex = exchange({ transportError: `UND_ERR_SOCKET: other side closed; ${SPEAKS_TLS}` });
    const d = describeStartupFailure(ex, 'primary', { ...LIMITS, baseUrl: 'http://api.example.test:8443' });
    expect(d.message).toMatch(
      /speaks TLS and the request was plain HTTP: use --base-url https:\/\/api\.example\.test:8443$/
    );
    // Without the note a closed connection is only that.
    const closed = exchange({ transportError: 'UND_ERR_SOCKET: other side closed' });
    expect(describeStartupFailure(closed, 'primary', LIMITS).message).not.toMatch(/TLS/);
  });

  it('names the key that was refused by its flag, the name the CLI gives its role', () => {
    const ex = CASES.find(([n]) => n === '401 with an error code')![1];
    expect(describeStartupFailure(ex, 'second', LIMITS).message).toMatch(/for --api-key-b .*check --api-key-b/);
  });

  it('carries the exchange as evidence (request, response, curl line) and the facts behind the message', () => {
    const ex = CASES.find(([n]) => n === '201 with truncated JSON')![1];
    const failure = new StartupFailure(ex, 'primary', LIMITS);
    expect(failure.message).toBe(describeStartupFailure(ex, 'primary', LIMITS).message);
    expect(failure.report.kind).toBe('not-json');
    const [shown] = failure.report.evidence.exchanges;
    expect(shown!.response?.status).toBe(201);
    // The key as the variable the CLI reads it from, handed to curl on its standard input, never as an argument.
    expect(shown!.curl).toBe(
      `printf 'data-raw = "{\\\\"api_key\\\\":\\\\"%s\\\\"}"\\n' "$CONFORMANCE_API_KEY" | curl -sS -i -K - -X POST 'https://api.example.test/v1/auth/tokens' -H 'content-type: application/json'`
    );
    expect(failure.report.evidence.details).toEqual({
      status: 201,
      contentType: 'application/json',
      parseError: expect.stringMatching(/JSON/),
      bodyBytes: 12,
    });
  });
});

// The issuance probe waits a window before giving up only on a refusal that may be the key's budget spent before the
// run; an answer that is not the API's is conclusive at once (an HTML 404 used to wait a minute).
describe('mayBeSpentBudget: which refused first token requests are worth a window', () => {
  const error = (status: number, headers: Record<string, string> = json) =>
    exchange({ response: { status, headers, body: '{"error":{"code":"x","message":"y"}}' } });
  it.each([
    ['429, any body', exchange({ response: { status: 429, body: 'Too Many Requests' } }), true],
    ['a Retry-After, any body', exchange({ response: { status: 403, headers: { 'retry-after': '30' } } }), true],
    ["403 with the API's error object", error(403), true],
    ["409 with the API's error object", error(409), true],
    ["404 with the API's error object (no such path)", error(404), false],
    ["405 with the API's error object (no such method)", error(405), false],
    ['404 HTML page', exchange({ response: { status: 404, body: '<html>nope</html>' } }), false],
    ['403 S3 XML', exchange({ response: { status: 403, body: '<Error><Code>AccessDenied</Code></Error>' } }), false],
    ['no answer', exchange({ transportError: 'ECONNREFUSED' }), false],
  ])('%s → %s', (_name, ex, worth) => expect(mayBeSpentBudget(ex)).toBe(worth));
});
