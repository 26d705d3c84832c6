// The JSON report's integrity block: digests of what it records, over RFC 8785 canonical JSON, optionally signed
// with Ed25519 (node:crypto). cloud-conformance verify recomputes them (src/report/verify.ts).
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import type { CheckReport, EvidenceExchangeAt, Integrity, RunReport } from '../engine/run/report.ts';
import { UsageError } from '../spec/errors.ts';

const INTEGRITY_ALGORITHM = 'sha256 over RFC 8785 canonical JSON' as const;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const canonical = (value: unknown) => canonicalize(value) ?? 'null';

/** The report as its JSON file holds it: undefined fields dropped, as JSON.stringify drops them. */
function asWritten<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every exchange the report holds (each check's evidence and findings, the start-up failure), with where it sits. */
export function exchangesOf(report: RunReport): Array<{ at: string; exchange: unknown }> {
  const found: Array<{ at: string; exchange: unknown }> = [];
  const fromCheck = (c: CheckReport) => {
    c.evidence?.exchanges?.forEach((exchange, i) => found.push({ at: `${c.id} evidence #${i + 1}`, exchange }));
    c.findings?.forEach((f, j) =>
      f.evidence?.exchanges?.forEach((exchange, i) =>
        found.push({ at: `${c.id} finding ${j + 1} #${i + 1}`, exchange })
      )
    );
  };
  report.checks.forEach(fromCheck);
  report.startupFailure?.evidence?.exchanges?.forEach((exchange, i) =>
    found.push({ at: `startupFailure #${i + 1}`, exchange })
  );
  return found;
}

/** The digests of a report as written (its integrity block left out), before any signature. */
export function digestsOf(report: RunReport): Omit<Integrity, 'signature'> {
  const { integrity: _ignored, ...rest } = asWritten(report);
  const exchanges: EvidenceExchangeAt[] = exchangesOf(rest as RunReport).map((e) => ({
    at: e.at,
    sha256: sha256(canonical(e.exchange)),
  }));
  return {
    algorithm: INTEGRITY_ALGORITHM,
    report: sha256(canonical(rest)),
    checks: sha256(canonical(rest.checks)),
    exchanges,
  };
}

/** The bytes a signature covers: the canonical JSON of the integrity block without its signature. */
function signedBytes(integrity: Omit<Integrity, 'signature'>): Buffer {
  const { signature: _ignored, ...unsigned } = integrity as Integrity;
  return Buffer.from(canonical(unsigned), 'utf8');
}

/** sha256 of a public key's SubjectPublicKeyInfo (DER): how a report names the key that signed it. */
export function keyFingerprint(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return `sha256:${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

/** --sign KEY: an Ed25519 private key in PEM, read before the run starts; anything else is a one-line usage error. */
export function readSigningKey(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--sign ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    // A new file's name, never the one given: that may be the public key, which the command would overwrite.
    const what = /-----BEGIN PUBLIC KEY-----/.test(pem)
      ? 'a public key; --sign takes the private key'
      : 'not a PEM private key';
    throw new UsageError(
      `--sign ${file}: ${what} (make a pair with: openssl genpkey -algorithm ed25519 -out certifier.key.pem && openssl pkey -in certifier.key.pem -pubout -out certifier.pub.pem)`
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(
      `--sign ${file}: a ${key.asymmetricKeyType} key; the report is signed with Ed25519 (openssl genpkey -algorithm ed25519)`
    );
  return key;
}

/** verify --public-key FILE: an Ed25519 public key in PEM (a private key is accepted too: its public half is used). */
export function readPublicKey(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--public-key ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    );
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new UsageError(`--public-key ${file}: not a PEM public key (openssl pkey -in KEY.pem -pubout -out ${file})`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`--public-key ${file}: a ${key.asymmetricKeyType} key; reports are signed with Ed25519`);
  return key;
}

/** The integrity block for a finished report: its digests, signed when a key is given. */
export function sealReport(report: RunReport, signingKey?: KeyObject): Integrity {
  const digests = digestsOf(report);
  if (!signingKey) return digests;
  return {
    ...digests,
    signature: {
      algorithm: 'Ed25519',
      key: keyFingerprint(signingKey),
      value: sign(null, signedBytes(digests), signingKey).toString('base64'),
    },
  };
}

/** A new report: this one with its integrity block (any earlier block replaced), signed when a key is given. */
export function sealed(report: RunReport, signingKey?: KeyObject): RunReport {
  const { integrity: _earlier, ...rest } = report;
  return { ...rest, integrity: sealReport(rest, signingKey) };
}

/** True when the signature over the integrity block verifies with the key. */
export function signatureHolds(integrity: Integrity, publicKey: KeyObject): boolean {
  if (!integrity.signature) return false;
  try {
    return verify(null, signedBytes(integrity), publicKey, Buffer.from(integrity.signature.value, 'base64'));
  } catch {
    return false;
  }
}
