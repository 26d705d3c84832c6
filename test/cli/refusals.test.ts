// Fast, early refusals: what the user typed wrong is refused before the first request, in one line
// with exit 2; a base URL that is not the API is refused at once, not after a minute's wait for an issuance window;
// http:// on a TLS port and https:// on a plain one are named with the URL to use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeTlsMaterial, type TlsMaterial } from '../../fixtures/reference/tls.ts';
import { cli } from './processes.ts';

const KEY = 'refusals-key-0123456789';
const dir = mkdtempSync(path.join(tmpdir(), 'cc-refusals-'));
const file = (name: string) => path.join(dir, name);

/** A plain HTTP server answering every request one way, counting what reached it. */
interface Counting {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function serve(answer: (res: http.ServerResponse) => void): Promise<Counting> {
  const counting = { url: '', requests: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    counting.requests++;
    req.resume().on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  counting.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  counting.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return counting;
}

/** `run` against a URL: the exit code, the one line on stderr, and how long it took. */
async function run(baseUrl: string, ...args: string[]): Promise<{ status: number | null; line: string; ms: number }> {
  const started = Date.now();
  const r = await cli(['run', '--quiet', '--base-url', baseUrl, '--api-key', KEY, ...args]);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return { status: r.status, line: lines[0]!.replace(/^cloud-conformance: /, ''), ms: Date.now() - started };
}

describe.concurrent('refused before the first request: exit 2, one line naming the flag, nothing sent', () => {
  let target: Counting;
  beforeAll(async () => {
    target = await serve((res) => res.writeHead(500).end());
    writeFileSync(file('not-a-folder'), '');
  });
  afterAll(() => target.close());

  it.each([
    // Used to run the whole suite, then die with "internal error: ENOENT".
    [['--write-expect', file('missing/expect.yaml')], /^--write-expect .*: directory .*missing does not exist$/],
    [['--report', `json:${dir}`], /^--report json:.*: a directory; give a file in it \(e\.g\. .*report\.json\)$/],
    [['--emit-overlay', file('not-a-folder/o.yaml')], /^--emit-overlay .*: .*not-a-folder is not a directory$/],
    [
      ['--report', `json:${file('r.json')}`, '--write-expect', file('r.json')],
      /^--write-expect .*: --report json:.* writes the same file$/,
    ],
    [['--overlay', file('missing.yaml')], /^cannot read overlay .*missing\.yaml: ENOENT$/],
    [['--sign', file('missing.pem')], /^--sign .*missing\.pem: cannot read it/],
  ])('%s', async (args, message) => {
    const r = await run(target.url, ...args);
    expect(r.status).toBe(2);
    expect(r.line).toMatch(message);
    expect(target.requests).toBe(0);
  });
});

describe.concurrent('a base URL that is not the API is refused at once', () => {
  it('an HTML 404 (a web server, not the API): no wait for an issuance window (it used to take over a minute)', async () => {
    const page = await serve((res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>Not Found</title></head></html>')
    );
    try {
      const r = await run(page.url);
      expect(r.status).toBe(2);
      expect(r.line).toBe(
        'the target answered POST /v1/auth/tokens with 404 (text/html, no error object, page title "Not Found"): is --base-url the API host (paths begin with /v1)?'
      );
      // The issuance probe's one burst and nothing after it: no window waited out, no second burst (the old 22).
      expect(page.requests).toBe(11);
      // The wait alone used to be a minute (the window at time scale 1); the CLI's start is seconds, even when busy.
      expect(r.ms).toBeLessThan(55_000);
    } finally {
      await page.close();
    }
  });
});

describe.concurrent('the scheme of the base URL against what the port speaks', () => {
  let material: TlsMaterial;
  let tlsServer: TlsServer;
  let tlsUrl: string;
  let plain: Counting;
  beforeAll(async () => {
    material = await makeTlsMaterial();
    // A TLS port that closes a plain request without an answer, as Node's HTTPS server does.
    tlsServer = createTlsServer({ cert: material.serverCertPem, key: material.serverKeyPem }, (s) => s.end());
    tlsServer.on('tlsClientError', () => {});
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', () => r()));
    tlsUrl = `127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
    plain = await serve((res) => res.writeHead(404).end());
  });
  afterAll(async () => {
    await new Promise<void>((r) => tlsServer.close(() => r()));
    await plain.close();
    material.remove();
  });

  it('http:// on a port that speaks TLS: named, with the https:// URL', async () => {
    const r = await run(`http://${tlsUrl}`);
    expect(r.status).toBe(2);
    expect(r.line).toMatch(
      new RegExp(`; ${tlsUrl} speaks TLS and the request was plain HTTP: use --base-url https://${tlsUrl}$`)
    );
  });

  it('https:// on a port that answers plain HTTP: named, with the http:// URL, without the OpenSSL source line', async () => {
    const r = await run(plain.url.replace('http:', 'https:'));
    expect(r.status).toBe(2);
    const host = new URL(plain.url).host;
    expect(r.line).toMatch(
      new RegExp(`answered without TLS \\(plain HTTP on that port\\?\\): use --base-url http://${host}$`)
    );
    expect(r.line).not.toMatch(/ssl3_record|SSL routines/);
  });
});
