// How a request travels: the proxy decision both clients share (connection.ts proxyFor) is undici's EnvHttpProxyAgent's,
// case for case; proxy credentials never show; --ca-file adds to Node's CAs instead of replacing them.
import { rootCertificates, connect, createServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import {
  connectionSecrets,
  proxyFor,
  requestTlsOf,
  targetTls,
  trustedCas,
  withoutCredentials,
  type TlsOptions,
} from '../../src/engine/transport/connection.ts';
import { makeTlsMaterial, type TlsMaterial } from '../../fixtures/reference/tls.ts';
import { Redactor } from '../../src/engine/transport/redact.ts';

const HTTP_PROXY = 'http://proxy-for-http.test:3128';
const HTTPS_PROXY = 'http://proxy-for-https.test:3129';

/**
 * Which of its three inner agents undici's EnvHttpProxyAgent hands a request to: the agents are replaced by recorders
 * (found by their symbols' descriptions), so nothing is sent anywhere.
 */
function undiciChoice(
  origin: string,
  settings: { httpProxy?: string; httpsProxy?: string; noProxy?: string }
): string | undefined {
  const agent = new EnvHttpProxyAgent({
    httpProxy: settings.httpProxy ?? '',
    httpsProxy: settings.httpsProxy ?? '',
    noProxy: settings.noProxy ?? '',
  });
  const inner = agent as unknown as Record<symbol, Dispatcher>;
  let chosen: string | undefined;
  const byDescription = new Map(Object.getOwnPropertySymbols(agent).map((s) => [s.description, s]));
  const proxies: Record<string, string | undefined> = {
    'no proxy agent': undefined,
    'http proxy agent': settings.httpProxy || undefined,
    'https proxy agent': settings.httpsProxy || settings.httpProxy || undefined,
  };
  // Recorders are set from the most general down, so an agent shared by two symbols reports the narrowest name.
  for (const description of ['https proxy agent', 'http proxy agent', 'no proxy agent']) {
    const symbol = byDescription.get(description);
    if (!symbol)
      throw new Error(
        `undici's EnvHttpProxyAgent has no ${description} any more: this test needs a new way to observe it`
      );
    const proxy = proxies[description];
    Object.defineProperty(inner[symbol], 'dispatch', { value: () => ((chosen = proxy), true), configurable: true });
  }
  agent.dispatch({ origin, path: '/', method: 'GET' }, {
    onError() {},
    onConnect() {},
    onHeaders: () => true,
    onData: () => true,
    onComplete() {},
  } as unknown as Dispatcher.DispatchHandler);
  return chosen;
}

describe("proxyFor decides as undici's EnvHttpProxyAgent", () => {
  const cases: Array<[string, { httpProxy?: string; httpsProxy?: string; noProxy?: string }]> = [
    ['http://api.example.com', { httpProxy: HTTP_PROXY, httpsProxy: HTTPS_PROXY }],
    ['https://api.example.com', { httpProxy: HTTP_PROXY, httpsProxy: HTTPS_PROXY }],
    // Only HTTP_PROXY: undici sends https through it too.
    ['https://api.example.com', { httpProxy: HTTP_PROXY }],
    // Only HTTPS_PROXY: http goes directly.
    ['http://api.example.com', { httpsProxy: HTTPS_PROXY }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: '*' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com' }],
    ['https://API.Example.com', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: 'example.com' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: '.example.com' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: '*.example.com' }],
    ['https://example.com', { httpsProxy: HTTPS_PROXY, noProxy: '.example.com' }],
    ['https://notexample.com', { httpsProxy: HTTPS_PROXY, noProxy: 'example.com' }],
    ['https://api.example.com:8443', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com:8443' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com:8443' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com:443' }],
    ['http://api.example.com', { httpProxy: HTTP_PROXY, noProxy: 'api.example.com:80' }],
    ['http://127.0.0.1:8080', { httpProxy: HTTP_PROXY, noProxy: 'localhost, 127.0.0.1' }],
    ['http://127.0.0.1:8080', { httpProxy: HTTP_PROXY, noProxy: 'localhost' }],
    ['http://localhost:8080', { httpProxy: HTTP_PROXY, noProxy: 'localhost 10.0.0.1' }],
    ['http://[::1]:8080', { httpProxy: HTTP_PROXY, noProxy: '[::1]' }],
    ['http://[::1]:8080', { httpProxy: HTTP_PROXY, noProxy: '::1' }],
    ['https://s3.internal.corp', { httpsProxy: HTTPS_PROXY, noProxy: 'api.example.com,.internal.corp' }],
    ['https://bucket.s3.internal.corp', { httpsProxy: HTTPS_PROXY, noProxy: 's3.internal.corp' }],
    ['https://api.example.com', { httpsProxy: HTTPS_PROXY, noProxy: '*, other.com' }],
  ];
  for (const [origin, settings] of cases) {
    it(`${origin} with ${JSON.stringify(settings)}`, () => {
      expect(proxyFor(origin, settings)).toBe(undiciChoice(origin, settings));
    });
  }

  it('the table covers both answers: through a proxy and directly', () => {
    const answers = cases.map(([origin, settings]) => proxyFor(origin, settings));
    expect(answers).toContain(undefined);
    expect(answers).toContain(HTTP_PROXY);
    expect(answers).toContain(HTTPS_PROXY);
  });

  it('no proxy settings at all: directly, whatever the environment says', () => {
    expect(proxyFor('https://api.example.com', undefined)).toBeUndefined();
    expect(proxyFor('https://api.example.com', { noProxy: 'x' })).toBeUndefined();
  });
});

describe('proxy credentials never show', () => {
  it('withoutCredentials replaces user:password and a lone user', () => {
    expect(withoutCredentials('http://alice:s3cret@proxy.corp:3128')).toBe('http://[REDACTED]@proxy.corp:3128');
    expect(withoutCredentials('https://alice@proxy.corp')).toBe('https://[REDACTED]@proxy.corp');
    expect(withoutCredentials('http://proxy.corp:3128')).toBe('http://proxy.corp:3128');
    expect(withoutCredentials('http://proxy.corp:3128/path@not-userinfo')).toBe(
      'http://proxy.corp:3128/path@not-userinfo'
    );
  });

  it('the password, its percent-encoded form and the Basic credential are registered as secrets', () => {
    const secrets = connectionSecrets({ proxy: { httpsProxy: 'http://alice:p%40ss-w0rd-long@proxy.corp:3128' } });
    const redactor = new Redactor();
    for (const s of secrets) redactor.add(s.value, s.label);
    const basic = Buffer.from('alice:p@ss-w0rd-long').toString('base64');
    const text = redactor.redact(`p@ss-w0rd-long p%40ss-w0rd-long ${basic}`);
    expect(text).not.toMatch(/w0rd/);
    expect(text).not.toContain(basic);
  });

  it('the client key passphrase is a secret too', () => {
    expect(
      connectionSecrets({
        clientCert: { certFile: 'c', keyFile: 'k', cert: '', key: '', passphrase: 'open-sesame-42' },
      })
    ).toEqual([{ value: 'open-sesame-42', label: 'client key passphrase' }]);
  });
});

describe('trust', () => {
  let server: TlsServer;
  let port: number;
  let material: TlsMaterial;
  let stranger: TlsMaterial;
  beforeAll(async () => {
    [material, stranger] = await Promise.all([makeTlsMaterial(), makeTlsMaterial()]);
    server = createServer({ cert: material.serverCertPem, key: material.serverKeyPem }, (socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
    material.remove();
    stranger.remove();
  });

  /** Whether a handshake with the test server verifies, with these options. */
  const verifies = (tls: TlsOptions) =>
    new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ...requestTlsOf(tls) }, () => {
        resolve('verified');
        socket.destroy();
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });

  it("with --ca-file's CA the target's certificate verifies; without it, or with another CA only, it does not", async () => {
    expect(await verifies(targetTls({ ca: { file: 'ca.pem', pem: [material.caPem] } }, false))).toBe('verified');
    expect(await verifies(targetTls(undefined, false))).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await verifies(targetTls({ ca: { file: 'other.pem', pem: [stranger.caPem] } }, false))).toBe(
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
    );
  });

  it("--ca-file adds to Node's CAs instead of replacing them: the context is made from every root certificate Node ships, then the file's", () => {
    const list = trustedCas({ ca: { file: 'ca.pem', pem: [material.caPem] } })!;
    expect(list.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
    expect(list.slice(rootCertificates.length)).toEqual([material.caPem]);
    expect(trustedCas({})).toBeUndefined();
  });

  it("--insecure verifies nothing; without settings Node's own store applies (with NODE_EXTRA_CA_CERTS)", async () => {
    expect(targetTls(undefined, false)).toEqual({ rejectUnauthorized: true });
    expect(await verifies(targetTls(undefined, true))).toBe('verified');
  });
});
