// How requests reach a target: TLS trust and client certificate, and the proxy of the environment. The API client's
// undici dispatcher is built here; the S3 client's node agents in node-agents.ts, from the same settings and the same
// proxy decision (proxyFor), so both clients go the same way.
import { rootCertificates, connect as connectTls, createSecureContext, type SecureContext } from 'node:tls';
import { isIP } from 'node:net';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ConnectionSettings, ProxySettings } from '../config/config.ts';

/**
 * TLS options for a connection to a target, in the form node:tls, node agents and undici's connector take them. The
 * trusted CAs and client certificate are a secure context made once: given as lists, Node would parse Node's 140-odd
 * root certificates again for every connection (a burst of new connections measurably slower), and a node agent would
 * key its pool by their text.
 */
export interface TlsOptions {
  rejectUnauthorized: boolean;
  /** Trusted CAs and client certificate; absent: Node's own CAs (with NODE_EXTRA_CA_CERTS) and no certificate. */
  secureContext?: SecureContext;
  /** The trusted CAs alone, for the TLS to an https proxy (the client certificate is for the target). */
  proxySecureContext?: SecureContext;
}

/**
 * The TLS options a run's connection settings give. --ca-file adds to Node's CAs: an explicit list replaces Node's
 * store, so it holds Node's root certificates first. --insecure verifies nothing.
 */
export function targetTls(connection: ConnectionSettings | undefined, insecure: boolean): TlsOptions {
  const tls: TlsOptions = { rejectUnauthorized: !insecure };
  const ca = trustedCas(connection);
  const client = connection?.clientCert;
  if (ca) tls.proxySecureContext = createSecureContext({ ca });
  if (ca || client) {
    tls.secureContext = createSecureContext({
      ...(ca ? { ca } : {}),
      ...(client
        ? {
            cert: client.cert,
            key: client.key,
            ...(client.passphrase !== undefined ? { passphrase: client.passphrase } : {}),
          }
        : {}),
    });
  }
  return tls;
}

/** The CA list a context is made with: Node's root certificates, then the extra ones; undefined without extra ones. */
export function trustedCas(connection: ConnectionSettings | undefined): string[] | undefined {
  return connection?.ca?.pem.length ? [...rootCertificates, ...connection.ca.pem] : undefined;
}

/** The options for the TLS to an https proxy: its certificate checked against the same CAs, no client certificate. */
export const proxyTlsOf = (tls: TlsOptions) => ({
  rejectUnauthorized: tls.rejectUnauthorized,
  ...(tls.proxySecureContext ? { secureContext: tls.proxySecureContext } : {}),
});

/** The options for the TLS to a target: without the proxy's context. */
export const requestTlsOf = (tls: TlsOptions) => ({
  rejectUnauthorized: tls.rejectUnauthorized,
  ...(tls.secureContext ? { secureContext: tls.secureContext } : {}),
});

/** True when a proxy is set for some scheme. */
export const hasProxy = (proxy: ProxySettings | undefined): proxy is ProxySettings =>
  !!(proxy?.httpProxy || proxy?.httpsProxy);

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** NO_PROXY's entries as undici reads them: host or host:port, a leading "." or "*." dropped, lower case. */
function noProxyEntries(noProxy: string): Array<{ hostname: string; port: number }> {
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .map((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      return {
        hostname: (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase(),
        port: parsed ? Number.parseInt(parsed[2]!, 10) : 0,
      };
    });
}

/**
 * The proxy a request to `target` goes through, or undefined when it goes directly: the decision of undici's
 * EnvHttpProxyAgent (an https target uses HTTPS_PROXY, else HTTP_PROXY; NO_PROXY "*" bypasses every proxy, an entry
 * matches its host and the host's subdomains, on its port when it names one). test/transport/proxy.test.ts holds
 * the two to the same answers.
 */
export function proxyFor(target: string | URL, proxy: ProxySettings | undefined): string | undefined {
  if (!hasProxy(proxy)) return undefined;
  const url = new URL(target);
  const chosen = url.protocol === 'https:' ? proxy.httpsProxy || proxy.httpProxy : proxy.httpProxy;
  if (!chosen) return undefined;
  const noProxy = proxy.noProxy ?? '';
  if (noProxy === '*') return undefined;
  // The host with IPv6 brackets kept, as undici compares it.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxyEntries(noProxy)) {
    if (entry.port && entry.port !== port) continue;
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return undefined;
  }
  return chosen;
}

/** A URL with any user:password replaced, for everything the run prints or writes (a proxy URL may carry them). */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1[REDACTED]@');
}

/** "directly" or "through proxy <url without credentials>": how a request to `target` travels, for messages. */
export function routeOf(target: string, proxy: ProxySettings | undefined): string {
  const via = proxyFor(target, proxy);
  return via ? `through proxy ${withoutCredentials(via)}` : 'directly';
}

interface DispatcherOptions {
  /** Bound on connecting (and on headers and body between reads). */
  timeoutMs: number;
  tls: TlsOptions;
  /** Absent, or with no proxy in it: every request goes directly (the environment is not read here). */
  proxy?: ProxySettings;
}

/**
 * The undici dispatcher for a target: a plain Agent, or undici's EnvHttpProxyAgent given the proxies explicitly (so
 * it reads no environment of its own). Through a proxy an https target is tunnelled (CONNECT) and its TLS is the
 * target's (requestTls); an http target is sent in absolute form, not tunnelled, which is what proxies that allow
 * CONNECT only to port 443 accept.
 */
export function targetDispatcher(opts: DispatcherOptions): Dispatcher {
  const connect = { timeout: opts.timeoutMs, ...requestTlsOf(opts.tls) };
  const timeouts = { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs };
  if (!hasProxy(opts.proxy)) return new Agent({ connect, ...timeouts });
  return new EnvHttpProxyAgent({
    ...timeouts,
    connect,
    // Empty strings, not undefined: undefined would send undici to process.env.
    httpProxy: opts.proxy.httpProxy ?? '',
    httpsProxy: opts.proxy.httpsProxy ?? '',
    noProxy: opts.proxy.noProxy ?? '',
    proxyTunnel: false,
    requestTls: connect,
    // The proxy's own certificate is checked against the same CAs; the client certificate is the target's only.
    proxyTls: { timeout: opts.timeoutMs, ...proxyTlsOf(opts.tls) },
  });
}

/** How one bare TLS handshake with a target ended (no request is sent). */
interface TlsProbe {
  /** The alert the server sent (OpenSSL's code), e.g. ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED. */
  alert?: string;
  /** The handshake completed and the server closed the connection within the wait, with nothing asked of it. */
  closedAfterHandshake?: boolean;
}

/**
 * One bare handshake with a server that closes connections: TLS 1.3 servers send "certificate required" only after
 * the handshake, and some (Node's among them) refuse a client certificate by closing without an alert; undici
 * reports either as a closed socket.
 */
export function probeTls(target: string, tls: TlsOptions, timeoutMs: number): Promise<TlsProbe> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let handshook = false;
    const socket = connectTls(
      { host, port: Number(url.port) || 443, ...(isIP(host) ? {} : { servername: host }), ...requestTlsOf(tls) },
      () => (handshook = true)
    );
    const done = (probe: TlsProbe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(probe);
    };
    const timer = setTimeout(() => done({}), timeoutMs);
    socket.once('error', (err: NodeJS.ErrnoException) => done(/ALERT/.test(err.code ?? '') ? { alert: err.code } : {}));
    socket.once('close', () => done(handshook ? { closedAfterHandshake: true } : {}));
    // Read, so an alert sent after the handshake arrives.
    socket.resume();
  });
}

/**
 * Whether a port answers a TLS handshake, its certificate unchecked (the question is the protocol, not the trust): for
 * a plain http:// request that the target closed without an answer.
 */
export function speaksTls(target: string, timeoutMs: number): Promise<boolean> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connectTls(
      { host, port: Number(url.port) || 80, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) },
      () => done(true)
    );
    const done = (yes: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    // An alert is TLS too (a server that wants a client certificate, under TLS 1.2).
    socket.once('error', (err: NodeJS.ErrnoException) => done(/ALERT/.test(err.code ?? '')));
  });
}

/** The secrets the connection settings hold, for the run's redactor: proxy passwords (and their Basic credential), the client key's passphrase. */
export function connectionSecrets(connection: ConnectionSettings | undefined): Array<{ value: string; label: string }> {
  const secrets: Array<{ value: string; label: string }> = [];
  for (const raw of [connection?.proxy?.httpProxy, connection?.proxy?.httpsProxy]) {
    if (!raw) continue;
    const url = new URL(raw);
    if (!url.password) continue;
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    secrets.push(
      { value: password, label: 'proxy password' },
      { value: url.password, label: 'proxy password' },
      { value: Buffer.from(`${user}:${password}`).toString('base64'), label: 'proxy credentials' }
    );
  }
  if (connection?.clientCert?.passphrase)
    secrets.push({ value: connection.clientCert.passphrase, label: 'client key passphrase' });
  return secrets;
}
