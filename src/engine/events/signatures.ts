// Webhook signature schemes as declared (x-webhook-signature): an HMAC over a signed-payload template with the
// signature (and a timestamp, an id) laid out in a header by a format template, or Standard Webhooks 1.0, whose
// signatures are computed with the spec's own library (standardwebhooks).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SignatureDeclaration } from '../../spec/declarations.ts';

const require = createRequire(import.meta.url);
// standardwebhooks is CommonJS.
const { Webhook: StandardWebhook } = require('standardwebhooks') as typeof import('standardwebhooks');

interface SignedDelivery {
  /** Lower-case header names. */
  headers: Record<string, string>;
  raw: Buffer;
}

interface SignatureVerdict {
  valid: boolean;
  /** Why it is not valid. */
  reason?: string;
  /** The signed timestamp (Unix seconds), when the scheme has one. */
  timestamp?: number;
}

/** A fresh secret in the form the scheme wants: whsec_<base64> for Standard Webhooks, else 32 hex characters. */
export function newSecret(sig: Pick<SignatureDeclaration, 'secretFormat'> | undefined): string {
  return sig?.secretFormat === 'whsec'
    ? `whsec_${randomBytes(24).toString('base64')}`
    : randomBytes(16).toString('hex');
}

/** The HMAC key of a secret: whsec_<base64> decodes to its bytes, anything else is its UTF-8 text. */
function secretKey(secret: string, format: SignatureDeclaration['secretFormat']): Buffer {
  return format === 'whsec' ? Buffer.from(secret.replace(/^whsec_/, ''), 'base64') : Buffer.from(secret, 'utf8');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The separator between the items of a header format ('t={timestamp},v1={signature}' → ','), if it has several. */
function separatorOf(format: string): string | undefined {
  const literal = format.replace(/\{[a-z]+\}/g, '');
  return [',', ';', ' '].find((c) => literal.includes(c));
}

/** Reads a header laid out by a format template; a signature item may repeat (several keys during a rotation). */
export function parseSignatureHeader(
  value: string,
  format: string
): { signatures: string[]; timestamp?: string; id?: string } {
  const sep = separatorOf(format);
  const items = sep
    ? format
        .split(sep)
        .map((s) => s.trim())
        .filter(Boolean)
    : [format];
  // A one-item format may still carry several signatures, space- or comma-separated (a key rotation).
  const pieces = (sep ? value.split(sep) : value.split(/[ ,]+/)).map((s) => s.trim()).filter(Boolean);
  const matchers = items.map((item) => {
    const names: string[] = [];
    const source = item.split(/(\{[a-z]+\})/).map((part) => {
      const m = /^\{([a-z]+)\}$/.exec(part);
      if (!m) return escape(part);
      names.push(m[1]!);
      return '(.+?)';
    });
    return { re: new RegExp(`^${source.join('')}$`), names };
  });
  const out: { signatures: string[]; timestamp?: string; id?: string } = { signatures: [] };
  for (const piece of pieces) {
    for (const { re, names } of matchers) {
      const m = re.exec(piece);
      if (!m) continue;
      names.forEach((name, i) => {
        const v = m[i + 1]!;
        if (name === 'signature') {
          if (!out.signatures.includes(v)) out.signatures.push(v);
        } else if (name === 'timestamp') out.timestamp ??= v;
        else if (name === 'id') out.id ??= v;
      });
      break;
    }
  }
  return out;
}

/** The bytes a signed-payload template stands for: {body} is the raw body, exactly as delivered. */
export function signedPayload(template: string, raw: Buffer, values: { timestamp?: string; id?: string }): Buffer {
  return Buffer.concat(
    template
      .split(/(\{[a-z]+\})/)
      .filter((p) => p !== '')
      .map((part) => {
        if (part === '{body}') return raw;
        if (part === '{timestamp}') return Buffer.from(values.timestamp ?? '', 'utf8');
        if (part === '{id}') return Buffer.from(values.id ?? '', 'utf8');
        return Buffer.from(part, 'utf8');
      })
  );
}

const ALGORITHMS = { 'hmac-sha256': 'sha256', 'hmac-sha1': 'sha1', 'hmac-sha512': 'sha512' } as const;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function toSeconds(v: string | undefined): number | undefined {
  return v !== undefined && /^\d{1,12}$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** Checks a delivery's signature as declared (not its freshness: see timestampSkew). */
export function verifySignature(d: SignedDelivery, sig: SignatureDeclaration, secret: string): SignatureVerdict {
  const value = d.headers[sig.header.toLowerCase()];
  if (value === undefined || value === '') return { valid: false, reason: `no ${sig.header} header` };
  if (sig.scheme === 'standard-webhooks') return verifyStandard(d, sig, secret, value);
  const parsed = parseSignatureHeader(value, sig.format);
  if (parsed.signatures.length === 0)
    return { valid: false, reason: `${sig.header} does not have the declared form ${sig.format}` };
  const timestamp =
    parsed.timestamp ?? (sig.timestampHeader ? d.headers[sig.timestampHeader.toLowerCase()] : undefined);
  const id = parsed.id ?? (sig.idHeader ? d.headers[sig.idHeader.toLowerCase()] : undefined);
  if (sig.payload.includes('{timestamp}') && timestamp === undefined)
    return { valid: false, reason: 'the delivery carries no timestamp for the signed payload' };
  if (sig.payload.includes('{id}') && id === undefined)
    return { valid: false, reason: 'the delivery carries no id for the signed payload' };
  const expected = createHmac(ALGORITHMS[sig.algorithm], secretKey(secret, sig.secretFormat))
    .update(signedPayload(sig.payload, d.raw, { timestamp, id }))
    .digest(sig.encoding);
  const ts = toSeconds(timestamp);
  if (parsed.signatures.some((s) => sameText(s, expected)))
    return { valid: true, ...(ts !== undefined ? { timestamp: ts } : {}) };
  return {
    valid: false,
    reason: `none of the ${parsed.signatures.length} signatures is the ${sig.algorithm} of ${sig.payload}`,
    ...(ts !== undefined ? { timestamp: ts } : {}),
  };
}

/** Standard Webhooks 1.0: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, space-separated during rotation. */
function verifyStandard(d: SignedDelivery, sig: SignatureDeclaration, secret: string, value: string): SignatureVerdict {
  const id = d.headers[(sig.idHeader ?? 'webhook-id').toLowerCase()];
  const timestamp = toSeconds(d.headers[(sig.timestampHeader ?? 'webhook-timestamp').toLowerCase()]);
  if (!id) return { valid: false, reason: `no ${sig.idHeader ?? 'webhook-id'} header` };
  if (timestamp === undefined)
    return { valid: false, reason: `no Unix-seconds ${sig.timestampHeader ?? 'webhook-timestamp'} header` };
  let expected: string;
  try {
    // The library signs; its verify() also judges freshness against this machine's clock, which a scaled run cannot use.
    expected = new StandardWebhook(secret).sign(id, new Date(timestamp * 1000), d.raw);
  } catch (err) {
    return {
      valid: false,
      reason: `the registered secret is not a Standard Webhooks secret: ${(err as Error).message}`,
      timestamp,
    };
  }
  const passed = value.split(' ').filter(Boolean);
  if (passed.some((s) => sameText(s, expected))) return { valid: true, timestamp };
  return {
    valid: false,
    reason: `none of the ${passed.length} signatures is v1,<HMAC-SHA256 of id.timestamp.body>`,
    timestamp,
  };
}

/** Target-seconds between a signed timestamp and the target's clock when the delivery arrived. */
export function timestampSkew(timestampSeconds: number, targetNowMs: number): number {
  return Math.abs(timestampSeconds - targetNowMs / 1000);
}
