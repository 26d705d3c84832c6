// A target that refuses an oversized body by closing the connection (nginx's client_max_body_size, Go's
// http.MaxBytesReader, Java's HttpServer) has answered: the client records a refusal, never a transport failure, whether
// the 413 it wrote arrives or is lost to the reset, one request at a time or many at once. A target that hangs on the
// body is still a transport failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { HttpClient, type StreamedBody } from '../../src/engine/transport/http.ts';
import { Redactor } from '../../src/engine/transport/redact.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';

type Mode = 'answer-then-reset' | 'answer-then-end' | 'reset-unanswered' | 'end-unanswered' | 'stall';

const ANSWER = '{"error":{"code":"payload_too_large","message":"request body too large"}}';

/** A bare HTTP server that, once the headers and `readFirst` body bytes are in, does what `mode` says. */
const sockets = new Set<Socket>();

function earlyCloser(mode: Mode, readFirst: number): Server {
  return createServer((socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let seen = 0;
    let headersEnd = -1;
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (headersEnd < 0) {
        head += chunk.toString('latin1');
        headersEnd = head.indexOf('\r\n\r\n');
        if (headersEnd < 0) return;
        seen = head.length - headersEnd - 4;
      } else {
        seen += chunk.length;
      }
      if (seen < readFirst || socket.readableFlowing === false) return;
      if (mode === 'stall') return void socket.pause();
      if (mode.startsWith('answer'))
        socket.write(
          `HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\ncontent-length: ${ANSWER.length}\r\nconnection: close\r\n\r\n${ANSWER}`
        );
      if (mode.endsWith('reset')) socket.resetAndDestroy();
      else socket.end();
      socket.pause();
    });
  });
}

function body(bytes: number): StreamedBody {
  const filler = Buffer.alloc(64 * 1024, 'x');
  return {
    bytes,
    contentType: 'application/json',
    preview: '{"name":"xxxx',
    async *chunks() {
      for (let sent = 0; sent < bytes; sent += filler.length)
        yield filler.subarray(0, Math.min(filler.length, bytes - sent));
    },
  };
}

const servers: Server[] = [];
async function listen(mode: Mode, readFirst = 1024 * 1024): Promise<string> {
  const server = earlyCloser(mode, readFirst);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

function client(baseUrl: string, timeoutSeconds = 15): HttpClient {
  return new HttpClient(baseUrl, { timeoutSeconds, maxBodyBytes: 1024 * 1024 }, new Redactor());
}

const send = (c: HttpClient) =>
  c.send({ method: 'POST', path: '/v1/vms', streamedBody: body(8 * 1024 * 1024), sentBy: 'test' });

/** A refusal either way: the 413 arrived, or the connection closed with no answer the client could read. */
function refused(ex: Exchange): boolean {
  return ex.transportError === undefined && (ex.response?.status === 413 || ex.closedWhileSending !== undefined);
}

describe('an oversized body refused by closing the connection', () => {
  const modes: Mode[] = ['answer-then-reset', 'answer-then-end', 'reset-unanswered', 'end-unanswered'];
  let urls: Record<string, string>;
  beforeAll(async () => {
    urls = Object.fromEntries(await Promise.all(modes.map(async (m) => [m, await listen(m)] as const)));
  });

  for (const mode of modes) {
    it(`${mode}: a refusal on each of 20 requests in a row`, async () => {
      const c = client(urls[mode]!);
      const exchanges: Exchange[] = [];
      for (let i = 0; i < 20; i++) exchanges.push(await send(c));
      await c.close();
      expect(exchanges.filter((ex) => !refused(ex)).map((ex) => ex.transportError ?? ex.response?.status)).toEqual([]);
      if (mode.endsWith('unanswered')) expect(exchanges.every((ex) => ex.closedWhileSending !== undefined)).toBe(true);
    });

    it(`${mode}: a refusal on each of 24 requests, 8 at a time`, async () => {
      const c = client(urls[mode]!);
      const exchanges: Exchange[] = [];
      for (let round = 0; round < 3; round++)
        exchanges.push(...(await Promise.all(Array.from({ length: 8 }, () => send(c)))));
      await c.close();
      expect(exchanges.filter((ex) => !refused(ex)).map((ex) => ex.transportError ?? ex.response?.status)).toEqual([]);
    });
  }

  it('says what happened: bytes handed over and how the connection ended', async () => {
    const c = client(await listen('reset-unanswered'));
    const ex = await send(c);
    await c.close();
    expect(ex.closedWhileSending).toMatchObject({
      bodyBytes: 8 * 1024 * 1024,
      reason: expect.stringMatching(/ECONNRESET|EPIPE|closed/),
    });
    expect(ex.closedWhileSending!.sentBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it('a target that stops reading and never answers is still a transport failure (a hang)', async () => {
    const c = client(await listen('stall'), 1);
    const ex = await send(c);
    await c.close();
    expect(ex.closedWhileSending).toBeUndefined();
    expect(ex.transportError).toBe('timed out');
  });
});
