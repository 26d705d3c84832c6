import { describe, it, expect } from 'vitest';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseSignatureHeader, signedPayload, verifySignature, newSecret } from '../../src/engine/events/signatures.ts';
import type { SignatureDeclaration } from '../../src/spec/declarations.ts';
import { signatureHeaders } from '../../fixtures/reference/event-variants.ts';

const require = createRequire(import.meta.url);
const { Webhook } = require('standardwebhooks') as typeof import('standardwebhooks');

const lower = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
const body = Buffer.from('{"id":"evt-1","type":"backup.job.completed","data":{"backup_id":"bk-1"}}');

const HMAC: SignatureDeclaration = {
  scheme: 'hmac',
  header: 'X-Signature',
  algorithm: 'hmac-sha256',
  encoding: 'hex',
  format: 'sha256={signature}',
  payload: '{body}',
  secretFormat: 'text',
};
const STRIPE_LIKE: SignatureDeclaration = {
  ...HMAC,
  format: 't={timestamp},v1={signature}',
  payload: '{timestamp}.{body}',
  toleranceSeconds: 300,
};
const STANDARD: SignatureDeclaration = {
  scheme: 'standard-webhooks',
  header: 'webhook-signature',
  algorithm: 'hmac-sha256',
  encoding: 'base64',
  format: '{signature}',
  payload: '{id}.{timestamp}.{body}',
  timestampHeader: 'webhook-timestamp',
  idHeader: 'webhook-id',
  toleranceSeconds: 300,
  secretFormat: 'whsec',
};

describe('signature header templates', () => {
  it.each([
    ['t=1700000000,v1=abc', 't={timestamp},v1={signature}', { timestamp: '1700000000', signatures: ['abc'] }],
    [
      't=1700000000,v1=abc,v1=def',
      't={timestamp},v1={signature}',
      { timestamp: '1700000000', signatures: ['abc', 'def'] },
    ],
    ['sha256=abc', 'sha256={signature}', { signatures: ['abc'] }],
    ['sha256=abc sha256=def', 'sha256={signature}', { signatures: ['abc', 'def'] }],
    [
      'id=e1;ts=5;sig=a+b/c=',
      'id={id};ts={timestamp};sig={signature}',
      { id: 'e1', timestamp: '5', signatures: ['a+b/c='] },
    ],
  ])('%s read with %s', (value, format, expected) => {
    expect(parseSignatureHeader(value, format)).toEqual(expected);
  });

  it('put the raw body, timestamp and id where the payload template says', () => {
    expect(signedPayload('{id}.{timestamp}.{body}', body, { id: 'm1', timestamp: '5' }).toString()).toBe(
      `m1.5.${body.toString()}`
    );
  });
});

describe('declared schemes verify what the reference signs, and refuse what it signs wrongly', () => {
  const now = Date.now();
  it('an HMAC of the raw body behind a prefix', () => {
    const h = lower(signatureHeaders('hmac-body', { secret: 's3cret', body: body.toString(), eventId: 'evt-1', now }));
    expect(verifySignature({ headers: h, raw: body }, HMAC, 's3cret').valid).toBe(true);
    expect(verifySignature({ headers: h, raw: body }, HMAC, 'other').valid).toBe(false);
  });

  it('a timestamped HMAC (t=<unix>,v1=<hex> over "<t>.<body>")', () => {
    const h = lower(
      signatureHeaders('timestamped', { secret: 's3cret', body: body.toString(), eventId: 'evt-1', now })
    );
    const v = verifySignature({ headers: h, raw: body }, STRIPE_LIKE, 's3cret');
    expect(v).toEqual({ valid: true, timestamp: Math.floor(now / 1000) });
    const unsigned = lower(
      signatureHeaders(
        'timestamped',
        { secret: 's3cret', body: body.toString(), eventId: 'evt-1', now },
        { timestampUnsigned: true }
      )
    );
    expect(verifySignature({ headers: unsigned, raw: body }, STRIPE_LIKE, 's3cret').valid).toBe(false);
  });

  it('one valid signature among several in the header (key rotation)', () => {
    const t = '1700000000';
    const good = createHmac('sha256', 's3cret').update(`${t}.${body.toString()}`).digest('hex');
    const headers = { 'x-signature': `t=${t},v1=${'0'.repeat(64)},v1=${good}` };
    expect(verifySignature({ headers, raw: body }, STRIPE_LIKE, 's3cret').valid).toBe(true);
  });

  it('Standard Webhooks 1.0: what the reference signs verifies with the spec’s own library, and the suite agrees', () => {
    const secret = newSecret(STANDARD);
    expect(secret).toMatch(/^whsec_/);
    const h = signatureHeaders('standard-webhooks', { secret, body: body.toString(), eventId: 'msg_1', now });
    // The library judges freshness against this machine's clock: now is now.
    expect(new Webhook(secret).verify(body.toString(), h)).toEqual(JSON.parse(body.toString()));
    expect(verifySignature({ headers: lower(h), raw: body }, STANDARD, secret)).toEqual({
      valid: true,
      timestamp: Math.floor(now / 1000),
    });
    const wrong = newSecret(STANDARD);
    expect(verifySignature({ headers: lower(h), raw: body }, STANDARD, wrong).valid).toBe(false);
    expect(() => new Webhook(wrong).verify(body.toString(), h)).toThrow();
  });

  it('Standard Webhooks 1.0: a vector signed by the library verifies', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const wh = new Webhook(secret);
    const ts = new Date(1_614_265_330_000);
    const signature = wh.sign('msg_p5jXN8AQM9LWM0D4loKWxJek', ts, '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': `v1,${'A'.repeat(43)}= ${signature}`,
    };
    expect(verifySignature({ headers, raw: Buffer.from('{"test": 2432232314}') }, STANDARD, secret)).toEqual({
      valid: true,
      timestamp: 1614265330,
    });
  });
});
