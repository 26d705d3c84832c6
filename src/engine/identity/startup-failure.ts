// Why a run could not start: what the target did with the first token request, in words that name it. Only a
// refusal (401/403) points at the key; a broken answer is the target's, and the message says which way it broke.
import type { Exchange } from '../transport/exchange.ts';
import { evidenceOf, type Evidence } from '../outcome/outcome.ts';
import type { ConnectionSettings, InputNames, KeyName } from '../config/config.ts';
import { proxyFor, withoutCredentials } from '../transport/connection.ts';

export type StartupFailureKind =
  | 'unreachable'
  | 'incomplete'
  | 'body-over-cap'
  | 'redirect'
  | 'server-error'
  | 'refused'
  | 'rejected'
  | 'not-json'
  | 'no-token'
  | 'unexpected'
  /** The target refused the run's own input (--image, --subnet-id, the key's role) on its first create. */
  | 'input-refused';

/** Why the run could not start, as the JSON report carries it (field names are a public contract). */
export interface StartupFailureReport {
  kind: StartupFailureKind;
  message: string;
  /** The token request and what came back of it (redacted), with a curl line and the facts behind the message. */
  evidence: Evidence;
}

interface StartupSettings {
  baseUrl: string;
  requestTimeoutSeconds: number;
  maxBodyBytes: number;
  /** How the target was reached (the proxy is named in the message, the files in the hints). */
  connection?: ConnectionSettings;
  /** The embedded target: reached directly whatever the proxy settings. */
  embedded?: boolean;
  /** How the user gives the inputs a hint may name. */
  names: Pick<InputNames, KeyName | 'baseUrl' | 's3Url' | 'caFile' | 'clientCert' | 'clientKey' | 'requestTimeout'>;
}

/** OpenSSL's codes for a certificate chain that does not lead to a trusted CA. */
const UNTRUSTED =
  /\b(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED)\b/;

/** What to do about a connection that failed for TLS or proxy reasons; empty for any other failure. */
function connectionHint(transportError: string, settings: StartupSettings): string {
  const clientCert = settings.connection?.clientCert;
  const { caFile, clientCert: certFlag, clientKey: keyFlag } = settings.names;
  if (UNTRUSTED.test(transportError)) {
    return settings.connection?.ca
      ? `; the target's certificate is not signed by a CA the run trusts (${settings.connection.ca.file ? `${caFile} ${settings.connection.ca.file} or ` : ''}Node's own)`
      : `; the target's certificate is not signed by a CA Node trusts: pass the CA that signed it with ${caFile} FILE (or NODE_EXTRA_CA_CERTS=FILE)`;
  }
  if (/ERR_TLS_CERT_ALTNAME_INVALID/.test(transportError))
    return `; the certificate is for another host name than ${new URL(settings.baseUrl).hostname}`;
  if (/CERTIFICATE_REQUIRED/.test(transportError)) {
    return clientCert
      ? `; the target refused the client certificate ${certFlag} ${clientCert.certFile}`
      : `; the target requires a client certificate (mutual TLS): pass ${certFlag} FILE ${keyFlag} FILE`;
  }
  if (/(BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|HANDSHAKE_FAILURE)/.test(transportError) && clientCert)
    return `; the target refused the client certificate ${certFlag} ${clientCert.certFile}`;
  if (/right after the handshake/.test(transportError)) {
    return clientCert
      ? `; a target that requires mutual TLS does so when it does not accept the client certificate ${certFlag} ${clientCert.certFile} (is it signed by the CA the target trusts?)`
      : `; a target that requires mutual TLS may do so: pass ${certFlag} FILE ${keyFlag} FILE`;
  }
  const scheme = schemeHint(transportError, settings);
  if (scheme) return scheme;
  if (/\(407\)/.test(transportError)) {
    // Credentials given and refused are another matter than none given.
    const proxy = proxyFor(settings.baseUrl, settings.connection?.proxy);
    const given = !!proxy && /^[a-z]+:\/\/[^/@]+@/i.test(proxy);
    return given
      ? '; the proxy refused the credentials in its URL: check the user and password (percent-encode special characters)'
      : '; the proxy asks for credentials: give them in its URL (http://user:password@host:port)';
  }
  return '';
}

/** The note addTlsDiagnosis (runner.ts) adds when a plain http:// request was closed by a port that speaks TLS. */
export const SPEAKS_TLS = 'the port completes a TLS handshake';

/**
 * https:// to a port that answers without TLS (OpenSSL reads the plain answer as a record of a wrong version), or
 * http:// to one that speaks TLS (closed without an answer; a bare handshake then completes): named, with the URL to use.
 */
function schemeHint(transportError: string, settings: StartupSettings): string {
  const url = new URL(settings.baseUrl);
  if (
    url.protocol === 'https:' &&
    /WRONG_VERSION_NUMBER|wrong version number|packet length too long/i.test(transportError)
  ) {
    const proxy = settings.embedded ? undefined : proxyFor(settings.baseUrl, settings.connection?.proxy);
    const plain = settings.baseUrl.replace(/^https:/i, 'http:');
    // Through an https:// proxy the plain answer may be the proxy's.
    return proxy?.startsWith('https:')
      ? `; the proxy ${withoutCredentials(proxy)} or ${url.host} answered without TLS: if the proxy is plain HTTP, give it as http://; if the target is, use ${settings.names.baseUrl} ${plain}`
      : `; ${url.host} answered without TLS (plain HTTP on that port?): use ${settings.names.baseUrl} ${plain}`;
  }
  if (url.protocol === 'http:' && transportError.includes(SPEAKS_TLS))
    return `; ${url.host} speaks TLS and the request was plain HTTP: use ${settings.names.baseUrl} ${settings.baseUrl.replace(/^http:/i, 'https:')}`;
  return '';
}

interface StartupFailureDescription {
  kind: StartupFailureKind;
  message: string;
  /** Facts behind the message, for the report (parse error, redirect target, content type...). */
  details: Record<string, unknown>;
}

const header = (ex: Exchange, name: string) => ex.response?.headers[name] ?? ex.incompleteResponse?.headers[name];
const contentType = (ex: Exchange) => header(ex, 'content-type') ?? 'no content type';

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

/** The error object's code, where the body is one ({"error":{"code":...}}). */
function errorCode(json: unknown): string | undefined {
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorMessage(json: unknown): string | undefined {
  const message = (json as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}

/** JSON.parse's own account of why a body is not JSON (the recorded body is redacted, which keeps it JSON or not). */
function parseError(body: string): string | undefined {
  try {
    JSON.parse(body);
    return undefined;
  } catch (err) {
    return (err as Error).message.split('\n')[0]!.slice(0, 200);
  }
}

/** A short hint of what an error page says: its <title>, or the error object's code and message. */
function pageHint(ex: Exchange): string {
  const body = ex.response?.body ?? '';
  const title = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(body)?.[1]?.trim();
  if (title) return `, page title ${JSON.stringify(title)}`;
  const s3 = s3ErrorCode(ex);
  if (s3) return `, an S3 error document (${s3})`;
  const code = errorCode(ex.response?.json);
  if (code)
    return `, error code ${code}${errorMessage(ex.response?.json) ? ` (${JSON.stringify(errorMessage(ex.response?.json)!.slice(0, 120))})` : ''}`;
  return '';
}

/**
 * Classifies the answer to a token request the run could not start with, for the key of that role. Pure: the exchange
 * is all it reads.
 */
export function describeStartupFailure(
  ex: Exchange,
  key: KeyName,
  settings: StartupSettings
): StartupFailureDescription {
  const asked = `${ex.request.method} ${new URL(ex.request.url).pathname}`;
  const timeout = `${settings.names.requestTimeout} ${settings.requestTimeoutSeconds} s`;
  if (ex.incompleteResponse) return incompleteAnswer(ex, asked, timeout, ex.incompleteResponse);
  const res = ex.response;
  if (!res) return noAnswer(ex, timeout, settings);
  const status = res.status;
  if (res.truncated) {
    return {
      kind: 'body-over-cap',
      message: `the target answered ${asked} with ${status} (${contentType(ex)}) and a body over the ${mib(settings.maxBodyBytes)} cap; the suite stopped reading it there`,
      details: { status, contentType: header(ex, 'content-type'), capBytes: settings.maxBodyBytes },
    };
  }
  if (status >= 300 && status < 400) return redirected(ex, asked, status, settings.names.baseUrl);
  if (status >= 500) {
    return {
      kind: 'server-error',
      message: `the target failed on ${asked}: ${status} with ${contentType(ex)} (${Buffer.byteLength(res.body)} bytes${pageHint(ex)})`,
      details: { status, contentType: header(ex, 'content-type') },
    };
  }
  if (status >= 400) return refusedAnswer(ex, asked, status, { ...settings.names, key: settings.names[key] });
  if (status >= 200 && status < 300) return answerWithoutToken(ex, asked, status);
  return {
    kind: 'unexpected',
    message: `the target answered ${asked} with ${status}, which is neither a token nor an error`,
    details: { status },
  };
}

/** The status line and headers came, the body did not complete. */
function incompleteAnswer(
  ex: Exchange,
  asked: string,
  timeout: string,
  partial: NonNullable<Exchange['incompleteResponse']>
): StartupFailureDescription {
  const how =
    ex.transportError === 'timed out' ? `did not complete within ${timeout}` : `broke off (${ex.transportError})`;
  return {
    kind: 'incomplete',
    message: `the target answered ${asked} with ${partial.status} (${contentType(ex)}) after ${partial.headersAfterMs} ms, but the body ${how}: ${partial.receivedBytes} bytes arrived`,
    details: {
      status: partial.status,
      contentType: header(ex, 'content-type'),
      headersAfterMs: partial.headersAfterMs,
      receivedBytes: partial.receivedBytes,
      transportError: ex.transportError,
    },
  };
}

/** Nothing came back: where the run tried (through which proxy), and a hint for the connection error. */
function noAnswer(ex: Exchange, timeout: string, settings: StartupSettings): StartupFailureDescription {
  const why = ex.transportError === 'timed out' ? `no answer within ${timeout}` : (ex.transportError ?? 'no answer');
  const proxy = settings.embedded ? undefined : proxyFor(settings.baseUrl, settings.connection?.proxy);
  const where = proxy ? `${settings.baseUrl} through proxy ${withoutCredentials(proxy)}` : settings.baseUrl;
  return {
    kind: 'unreachable',
    message: `target unreachable at ${where}: ${why}${connectionHint(why, settings)}`,
    details: { transportError: ex.transportError, ...(proxy ? { proxy: withoutCredentials(proxy) } : {}) },
  };
}

/** A redirect is not followed, so the API key goes nowhere else. */
function redirected(ex: Exchange, asked: string, status: number, baseUrlFlag: string): StartupFailureDescription {
  const location = ex.response?.headers['location'];
  let where = 'with no Location header';
  let otherOrigin = false;
  if (location) {
    const target = new URL(location, ex.request.url);
    otherOrigin = target.origin !== new URL(ex.request.url).origin;
    where = `to ${target.toString()}${otherOrigin ? ' (another origin)' : ''}`;
  }
  return {
    kind: 'redirect',
    message: `the target redirected ${asked} (${status}) ${where}; redirects are not followed, so the API key goes nowhere else: if that address is the API, pass it as ${baseUrlFlag}`,
    details: { status, location, otherOrigin },
  };
}

/**
 * Whether a refused token request may be the key's issuance budget spent before the run, which a window's wait would
 * cure: a 429, a Retry-After, or the seed's error object on any status but 404 and 405 (the path or method is not
 * there). Anything else (an HTML or XML page, plain text, nothing) is not the API's answer, and no wait changes it.
 */
export function mayBeSpentBudget(ex: Exchange): boolean {
  const res = ex.response;
  if (!res || res.status < 400 || res.status >= 500) return false;
  if (res.status === 429 || res.headers['retry-after'] !== undefined) return true;
  return errorCode(res.json) !== undefined && res.status !== 404 && res.status !== 405;
}

/** What came back instead of the seed's error object: the content type and what the page says. */
const notAnError = (ex: Exchange) => `${contentType(ex)}, no error object${pageHint(ex)}`;

/** The code of an S3 endpoint's error document, as an object storage URL given as the API's answers. */
const s3ErrorCode = (ex: Exchange) =>
  /^\s*(<\?xml[^>]*>\s*)?<Error>[\s\S]*?<Code>([^<]{1,60})<\/Code>/.exec(ex.response?.body ?? '')?.[2];

/** Servers that speak TLS on the port say so when a plain request reaches it (nginx, Go's net/http). */
const PLAIN_TO_TLS = /plain HTTP request was sent to HTTPS port|HTTP request to an HTTPS server/i;

/** A 4xx: the key refused (401, 403), or the request (a wrong host, a spent issuance budget). */
function refusedAnswer(
  ex: Exchange,
  asked: string,
  status: number,
  names: { key: string; baseUrl: string; s3Url: string }
): StartupFailureDescription {
  const code = errorCode(ex.response?.json);
  const { key: flag, baseUrl, s3Url } = names;
  if (PLAIN_TO_TLS.test(ex.response?.body ?? '')) return plainToTls(ex, asked, status, baseUrl);
  const s3 = s3ErrorCode(ex) !== undefined;
  if ((status === 401 || status === 403) && !s3) {
    const message = errorMessage(ex.response?.json);
    const said = code
      ? ` ${code}${message ? `: ${JSON.stringify(message.slice(0, 120))}` : ''}`
      : `, ${notAnError(ex)}`;
    return {
      kind: 'refused',
      message: `the target refused to issue a token for ${flag} (${status}${said}); check ${flag} and ${baseUrl}`,
      details: { status, errorCode: code },
    };
  }
  const notApi = !code && status !== 429;
  const hint = s3
    ? `: that is an S3 endpoint; ${baseUrl} is the API host (paths begin with /v1), object storage goes in ${s3Url}`
    : status === 404 || status === 405 || notApi
      ? `: is ${baseUrl} the API host (paths begin with /v1)?`
      : status === 429
        ? `: the key's token issuances are spent for now (limit 10 per minute); wait a minute and rerun`
        : '';
  return {
    kind: 'rejected',
    message: `the target answered ${asked} with ${status}${code ? ` ${code}` : notApi ? ` (${notAnError(ex)})` : ''}${hint}`,
    details: { status, errorCode: code },
  };
}

/** A plain http:// request reached a port that speaks TLS, and the server said so. */
function plainToTls(ex: Exchange, asked: string, status: number, baseUrlFlag: string): StartupFailureDescription {
  const https = ex.request.url.replace(/^http:/i, 'https:').replace(/\/v1\/auth\/tokens$/, '');
  return {
    kind: 'rejected',
    message: `the target answered ${asked} with ${status}: ${new URL(https).host} speaks TLS and the request was plain HTTP: use ${baseUrlFlag} ${https}`,
    details: { status, errorCode: errorCode(ex.response?.json) },
  };
}

/** A 2xx without a token: a body that is not JSON, or JSON without a string field token. */
function answerWithoutToken(ex: Exchange, asked: string, status: number): StartupFailureDescription {
  const body = ex.response?.body ?? '';
  const json = ex.response?.json;
  const notJson = parseError(body);
  if (notJson !== undefined) {
    return {
      kind: 'not-json',
      message: `the target answered ${asked} with ${status} (${contentType(ex)}) but the body is not JSON: ${notJson}`,
      details: {
        status,
        contentType: header(ex, 'content-type'),
        parseError: notJson,
        bodyBytes: Buffer.byteLength(body),
      },
    };
  }
  const fields = json && typeof json === 'object' && !Array.isArray(json) ? Object.keys(json) : undefined;
  return {
    kind: 'no-token',
    message: `the target answered ${asked} with ${status} and JSON without a string field token (${fields ? `fields: ${fields.slice(0, 10).join(', ') || 'none'}` : `a JSON ${Array.isArray(json) ? 'array' : typeof json}`})`,
    details: { status, fields },
  };
}

/** The run could not start; carries the exchange that shows why, and the report to write (verdict `error`). */
export class StartupFailure extends Error {
  readonly kind: StartupFailureKind;
  readonly report: StartupFailureReport;
  constructor(
    readonly exchange: Exchange,
    /** The role of the key whose first token the run asked for. */
    readonly key: KeyName,
    settings: StartupSettings
  ) {
    const d = describeStartupFailure(exchange, key, settings);
    super(d.message);
    this.name = 'StartupFailure';
    this.kind = d.kind;
    this.report = { kind: d.kind, message: d.message, evidence: evidenceOf([exchange], d.details) };
  }
}
