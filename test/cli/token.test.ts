// `cloud-conformance token`: the line a report prints to set CONFORMANCE_TOKEN for its curl lines.
// Right after a run the key's issuance budget is spent: the command waits out the 429 as Retry-After says, saying so,
// and prints a token or nothing (a one-line error), never "undefined". The key comes from .env only, as a run's may.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tokenCommand } from '../../src/cli/token.ts';
import { StartupFailure } from '../../src/engine/identity/startup-failure.ts';
import { UsageError } from '../../src/spec/errors.ts';

const KEY = 'key-in-dotenv-only-0123456789';

/** What the token endpoint answers, one entry per request (the last one repeats). */
let answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }> = [];
let received: Array<{ body: string }> = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ body });
      const a = answers[Math.min(received.length - 1, answers.length - 1)]!;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const spent = (retryAfter: string) => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { error: { code: 'rate-limited', message: 'too many token requests' } },
});

/** The command as the printed line runs it: the key in .env only, nothing in the environment. */
async function token(args: string[] = []): Promise<{ code?: number; out: string[]; said: string[]; error?: Error }> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'cc-token-'));
  writeFileSync(path.join(cwd, '.env'), `CONFORMANCE_API_KEY=${KEY}\n`);
  received = [];
  const out: string[] = [];
  const said: string[] = [];
  try {
    const code = await tokenCommand(
      ['--base-url', baseUrl, ...args],
      (l) => out.push(l),
      (l) => said.push(l),
      {},
      cwd
    );
    return { code, out, said };
  } catch (error) {
    return { out, said, error: error as Error };
  }
}

describe('cloud-conformance token', () => {
  it('waits out a spent issuance budget as Retry-After says, says it is waiting, then prints the token', async () => {
    answers = [spent('1'), spent('1'), { status: 201, body: { token: 'tok-123', expires_in: 3600 } }];
    const started = Date.now();
    const r = await token();
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.out).toEqual(['tok-123']);
    expect(received).toHaveLength(3);
    expect(JSON.parse(received[0]!.body)).toEqual({ api_key: KEY });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(r.said).toHaveLength(2);
    for (const line of r.said) expect(line).toMatch(/^token: waiting 1\.0 s for the Retry-After of a refused token/);
  });

  it('reads Retry-After in target seconds under --time-scale', async () => {
    answers = [spent('60'), { status: 201, body: { token: 'tok-scaled', expires_in: 3600 } }];
    const r = await token(['--time-scale', '60']);
    expect(r.out).toEqual(['tok-scaled']);
    expect(r.said).toEqual([expect.stringMatching(/^token: waiting 1\.0 s /)]);
  });

  it('a budget that stays spent: a bounded number of waits, then a one-line error and no token printed', async () => {
    answers = [spent('0')];
    const r = await token();
    expect(r.error).toBeInstanceOf(StartupFailure);
    expect(r.error!.message).toMatch(/429.*token issuances are spent/);
    expect(received).toHaveLength(4);
    expect(r.out).toEqual([]);
  });

  it('a refused key or an answer without a token: an error naming the key, never "undefined" on stdout', async () => {
    answers = [{ status: 401, body: { error: { code: 'invalid-api-key', message: 'unknown key' } } }];
    const refused = await token();
    expect(refused.error).toBeInstanceOf(StartupFailure);
    expect(refused.error!.message).toMatch(/refused to issue a token for --api-key \(401/);
    expect(refused.out).toEqual([]);
    answers = [{ status: 201, body: { expires_in: 3600 } }];
    const empty = await token();
    expect(empty.error).toBeInstanceOf(StartupFailure);
    expect(empty.out).toEqual([]);
    expect(empty.error!.message).not.toContain(KEY);
  });

  it('without a key anywhere: a usage error naming the variable the key is read from', async () => {
    const r = await tokenCommand(
      ['--base-url', baseUrl],
      () => {},
      () => {},
      {},
      '/nonexistent-cwd'
    ).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(UsageError);
    expect((r as Error).message).toMatch(/missing credentials: CONFORMANCE_API_KEY/);
  });
});
