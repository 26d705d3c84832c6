import { describe, it, expect } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = path.resolve('bin/cloud-conformance.js');
const KEY = 'broken-start-key-0123456789';
const MiB = 1024 * 1024;

/** A target that misbehaves on every request in one way. */
type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface BrokenStart {
  name: string;
  behaviour: Behaviour;
  args?: string[];
  kind: string;
  /** The one line on stderr: what the target did. */
  message: RegExp;
  /** What the report's evidence shows of the first exchange. */
  evidence: (
    ex: {
      response?: { status: number; headers: Record<string, string> };
      transportError?: string;
      incompleteResponse?: { status: number };
      curl: string;
    },
    details: Record<string, unknown>
  ) => void;
}

const OVER_CAP = Buffer.alloc(8 * MiB + 1024, 0x61);

const CASES: BrokenStart[] = [
  {
    name: '201 with truncated JSON',
    behaviour: (_req, res) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"token":"abc","expires_in":36'),
    kind: 'not-json',
    message: /^the target answered POST \/v1\/auth\/tokens with 201 \(application\/json\) but the body is not JSON: .+/,
    evidence: (ex, d) => {
      expect(ex.response?.status).toBe(201);
      expect(d['parseError']).toMatch(/JSON/);
    },
  },
  {
    name: '200 with a body over the cap (--max-body-bytes 8MiB)',
    behaviour: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(OVER_CAP),
    args: ['--max-body-bytes', '8MiB'],
    kind: 'body-over-cap',
    message:
      /^the target answered POST \/v1\/auth\/tokens with 200 \(application\/json\) and a body over the 8 MiB cap/,
    evidence: (ex, d) => {
      expect(ex.response?.status).toBe(200);
      expect(d['capBytes']).toBe(8 * MiB);
    },
  },
  {
    name: '307 to another origin',
    behaviour: (req, res) => res.writeHead(307, { location: `http://127.0.0.2:9${req.url}` }).end(),
    kind: 'redirect',
    message:
      /^the target redirected POST \/v1\/auth\/tokens \(307\) to http:\/\/127\.0\.0\.2:9\/v1\/auth\/tokens \(another origin\); redirects are not followed/,
    evidence: (ex, d) => {
      expect(ex.response?.status).toBe(307);
      expect(d['otherOrigin']).toBe(true);
    },
  },
  {
    name: '500 with an HTML page',
    behaviour: (_req, res) =>
      res
        .writeHead(500, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><head><title>Internal Server Error</title></head><body>oops</body></html>'),
    kind: 'server-error',
    message:
      /^the target failed on POST \/v1\/auth\/tokens: 500 with text\/html; charset=utf-8 \(\d+ bytes, page title "Internal Server Error"\)/,
    evidence: (ex, d) => {
      expect(ex.response?.status).toBe(500);
      expect(d['contentType']).toBe('text/html; charset=utf-8');
    },
  },
  {
    name: 'headers at once, then a body that drips forever',
    behaviour: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(drip));
    },
    args: ['--request-timeout', '1'],
    kind: 'incomplete',
    message:
      /^the target answered POST \/v1\/auth\/tokens with 200 \(application\/json\) after \d+ ms, but the body did not complete within --request-timeout 1 s: \d+ bytes arrived/,
    evidence: (ex) => {
      expect(ex.response).toBeUndefined();
      expect(ex.transportError).toBe('timed out');
      expect(ex.incompleteResponse?.status).toBe(200);
    },
  },
  {
    name: '401 with an error object',
    behaviour: (_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'invalid_api_key', message: 'unknown key' } })),
    kind: 'refused',
    message:
      /^the target refused to issue a token for --api-key \(401 invalid_api_key: "unknown key"\); check --api-key and --base-url$/,
    evidence: (ex, d) => {
      expect(ex.response?.status).toBe(401);
      expect(d['errorCode']).toBe('invalid_api_key');
    },
  },
];

async function serve(behaviour: Behaviour): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(behaviour);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: mkdtempSync(path.join(tmpdir(), 'cc-cwd-')),
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// Pointed at a target that breaks on the first token request, the run exits 2 with one line naming what the target
// did (only a refusal points at the key), and the JSON report says the same with the exchange as evidence.
describe.concurrent('a target that breaks at the start', () => {
  for (const c of CASES) {
    // Without --only the issuance probe is the preflight; with --only versioning, the run's first token request is.
    for (const only of c.kind === 'not-json' || c.kind === 'incomplete' ? [undefined, 'versioning'] : [undefined]) {
      it(`${c.name}${only ? ` (--only ${only})` : ''}: exit 2, "${c.kind}", report verdict error with evidence`, async () => {
        const target = await serve(c.behaviour);
        const dir = mkdtempSync(path.join(tmpdir(), 'cc-broken-'));
        try {
          const r = await runCli([
            'run',
            '--quiet',
            '--base-url',
            target.url,
            '--api-key',
            KEY,
            ...(only ? ['--only', only] : []),
            ...(c.args ?? []),
            '--report',
            `json:${dir}/r.json`,
            '--report',
            `junit:${dir}/j.xml`,
            '--report',
            `html:${dir}/r.html`,
          ]);
          expect(r.code, r.stderr).toBe(2);
          console.log(`${c.name}${only ? ` (--only ${only})` : ''}: ${r.stderr.trim()}`);
          const lines = r.stderr.trim().split('\n');
          expect(lines).toHaveLength(1);
          expect(lines[0]).toMatch(/^cloud-conformance: /);
          expect(lines[0]!.replace(/^cloud-conformance: /, '')).toMatch(c.message);
          if (c.kind !== 'refused') expect(lines[0]).not.toMatch(/check --api-key/);
          expect(r.stdout + r.stderr).not.toContain(KEY);

          const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
          expect(report.verdict).toBe('error');
          expect(report.checks).toEqual([]);
          expect(report.startupFailure.kind).toBe(c.kind);
          expect(`cloud-conformance: ${report.startupFailure.message}`).toBe(lines[0]);
          const [ex] = report.startupFailure.evidence.exchanges;
          expect(ex.request.method).toBe('POST');
          expect(ex.request.url).toBe(`${target.url}/v1/auth/tokens`);
          expect(ex.request.body).not.toContain(KEY);
          // The key is read from the variable the CLI reads it from and handed to curl on its standard input (-K -),
          // never an argument that `ps` would show, nor a placeholder that sends '[REDACTED …]'.
          expect(ex.curl).toMatch(
            /^printf 'data-raw = "[^']*%s[^']*"\\n' "\$CONFORMANCE_API_KEY" \| curl -sS -i -K - -X POST '.*\/v1\/auth\/tokens'/
          );
          expect(ex.curl).not.toMatch(/REDACTED/);
          c.evidence(ex, report.startupFailure.evidence.details);
          expect(readFileSync(`${dir}/r.json`, 'utf8')).not.toContain(KEY);
          // A CI gate reading JUnit sees an error, not zero tests; the HTML report says why nothing ran.
          expect(readFileSync(`${dir}/j.xml`, 'utf8')).toMatch(
            new RegExp(
              `<testsuites name="cloud-conformance" tests="1" failures="0" errors="1">[\\s\\S]*<error message="[^"]+" type="${c.kind}">`
            )
          );
          const html = readFileSync(`${dir}/r.html`, 'utf8');
          expect(html).toContain('id="startup-failure"');
          expect(html).not.toContain(KEY);
        } finally {
          await target.close();
        }
      });
    }
  }

  it('an unreachable target is still "target unreachable", with a report', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-broken-'));
    const r = await runCli([
      'run',
      '--quiet',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      KEY,
      '--report',
      `json:${dir}/r.json`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^cloud-conformance: target unreachable at http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
    expect(existsSync(`${dir}/r.json`)).toBe(true);
    expect(JSON.parse(readFileSync(`${dir}/r.json`, 'utf8')).startupFailure.kind).toBe('unreachable');
  });
});
