/** One request and what came back, as recorded for assertions and evidence (secrets already redacted). */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** The recorded copy of the body: its first 64 KiB of text, then "…" when it is longer. Checks read `json` or a reader. */
  body: string;
  /** Bytes of the whole body as read (at most --max-body-bytes). */
  bodyBytes?: number;
  /** The whole body parsed as JSON, whatever the content type said; undefined when it is not JSON. */
  json?: unknown;
  /** The body was larger than --max-body-bytes: reading stopped there. */
  truncated?: boolean;
}

/** What arrived of an answer whose body never completed (a drip past the deadline, a reset mid-body). */
export interface IncompleteResponse {
  status: number;
  headers: Record<string, string>;
  /** Body bytes received before the failure. */
  receivedBytes: number;
  /** Milliseconds from sending to the headers' arrival. */
  headersAfterMs: number;
}

export interface ClosedWhileSending {
  /** Body bytes handed to the connection before it closed (an upper bound of what the target read). */
  sentBytes: number;
  /** Bytes of the whole body. */
  bodyBytes: number;
  /** How the connection ended (ECONNRESET, EPIPE, other side closed). */
  reason: string;
}

export interface Exchange {
  seq: number;
  /** The check that sent it ("setup" for tokens and the run's objects shared by checks). */
  sentBy: string;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Transport failure: refused, reset, timed out, body too large. */
  transportError?: string;
  /** With a transport failure: the status line and headers did arrive, the body did not complete. */
  incompleteResponse?: IncompleteResponse;
  /**
   * The target closed or reset the connection on a streamed (oversized) request body, with no answer the client could
   * read: how nginx, Go's MaxBytesReader and Java's HttpServer refuse a body past their limit (their answer, when they
   * write one, may be lost to the reset). A refusal, not a transport failure (SVC-JSON): set instead of `transportError`.
   */
  closedWhileSending?: ClosedWhileSending;
  startedAt: string;
  durationMs: number;
  /** Operation of the derived spec this request addresses, when it matches one. */
  operationId?: string;
  /** Whose token it carried: a key of the run (primary, second, readonly, revocable), anonymous, or explicit (a bearer value a check chose). */
  caller?: string;
  /** The run's key whose token it carried (or whose key it exchanged), where it was one of the run's: a clause domain's subject. */
  subject?: string;
  /** A suite-held token refused (401) and renewed: the request was sent again, so this answer judges the run's token, not the caller. */
  superseded?: true;
}

export function isSuccess(ex: Exchange): boolean {
  return ex.response !== undefined && ex.response.status >= 200 && ex.response.status < 300;
}

export function statusText(ex: Exchange): string {
  if (ex.response) return String(ex.response.status);
  if (ex.closedWhileSending)
    return `no answer: the target closed the connection, ${ex.closedWhileSending.sentBytes} of ${ex.closedWhileSending.bodyBytes} body bytes handed over (${ex.closedWhileSending.reason})`;
  return `no response (${ex.transportError ?? 'unknown'})`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The TLS files a run used, for a curl line that connects as it did (paths only, never a secret). */
export interface CurlTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  insecure?: boolean;
}

/** The shell variable the printed lines keep a bearer token in: the token line sets it, every curl line reads it. */
export const TOKEN_VARIABLE = 'CONFORMANCE_TOKEN';

/**
 * A redacted API key ("[REDACTED api key CONFORMANCE_API_KEY_B]", tokens.ts keyLabel): its label names the variable
 * the key is read from, which the curl line reads instead.
 */
const REDACTED_KEY = /\[REDACTED api key ([A-Z_][A-Z0-9_]*)\]/g;

/** The escapes of a double-quoted value in a curl config file. */
const CONFIG_ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text as the inside of a double-quoted value of a curl config file, then as a printf format (%s is left to splice). */
const inConfig = (text: string): string =>
  text.replace(/[\\"\n\r\t]/g, (c) => CONFIG_ESCAPES[c]!).replace(/[\\%]/g, (c) => (c === '%' ? '%%' : '\\\\'));

/**
 * A curl line that replays the request; secrets are already redacted in the recorded request. What stands for a secret
 * (the bearer token, a key in a body) is read from its shell variable and handed to curl on its standard input, as a
 * config file (`-K -`), never as an argument: `ps` shows every command's arguments to every user of the machine.
 */
export function toCurl(req: RecordedRequest, tls: CurlTls = {}): string {
  const parts = ['curl', '-sS', '-i'];
  if (tls.caFile) parts.push('--cacert', shellQuote(tls.caFile));
  if (tls.certFile) parts.push('--cert', shellQuote(tls.certFile));
  if (tls.keyFile) parts.push('--key', shellQuote(tls.keyFile));
  if (tls.insecure) parts.push('-k');
  parts.push('-X', req.method, shellQuote(req.url));
  // Config lines with a %s per secret, and the variables that fill them, in order.
  const secret: { lines: string[]; variables: string[] } = { lines: [], variables: [] };
  for (const [k, v] of Object.entries(req.headers)) {
    const redactedBearer = /^\[REDACTED|Bearer \[REDACTED\]/.test(v) && k.toLowerCase() === 'authorization';
    if (!redactedBearer) parts.push('-H', shellQuote(`${k}: ${v}`));
    else {
      secret.lines.push(`header = "${inConfig(k)}: Bearer %s"`);
      secret.variables.push(TOKEN_VARIABLE);
    }
  }
  const keys = req.body === undefined ? [] : [...req.body.matchAll(REDACTED_KEY)].map((m) => m[1]!);
  if (req.body !== undefined && keys.length === 0) parts.push('--data-raw', shellQuote(req.body));
  else if (req.body !== undefined) {
    secret.lines.push(
      `data-raw = "${req.body
        .split(REDACTED_KEY)
        .map((piece, i) => (i % 2 ? '%s' : inConfig(piece)))
        .join('')}"`
    );
    secret.variables.push(...keys);
  }
  if (!secret.lines.length) return parts.join(' ');
  const printf = `printf ${shellQuote(`${secret.lines.join('\\n')}\\n`)} ${secret.variables.map((v) => `"$${v}"`).join(' ')}`;
  return `${printf} | ${parts.slice(0, 3).join(' ')} -K - ${parts.slice(3).join(' ')}`;
}
