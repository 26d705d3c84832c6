// The run's connection settings from what the user gave: --ca-file, --client-cert/--client-key (files read and checked
// here, so a bad one is a one-line usage error before anything is sent) and the proxy variables of the environment.
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { UsageError } from '../spec/errors.ts';
import type { ConnectionSettings, ProxySettings } from '../engine/config/config.ts';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The first line of an error, without Node's "error:1E08010C:DECODER routines::" prefixes. */
const reason = (err: unknown) =>
  ((err as Error).message ?? String(err)).split('\n')[0]!.replace(/^error:[0-9A-F]+:[^:]*:+/i, '');

function readText(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(
      `${flag} ${file}: cannot read it (${e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'a directory' : reason(err)})`
    );
  }
}

/** Every PEM certificate of a file, each checked to be one. */
function certificatesIn(flag: string, file: string, text: string): string[] {
  const pems = text.match(PEM_CERTIFICATE) ?? [];
  if (!pems.length)
    throw new UsageError(`${flag} ${file}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)`);
  pems.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new UsageError(`${flag} ${file}: certificate ${i + 1} is not a valid X.509 certificate (${reason(err)})`);
    }
  });
  return pems;
}

/** NODE_EXTRA_CA_CERTS' certificates: an explicit CA list replaces Node's store, extra certificates included, so they are added back. */
function extraCaCerts(env: NodeJS.ProcessEnv): { pem: string[] } | undefined {
  const file = env['NODE_EXTRA_CA_CERTS'];
  if (!file) return undefined;
  try {
    const pem = readFileSync(file, 'utf8').match(PEM_CERTIFICATE) ?? [];
    return pem.length ? { pem } : undefined;
  } catch {
    // Node itself warned about the file when it started; the run goes on without it, as Node does.
    return undefined;
  }
}

interface ConnectionFlags {
  caFile?: string;
  clientCert?: string;
  clientKey?: string;
  clientKeyPassphrase?: string;
  proxy?: ProxySettings;
}

/** The connection settings of a run, or undefined when nothing is set (Node's CAs, no client certificate, no proxy). */
export function readConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env
): ConnectionSettings | undefined {
  const connection: ConnectionSettings = {};
  if (flags.caFile !== undefined) {
    const pem = certificatesIn('--ca-file', flags.caFile, readText('--ca-file', flags.caFile));
    const extra = extraCaCerts(env);
    connection.ca = { file: flags.caFile, pem: [...pem, ...(extra?.pem ?? [])] };
  }
  if ((flags.clientCert === undefined) !== (flags.clientKey === undefined)) {
    throw new UsageError(
      `--client-cert and --client-key go together: ${flags.clientCert === undefined ? '--client-key' : '--client-cert'} was given without ${flags.clientCert === undefined ? '--client-cert' : '--client-key'}`
    );
  }
  if (flags.clientCert !== undefined && flags.clientKey !== undefined) {
    const certText = readText('--client-cert', flags.clientCert);
    const [certPem] = certificatesIn('--client-cert', flags.clientCert, certText);
    const keyText = readText('--client-key', flags.clientKey);
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(keyText))
      throw new UsageError(
        `--client-key ${flags.clientKey}: no PEM private key in it (expected -----BEGIN PRIVATE KEY-----)`
      );
    let key;
    try {
      key = createPrivateKey({ key: keyText, passphrase: flags.clientKeyPassphrase });
    } catch (err) {
      const encrypted = /ENCRYPTED/.test(keyText) || /passphrase/i.test(reason(err));
      throw new UsageError(
        encrypted && flags.clientKeyPassphrase === undefined
          ? `--client-key ${flags.clientKey}: the key is encrypted; give its passphrase in CONFORMANCE_CLIENT_KEY_PASSPHRASE`
          : `--client-key ${flags.clientKey}: not a usable private key (${encrypted ? 'wrong passphrase? ' : ''}${reason(err)})`
      );
    }
    if (!new X509Certificate(certPem!).checkPrivateKey(key))
      throw new UsageError(`--client-key ${flags.clientKey} is not the key of --client-cert ${flags.clientCert}`);
    // The whole certificate file: a chain of intermediates after the client's own certificate is sent with it.
    connection.clientCert = {
      certFile: flags.clientCert,
      keyFile: flags.clientKey,
      cert: certText,
      key: keyText,
      ...(flags.clientKeyPassphrase !== undefined ? { passphrase: flags.clientKeyPassphrase } : {}),
    };
  }
  if (flags.proxy && (flags.proxy.httpProxy || flags.proxy.httpsProxy)) connection.proxy = flags.proxy;
  return connection.ca || connection.clientCert || connection.proxy ? connection : undefined;
}

/** The proxy variables, as undici's EnvHttpProxyAgent reads them: lower case first, then upper case; an empty one is unset. */
const PROXY_VARIABLES = {
  httpProxy: ['http_proxy', 'HTTP_PROXY'],
  httpsProxy: ['https_proxy', 'HTTPS_PROXY'],
  noProxy: ['no_proxy', 'NO_PROXY'],
} as const;

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY from the environment, each proxy URL checked (its credentials never shown). A
 * proxy given without a scheme (proxy.corp:3128) is taken as http://, as curl takes it.
 */
export function proxyFromEnvironment(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const settings: ProxySettings = {};
  for (const [field, names] of Object.entries(PROXY_VARIABLES) as Array<[keyof ProxySettings, readonly string[]]>) {
    const name = names.find((n) => env[n] !== undefined);
    const value = name === undefined ? undefined : env[name]!.trim();
    if (!value) continue;
    settings[field] = field === 'noProxy' ? value : proxyUrl(name!, value);
  }
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}

/** Everything up to the last "@" of a value that may not parse as a URL, hidden. */
const hideUserinfo = (value: string) =>
  value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}[REDACTED]@`);

function proxyUrl(name: string, raw: string): string {
  const value = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `${name} is not a URL: ${JSON.stringify(hideUserinfo(raw))} (expected http://host:port or http://user:password@host:port)`
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${name}: only http:// and https:// proxies are supported, got ${url.protocol}//${url.host}`);
  if (!url.hostname) throw new UsageError(`${name} names no host: ${JSON.stringify(hideUserinfo(raw))}`);
  return value;
}
