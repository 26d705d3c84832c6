import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import type { ProxySettings } from '../config/config.ts';
import { targetDispatcher, type TlsOptions } from './connection.ts';
import type { Redactor } from './redact.ts';
import type { Exchange, IncompleteResponse, RecordedRequest, RecordedResponse } from './exchange.ts';
import type { BodyReader } from './body-readers.ts';

/** Characters of a response body kept in the record (evidence, the log); a check reads the whole body. */
const RECORDED_BODY_CHARS = 65536;
/** Bytes that always hold RECORDED_BODY_CHARS characters of UTF-8. */
const RECORD_BYTES = RECORDED_BODY_CHARS * 4;
/** Bytes of a body any answer in flight may keep whole; past them it waits for the large-body turn. */
const SMALL_BODY_BYTES = 1024 * 1024;

/** The first `n` bytes of a list of chunks, copied once. */
function firstBytes(chunks: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let got = 0;
  for (const c of chunks) {
    if (got >= n) break;
    const part = c.length > n - got ? c.subarray(0, n - got) : c;
    out.push(part);
    got += part.length;
  }
  return Buffer.concat(out);
}

/** A response's headers as one string each (a repeated header's values joined with commas). */
function joinedHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** How far a response body was read: its size (up to the cap), whether it was cut there, the bytes the record keeps. */
interface BodyRead {
  kept: Buffer[];
  keptBytes: number;
  size: number;
  truncated: boolean;
}

interface HttpSettings {
  /** Skip TLS certificate verification (--insecure); ignored when `tls` is given (it says so itself). */
  insecure?: boolean;
  /** Trusted CAs and client certificate (connection.ts targetTls); default: Node's CAs, no client certificate. */
  tls?: TlsOptions;
  /** The proxies to go through (HTTP_PROXY, HTTPS_PROXY, NO_PROXY as resolved by the CLI); default: directly. */
  proxy?: ProxySettings;
  /** Seconds allowed for the whole request, headers and body. */
  timeoutSeconds: number;
  /** Largest response body read (--max-body-bytes); a larger one is cut off there and reported as truncated. */
  maxBodyBytes: number;
}

export interface SendOptions {
  method: string;
  path: string;
  /** A list is the parameter repeated (tag=a&tag=b). */
  query?: Record<string, string | number | readonly string[] | undefined>;
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
  /**
   * Takes the whole body as it arrives (a JSON Lines or CSV export): the client then keeps only the recorded copy, and
   * parses JSON only when the whole body fits in it.
   */
  read?: BodyReader;
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
    readonly reason: unknown
  ) {
    super('incomplete body');
  }
}

/** Thin, bounded HTTP client: every request has a deadline and a body cap, never follows redirects, and is logged redacted. */
export class HttpClient {
  readonly log: Exchange[] = [];
  private seq = 0;
  private readonly agent: Dispatcher;
  /** One answer at a time keeps a body past SMALL_BODY_BYTES whole: memory stays bounded whatever arrives at once. */
  private readonly largeBodies = new LargeBodyTurn();
  /** Body bytes held by the answers in flight, now and at most (the memory the body cap bounds). */
  readonly bodyBytesHeld = { now: 0, peak: 0 };

  constructor(
    readonly baseUrl: string,
    private readonly settings: HttpSettings,
    private readonly redactor: Redactor
  ) {
    this.agent = targetDispatcher({
      timeoutMs: settings.timeoutSeconds * 1000,
      tls: settings.tls ?? { rejectUnauthorized: !settings.insecure },
      proxy: settings.proxy,
    });
  }

  url(path: string, query?: SendOptions['query']): string {
    const u = new URL(this.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (Array.isArray(v)) for (const one of v) u.searchParams.append(k, String(one));
      else if (v !== undefined) u.searchParams.set(k, String(v));
    }
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
        : body === undefined
          ? undefined
          : this.redactor.redact(body.length > 4096 ? body.slice(0, 4096) + '…' : body),
    };
    const started = Date.now();
    const exchange: Exchange = {
      seq: ++this.seq,
      sentBy: opts.sentBy,
      request: recorded,
      startedAt: new Date(started).toISOString(),
      durationMs: 0,
    };
    const progress = { sentBytes: 0 };
    try {
      exchange.response = await this.perform(
        url,
        opts.method,
        headers,
        streamed ? Readable.from(countSent(streamed.chunks(), progress), { objectMode: false }) : body,
        started,
        opts.read
      );
    } catch (err) {
      if (err instanceof IncompleteBody) exchange.incompleteResponse = err.partial;
      const reason = describeTransportError(err instanceof IncompleteBody ? err.reason : err);
      // Closing the connection on a body too large to take is the target refusing it, not a broken answer (SVC-JSON).
      if (streamed && !exchange.incompleteResponse && CLOSED.test(reason))
        exchange.closedWhileSending = { sentBytes: progress.sentBytes, bodyBytes: streamed.bytes, reason };
      else exchange.transportError = reason;
    }
    exchange.durationMs = Date.now() - started;
    this.log.push(exchange);
    return exchange;
  }

  private async perform(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | Readable | undefined,
    started: number,
    reader?: BodyReader
  ): Promise<RecordedResponse> {
    const deadline = new PausableDeadline(this.settings.timeoutSeconds * 1000);
    try {
      return await this.receive(url, method, headers, body, started, deadline, reader);
    } finally {
      deadline.clear();
    }
  }

  private async receive(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | Readable | undefined,
    started: number,
    deadline: PausableDeadline,
    reader?: BodyReader
  ): Promise<RecordedResponse> {
    const res = await request(url, {
      method: method as never,
      headers,
      body,
      dispatcher: this.agent,
      signal: deadline.signal,
    });
    const headersAfterMs = Date.now() - started;
    const responseHeaders = joinedHeaders(res.headers);
    // Without a reader the whole body is kept (to parse it as JSON); with one, or when its declared length is over the
    // cap (it will not be parsed), only what the record needs.
    const declaredLength = Number(res.headers['content-length']);
    const keepAll = !reader && !(Number.isFinite(declaredLength) && declaredLength > this.settings.maxBodyBytes);
    const read: BodyRead = { kept: [], keptBytes: 0, size: 0, truncated: false };
    const turn = {};
    // Whatever ends the read: the turn goes to the next answer, and the kept bytes leave the count.
    const release = () => {
      this.largeBodies.give(turn);
      this.bodyBytesHeld.now -= read.keptBytes;
    };
    reader?.begin();
    try {
      await this.readBody(res.body, read, { keepAll, turn, deadline, reader });
    } catch (err) {
      release();
      throw new IncompleteBody(
        {
          status: res.statusCode,
          headers: this.redactor.redactHeaders(responseHeaders),
          receivedBytes: read.size,
          headersAfterMs,
        },
        err
      );
    }
    reader?.end();
    try {
      return this.recorded(res.statusCode, responseHeaders, read.kept, read.keptBytes, read.size, read.truncated);
    } finally {
      release();
    }
  }

  /**
   * Reads a body up to the cap (--max-body-bytes), handing each chunk to the reader and keeping what the record needs;
   * `read` says how far it got, also when the read fails.
   */
  private async readBody(
    body: Dispatcher.ResponseData['body'],
    read: BodyRead,
    o: { keepAll: boolean; turn: object; deadline: PausableDeadline; reader?: BodyReader }
  ): Promise<void> {
    for await (const chunk of body) {
      let buf = chunk as Buffer;
      read.size += buf.length;
      if (read.size > this.settings.maxBodyBytes) {
        read.truncated = true;
        buf = buf.subarray(0, Math.max(0, buf.length - (read.size - this.settings.maxBodyBytes)));
        read.size = this.settings.maxBodyBytes;
      }
      o.reader?.write(buf);
      // A body kept whole past the small share waits its turn (its socket paused, its deadline stopped).
      if (o.keepAll && read.keptBytes + buf.length > SMALL_BODY_BYTES) await this.largeBodies.take(o.turn, o.deadline);
      this.keep(read, buf, o.keepAll);
      if (read.truncated) {
        body.destroy();
        break;
      }
    }
  }

  /** Keeps a chunk for the record (all of it when the body is kept whole, else up to RECORD_BYTES), counted as held. */
  private keep(read: BodyRead, buf: Buffer, keepAll: boolean): void {
    const room = keepAll ? buf.length : RECORD_BYTES - read.keptBytes;
    if (room <= 0) return;
    const part = buf.length > room ? buf.subarray(0, room) : buf;
    read.kept.push(part);
    read.keptBytes += part.length;
    const held = this.bodyBytesHeld;
    held.now += part.length;
    held.peak = Math.max(held.peak, held.now);
  }

  private recorded(
    status: number,
    responseHeaders: Record<string, string>,
    kept: Buffer[],
    keptBytes: number,
    size: number,
    truncated: boolean
  ): RecordedResponse {
    const whole = !truncated && keptBytes === size;
    // A body that is not parsed is decoded only as far as the record goes (a 64 MiB endless body is not copied twice).
    const text = (whole ? Buffer.concat(kept) : firstBytes(kept, RECORD_BYTES)).toString('utf8');
    let json: unknown;
    try {
      json = whole ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const cut = text.length > RECORDED_BODY_CHARS || !whole;
    return {
      status,
      headers: this.redactor.redactHeaders(responseHeaders),
      body: this.redactor.redact(cut ? text.slice(0, RECORDED_BODY_CHARS) + '…' : text),
      bodyBytes: size,
      json,
      truncated: truncated || undefined,
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A request's deadline that stops running while the client itself holds the request back. */
class PausableDeadline {
  private readonly controller = new AbortController();
  private timer?: NodeJS.Timeout;
  private startedAt = Date.now();
  private remainingMs: number;

  constructor(ms: number) {
    this.remainingMs = ms;
    this.run();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private run(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(
      () => {
        const err = new Error('the request timed out');
        err.name = 'TimeoutError';
        this.controller.abort(err);
      },
      Math.max(0, this.remainingMs)
    );
  }

  pause(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (this.timer === undefined && !this.controller.signal.aborted) this.run();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Who may keep a large body whole: any answer keeps its first SMALL_BODY_BYTES, and past that only one answer at a
 * time goes on (the others wait with their sockets paused), so kept bytes stay under one body cap plus a small share
 * per answer in flight. The holder never waits for anything else, so nothing waits forever.
 */
class LargeBodyTurn {
  private holder?: object;
  private waiting: Array<() => void> = [];

  async take(who: object, deadline: PausableDeadline): Promise<void> {
    while (this.holder !== undefined && this.holder !== who) {
      deadline.pause();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      deadline.resume();
    }
    this.holder = who;
  }

  give(who: object): void {
    if (this.holder !== who) return;
    this.holder = undefined;
    this.waiting.shift()?.();
  }
}

/** Transport errors that mean the peer closed or reset the connection. */
const CLOSED = /ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|other side closed|socket hang up/;

/** Passes a body's chunks through, counting the bytes handed on. */
async function* countSent(
  chunks: AsyncIterable<Uint8Array>,
  progress: { sentBytes: number }
): AsyncIterable<Uint8Array> {
  for await (const chunk of chunks) {
    yield chunk;
    progress.sentBytes += chunk.length;
  }
}

function describeTransportError(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'timed out';
  return [code, opensslReason(e.cause?.message ?? e.message)].filter(Boolean).join(': ');
}

/** OpenSSL's "803C…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…/ssl3_record.c:350:" as its reason. */
function opensslReason(message: string | undefined): string | undefined {
  return message?.replace(/^[0-9A-F]+:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+):.*$/s, '$1').trim();
}
