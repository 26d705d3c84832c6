// The body cap bounds memory, whatever the sender's speed and however many large bodies arrive at once: past a small
// share per answer, one answer at a time keeps its body whole (the others wait with their sockets paused and their
// deadlines stopped), so buffers stay under one cap plus a small share per answer in flight.
import { afterAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from '../../src/engine/transport/http.ts';
import { Redactor } from '../../src/engine/transport/redact.ts';

const CAP = 16 * 1024 * 1024;

/** Answers every request with a body that never ends (JSON whitespace), or one of `bytes` bytes of a JSON string. */
const server = http.createServer((req, res) => {
  const bytes = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('bytes') ?? Infinity);
  res.writeHead(200, { 'content-type': 'application/json' });
  if (Number.isFinite(bytes)) return void res.end(JSON.stringify('y'.repeat(bytes - 2)));
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = () => {
    while (!closed) if (!res.write(chunk)) return void res.once('drain', pump);
  };
  pump();
});
const listening = new Promise<string>((resolve) =>
  server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
);
afterAll(() => new Promise((r) => server.close(r)));

describe('the body cap bounds memory', () => {
  it('eight endless bodies at once: each cut at the cap, kept buffers under one cap and a small share each', async () => {
    const client = new HttpClient(await listening, { timeoutSeconds: 30, maxBodyBytes: CAP }, new Redactor());
    const result = await Promise.all(
      Array.from({ length: 8 }, () => client.send({ method: 'GET', path: '/endless', sentBy: 'test' }))
    );
    await client.close();
    expect(result.map((ex) => ex.response?.truncated)).toEqual(Array(8).fill(true));
    expect(result.map((ex) => ex.response?.bodyBytes)).toEqual(Array(8).fill(CAP));
    // One cap kept whole at a time and at most 1 MiB (and a chunk) for each of the others; all given back at the end.
    expect(client.bodyBytesHeld.peak).toBeLessThanOrEqual(CAP + 7 * (1024 * 1024 + 64 * 1024));
    expect(client.bodyBytesHeld.now).toBe(0);
  });

  it('bodies under the cap that arrive together are all parsed whole, none timed out while waiting its turn', async () => {
    const client = new HttpClient(await listening, { timeoutSeconds: 2, maxBodyBytes: CAP }, new Redactor());
    const result = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.send({ method: 'GET', path: '/', query: { bytes: 12 * 1024 * 1024 }, sentBy: 'test' })
      )
    );
    await client.close();
    expect(result.map((ex) => ex.transportError)).toEqual(Array(6).fill(undefined));
    expect(result.map((ex) => (ex.response?.json as string | undefined)?.length)).toEqual(
      Array(6).fill(12 * 1024 * 1024 - 2)
    );
  });
});
