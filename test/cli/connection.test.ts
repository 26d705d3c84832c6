// What the user gives for TLS and proxies, read as the CLI reads it: every bad file or proxy URL is a one-line usage
// error that names the flag or variable and never shows a password; good ones become the run's connection settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readConnection, proxyFromEnvironment } from '../../src/cli/connection.ts';
import { resolveRunOptions } from '../../src/cli/options.ts';
import { UsageError } from '../../src/spec/errors.ts';
import { makeTlsMaterial, type TlsMaterial } from '../../fixtures/reference/tls.ts';

let tls: TlsMaterial;
let other: TlsMaterial;
const dir = mkdtempSync(path.join(tmpdir(), 'cc-connection-test-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  tls = await makeTlsMaterial({ clientCert: true });
  other = await makeTlsMaterial({ clientCert: true });
});
afterAll(() => {
  tls.remove();
  other.remove();
});

/** The usage error's message, checked to be one line. */
function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('no usage error');
}

describe('--ca-file', () => {
  it("is read whole: its certificates are trusted besides Node's own, and NODE_EXTRA_CA_CERTS' are kept", () => {
    const extra = file('extra.pem', other.caPem);
    const c = readConnection({ caFile: tls.files.caFile }, { NODE_EXTRA_CA_CERTS: extra });
    expect(c?.ca).toEqual({ file: tls.files.caFile, pem: [tls.caPem.trim(), other.caPem.trim()] });
  });

  it.each([
    [
      'a file that does not exist',
      () => path.join(dir, 'missing.pem'),
      /^--ca-file .*missing\.pem: cannot read it \(no such file\)$/,
    ],
    ['a directory', () => dir, /^--ca-file .*: cannot read it \(a directory\)$/],
    [
      'a file with no certificate',
      () => file('empty.pem', 'hello\n'),
      /^--ca-file .*: no PEM certificate in it \(expected -----BEGIN CERTIFICATE-----\)$/,
    ],
    [
      'a damaged certificate',
      () => file('bad.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
      /^--ca-file .*: certificate 1 is not a valid X\.509 certificate/,
    ],
  ])('%s is a usage error', (_what, make, message) => {
    expect(usageError(() => readConnection({ caFile: make() }, {}))).toMatch(message);
  });
});

describe('--client-cert and --client-key', () => {
  it('are read and held together', () => {
    const c = readConnection({ clientCert: tls.files.clientCertFile, clientKey: tls.files.clientKeyFile }, {});
    expect(c?.clientCert).toEqual({
      certFile: tls.files.clientCertFile,
      keyFile: tls.files.clientKeyFile,
      cert: tls.clientCertPem,
      key: tls.clientKeyPem,
    });
  });

  it('one without the other is a usage error, both ways', () => {
    expect(usageError(() => readConnection({ clientCert: tls.files.clientCertFile }, {}))).toBe(
      '--client-cert and --client-key go together: --client-cert was given without --client-key'
    );
    expect(usageError(() => readConnection({ clientKey: tls.files.clientKeyFile }, {}))).toBe(
      '--client-cert and --client-key go together: --client-key was given without --client-cert'
    );
  });

  it("a key that is not the certificate's is a usage error", () => {
    expect(
      usageError(() =>
        readConnection({ clientCert: tls.files.clientCertFile, clientKey: other.files.clientKeyFile }, {})
      )
    ).toMatch(/^--client-key .* is not the key of --client-cert /);
  });

  it('a file with no key, or an unreadable one, is a usage error', () => {
    expect(
      usageError(() => readConnection({ clientCert: tls.files.clientCertFile, clientKey: tls.files.caFile }, {}))
    ).toMatch(/no PEM private key in it/);
    expect(
      usageError(() =>
        readConnection({ clientCert: tls.files.clientCertFile, clientKey: path.join(dir, 'nokey.pem') }, {})
      )
    ).toMatch(/^--client-key .*nokey\.pem: cannot read it \(no such file\)$/);
  });

  it('an encrypted key needs CONFORMANCE_CLIENT_KEY_PASSPHRASE; with it the key is used, and a wrong one is refused', () => {
    const encrypted = createPrivateKey(tls.clientKeyPem!).export({
      format: 'pem',
      type: 'pkcs8',
      cipher: 'aes-256-cbc',
      passphrase: 'right-passphrase',
    }) as string;
    const keyFile = file('encrypted-key.pem', encrypted);
    const flags = { clientCert: tls.files.clientCertFile, clientKey: keyFile };
    expect(usageError(() => readConnection(flags, {}))).toBe(
      `--client-key ${keyFile}: the key is encrypted; give its passphrase in CONFORMANCE_CLIENT_KEY_PASSPHRASE`
    );
    expect(readConnection({ ...flags, clientKeyPassphrase: 'right-passphrase' }, {})?.clientCert?.passphrase).toBe(
      'right-passphrase'
    );
    const wrong = usageError(() => readConnection({ ...flags, clientKeyPassphrase: 'wrong-passphrase' }, {}));
    expect(wrong).toMatch(/not a usable private key \(wrong passphrase\?/);
    expect(wrong).not.toContain('wrong-passphrase');
  });
});

describe('proxy variables', () => {
  it('lower case wins over upper case, as in undici; an empty one is unset', () => {
    expect(
      proxyFromEnvironment({ https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128', NO_PROXY: 'a.test' })
    ).toEqual({ httpsProxy: 'http://lower:3128', noProxy: 'a.test' });
    expect(proxyFromEnvironment({ https_proxy: '', HTTPS_PROXY: 'http://upper:3128' })).toBeUndefined();
    expect(proxyFromEnvironment({ NO_PROXY: '*' })).toBeUndefined();
  });

  it('a proxy without a scheme is taken as http://, as curl takes it', () => {
    expect(proxyFromEnvironment({ HTTP_PROXY: 'proxy.corp:3128' })).toEqual({ httpProxy: 'http://proxy.corp:3128' });
    expect(proxyFromEnvironment({ HTTP_PROXY: 'alice:pw@proxy.corp:3128' })).toEqual({
      httpProxy: 'http://alice:pw@proxy.corp:3128',
    });
  });

  it.each([
    [
      { HTTPS_PROXY: 'http://alice:hunter2-secret@proxy.corp:notaport' },
      /^HTTPS_PROXY is not a URL: "http:\/\/\[REDACTED\]@proxy\.corp:notaport"/,
    ],
    [
      { http_proxy: 'socks5://alice:hunter2-secret@proxy.corp:1080' },
      /^http_proxy: only http:\/\/ and https:\/\/ proxies are supported, got socks5:\/\/proxy\.corp:1080$/,
    ],
  ])('%j is a usage error that does not show the password', (env, message) => {
    const text = usageError(() => proxyFromEnvironment(env));
    expect(text).toMatch(message);
    expect(text).not.toContain('hunter2');
  });

  it('run reads them from the environment it is given', () => {
    expect(
      resolveRunOptions([], { HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: '.internal' }, '/nonexistent-cwd').proxy
    ).toEqual({ httpsProxy: 'http://proxy.corp:3128', noProxy: '.internal' });
    expect(resolveRunOptions([], {}, '/nonexistent-cwd').proxy).toBeUndefined();
  });
});

describe('run flags', () => {
  it('--ca-file, --client-cert and --client-key come from flags or CONFORMANCE_* variables', () => {
    const o = resolveRunOptions(
      ['--ca-file', 'a.pem'],
      { CONFORMANCE_CLIENT_CERT: 'c.pem', CONFORMANCE_CLIENT_KEY: 'k.pem', CONFORMANCE_CLIENT_KEY_PASSPHRASE: 'pp' },
      '/nonexistent-cwd'
    );
    expect([o.caFile, o.clientCert, o.clientKey, o.clientKeyPassphrase]).toEqual(['a.pem', 'c.pem', 'k.pem', 'pp']);
  });

  it("--reference-tls with --base-url is a usage error (the URL's scheme decides)", () => {
    expect(
      usageError(() =>
        resolveRunOptions(['--reference-tls', '--base-url', 'https://api.example.com'], {}, '/nonexistent-cwd')
      )
    ).toMatch(/^--reference-tls serves the embedded reference target over HTTPS/);
  });

  it('nothing given: no connection settings at all', () => {
    expect(readConnection({}, {})).toBeUndefined();
  });
});
