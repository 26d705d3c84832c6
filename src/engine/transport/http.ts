import { Readable } from 'node:stream';
import { request, Agent } from 'undici';
import type { Redactor } from './redact.ts';
import type { Exchange, IncompleteResponse, RecordedRequest, RecordedResponse } from './exchange.ts';

export interface HttpLimits {
  /** Skip TLS certificate verification (--insecure). */
  insecure?: boolean;
  /** Seconds allowed for the whole request, headers and body. */
  timeoutSeconds: number;
  /** Largest response body kept; a larger one is cut off and reported. */
  maxBodyBytes: number;
}

export interface SendOptions {
  method: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** A JSON value to send as the body. */
  json?: unknown;
  /** Raw body text, sent as is (malformed JSON, wrong content type). */
  rawBody?: string;
  /**
   * A body too large to hold twice in memory (an oversized-body probe): produced in chunks as it is sent, anew on
   * each send; recorded as its first bytes and its size.
   */
  streamedBody?: StreamedBody;
  sentBy: string;
}

export interface StreamedBody {
  bytes: number;
  contentType: string;
  /** The body's first bytes, for the record. */
  preview: string;
  chunks(): AsyncIterable<Uint8Array>;
}

export class TargetUnreachable extends Error {}

/** The headers arrived, the body did not complete: kept apart from "no answer at all". */
class IncompleteBody extends Error {
  constructor(
    readonly partial: IncompleteResponse,
    readonly reason: unknown,
  ) {
    super('incomplete body');
  }
}

/** Thin, bounded HTTP client: every request has a deadline and a body cap, never follows redirects, and is logged redacted. */
export class HttpClient {
  readonly log: Exchange[] = [];
  private seq = 0;
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    private readonly limits: HttpLimits,
    private readonly redactor: Redactor,
  ) {
    this.agent = new Agent({
      connect: { timeout: limits.timeoutSeconds * 1000, rejectUnauthorized: !limits.insecure },
      headersTimeout: limits.timeoutSeconds * 1000,
      bodyTimeout: limits.timeoutSeconds * 1000,
    });
  }

  url(path: string, query?: SendOptions['query']): string {
    const u = new URL(this.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async send(opts: SendOptions): Promise<Exchange> {
    const url = this.url(opts.path, opts.query);
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    let body: string | undefined;
    let streamed: StreamedBody | undefined;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    } else if (opts.rawBody !== undefined) {
      body = opts.rawBody;
    } else if (opts.streamedBody !== undefined) {
      streamed = opts.streamedBody;
      headers['content-type'] ??= streamed.contentType;
      headers['content-length'] = String(streamed.bytes);
    }
    const recorded: RecordedRequest = {
      method: opts.method,
      url: this.redactor.redact(url),
      headers: this.redactor.redactHeaders(headers),
      body: streamed
        ? this.redactor.redact(`${streamed.preview.slice(0, 4096)}… (${streamed.bytes} bytes in all)`)
        : body === undefined ? undefined : this.redactor.redact(body.length > 4096 ? body.slice(0, 4096) + '…' : body),
    };
    const started = Date.now();
    const exchange: Exchange = { seq: ++this.seq, sentBy: opts.sentBy, request: recorded, startedAt: new Date(started).toISOString(), durationMs: 0 };
    try {
      exchange.response = await this.perform(url, opts.method, headers, streamed ? Readable.from(streamed.chunks(), { objectMode: false }) : body, started);
    } catch (err) {
      if (err instanceof IncompleteBody) exchange.incompleteResponse = err.partial;
      exchange.transportError = describeTransportError(err instanceof IncompleteBody ? err.reason : err);
    }
    exchange.durationMs = Date.now() - started;
    this.log.push(exchange);
    return exchange;
  }

  private async perform(url: string, method: string, headers: Record<string, string>, body: string | Readable | undefined, started: number): Promise<RecordedResponse> {
    const res = await request(url, {
      method: method as never,
      headers,
      body,
      dispatcher: this.agent,
      signal: AbortSignal.timeout(this.limits.timeoutSeconds * 1000),
    });
    const headersAfterMs = Date.now() - started;
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > this.limits.maxBodyBytes) {
          truncated = true;
          chunks.push(buf.subarray(0, Math.max(0, buf.length - (size - this.limits.maxBodyBytes))));
          res.body.destroy();
          break;
        }
        chunks.push(buf);
      }
    } catch (err) {
      throw new IncompleteBody({ status: res.statusCode, headers: this.redactor.redactHeaders(responseHeaders), receivedBytes: size, headersAfterMs }, err);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = truncated ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: res.statusCode,
      headers: this.redactor.redactHeaders(responseHeaders),
      body: this.redactor.redact(text.length > 65536 ? text.slice(0, 65536) + '…' : text),
      json,
      truncated: truncated || undefined,
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function describeTransportError(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timed out';
  return [code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
}
