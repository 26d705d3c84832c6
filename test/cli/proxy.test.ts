// Proxies as users run them: HTTP_PROXY, HTTPS_PROXY and NO_PROXY in the environment of `cloud-conformance run`, a
// forward proxy on 127.0.0.1 (fixtures/proxy) that asks for credentials and records what passed through it. Both the
// API client and the S3 client (the SDK's requests and presigned URLs) go through it, https tunnelled (CONNECT) and
// http in absolute form; NO_PROXY sends them past it; its password shows in no output, report or error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy, type ProxyRecord } from '../../fixtures/proxy/forward-proxy.ts';
import { runCli, startReferenceChild, targetFlags, type CliResult, type ReferenceChild } from './processes.ts';

const USER = 'certifier';
const PASSWORD = 'pr0xy-Passw0rd-never-shown';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

let proxy: ForwardProxy;
let plain: ReferenceChild;
let tls: ReferenceChild;

beforeAll(async () => {
  [proxy, plain, tls] = await Promise.all([
    startForwardProxy({ credentials: { user: USER, password: PASSWORD } }),
    startReferenceChild(['--time-scale', '60']),
    startReferenceChild(['--tls', '--time-scale', '60']),
  ]);
});
afterAll(async () => {
  await Promise.all([proxy.close(), plain.stop(), tls.stop()]);
});

const authority = (url: string) => new URL(url).host;
const through = (records: ProxyRecord[], url: string) => records.filter((r) => r.authority === authority(url));

/** What a run printed and wrote, checked for the proxy's password in every form it could take. */
function expectNoPassword(r: CliResult): void {
  for (const text of [r.stdout, r.stderr, r.written]) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(BASIC);
  }
}

/** The run's own records: the proxy is shared by the file's tests. */
async function recorded(run: () => Promise<CliResult>): Promise<{ r: CliResult; records: ProxyRecord[] }> {
  const from = proxy.records.length;
  const r = await run();
  return { r, records: proxy.records.slice(from) };
}

describe('HTTP_PROXY with http targets', () => {
  it('API and S3 requests (SDK and presigned URLs) go through it in absolute form, and its password shows nowhere', async () => {
    const { r, records } = await recorded(() =>
      runCli([...targetFlags(plain.settings, { s3: true }), '--only', 'auth,s3'], { HTTP_PROXY: proxy.url })
    );
    expect(r.status, r.stderr).toBe(0);
    const api = through(records, plain.settings.baseUrl);
    const s3 = through(records, plain.settings.s3Url);
    expect(api.length).toBeGreaterThan(10);
    expect(api.every((x) => x.method !== 'CONNECT' && x.status !== 407)).toBe(true);
    expect(api.some((x) => x.method === 'POST' && x.path === '/v1/auth/tokens')).toBe(true);
    expect(s3.length).toBeGreaterThan(10);
    expect(s3.some((x) => x.path?.includes('X-Amz-Signature='))).toBe(true);
    // Every S3 check passed, the 16 MiB object and multipart uploads among them (the SDK's large bodies).
    expect(r.report!.checks.filter((c) => c.id.startsWith('s3.') && c.status !== 'passed')).toEqual([]);
    expect(records.filter((x) => x.status === 407)).toEqual([]);
    expect(r.stdout).toContain(
      `proxy: API through proxy http://[REDACTED]@127.0.0.1:${proxy.port}; object storage through proxy http://[REDACTED]@127.0.0.1:${proxy.port}; 127.0.0.1 is this machine: add it to NO_PROXY unless the proxy is on this machine too`
    );
    expect(r.report!['connection']).toEqual({
      proxy: { api: `http://[REDACTED]@127.0.0.1:${proxy.port}`, s3: `http://[REDACTED]@127.0.0.1:${proxy.port}` },
    });
    expectNoPassword(r);
  });
});

describe('HTTPS_PROXY with https targets', () => {
  it("API and S3 requests are tunnelled (CONNECT), with the target's certificate verified end to end against --ca-file", async () => {
    const s = tls.settings;
    const { r, records } = await recorded(() =>
      runCli([...targetFlags(s, { s3: true }), '--only', 'auth,s3', '--ca-file', s.caFile!], { HTTPS_PROXY: proxy.url })
    );
    expect(r.status, r.stderr).toBe(0);
    for (const url of [s.baseUrl, s.s3Url]) {
      const tunnels = through(records, url);
      expect(tunnels.length).toBeGreaterThan(0);
      expect(tunnels.every((x) => x.method === 'CONNECT' && x.status === 200)).toBe(true);
    }
    expect(r.report!.checks.filter((c) => c.id.startsWith('s3.') && c.status !== 'passed')).toEqual([]);
    expectNoPassword(r);
  });

  it("tunnels are kept for the next request: far fewer than the run's requests", async () => {
    const s = tls.settings;
    const { r, records } = await recorded(() =>
      runCli([...targetFlags(s, { s3: true }), '--only', 's3', '--ca-file', s.caFile!, '--quiet'], {
        HTTPS_PROXY: proxy.url,
      })
    );
    expect(r.status, r.stderr).toBe(0);
    // The s3 group makes over a hundred requests; a few concurrent checks need a few tunnels.
    expect(through(records, s.s3Url).length).toBeLessThan(20);
  });
});

describe('NO_PROXY', () => {
  it('a target it names goes directly: nothing passes through the proxy', async () => {
    const { r, records } = await recorded(() =>
      runCli([...targetFlags(plain.settings, { s3: true }), '--only', 'auth,s3', '--quiet'], {
        HTTP_PROXY: proxy.url,
        NO_PROXY: 'localhost,127.0.0.1',
      })
    );
    expect(r.status, r.stderr).toBe(0);
    expect(records).toEqual([]);
    expect(r.report!['connection']).toEqual({ proxy: { api: 'direct', s3: 'direct', noProxy: 'localhost,127.0.0.1' } });
  });

  it('an entry with another port does not match: the run goes through the proxy', async () => {
    const { r, records } = await recorded(() =>
      runCli([...targetFlags(plain.settings), '--only', 'auth', '--quiet'], {
        HTTP_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1:1',
      })
    );
    expect(r.status, r.stderr).toBe(0);
    expect(through(records, plain.settings.baseUrl).length).toBeGreaterThan(0);
  });
});

describe('a proxy that refuses', () => {
  it('wrong credentials: exit 2, one line naming the proxy (password hidden) and what it wants', async () => {
    const wrong = proxy.url.replace(PASSWORD, 'not-the-password-either');
    const r = await runCli([...targetFlags(tls.settings), '--ca-file', tls.settings.caFile!, '--quiet'], {
      HTTPS_PROXY: wrong,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cloud-conformance: target unreachable at https://127\\.0\\.0\\.1:\\d+ through proxy http://\\[REDACTED\\]@127\\.0\\.0\\.1:${proxy.port}: .*407.*; the proxy refused the credentials in its URL`
      )
    );
    expect(r.stderr + r.stdout + r.written).not.toContain('not-the-password-either');
    // None given: the hint says to give them.
    const none = await runCli([...targetFlags(tls.settings), '--ca-file', tls.settings.caFile!, '--quiet'], {
      HTTPS_PROXY: proxy.url.replace(/\/\/[^@]+@/, '//'),
    });
    expect(none.stderr).toMatch(/; the proxy asks for credentials: give them in its URL/);
    expect((r.report!['startupFailure'] as { message: string }).message).toContain('[REDACTED]');
  });

  it('no proxy listening: exit 2, one line naming it', async () => {
    const r = await runCli([...targetFlags(plain.settings), '--quiet'], {
      HTTP_PROXY: `http://${USER}:${PASSWORD}@127.0.0.1:9`,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^cloud-conformance: target unreachable at http:\/\/127\.0\.0\.1:\d+ through proxy http:\/\/\[REDACTED\]@127\.0\.0\.1:9: ECONNREFUSED/
    );
    expectNoPassword(r);
  });
});
