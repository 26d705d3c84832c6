// HTTPS as users run it: `cloud-conformance reference --tls` serves the API and S3 over TLS with a CA it makes and
// names; `run --ca-file` trusts it (NODE_EXTRA_CA_CERTS too), and without it the run is refused in one line, exit 2.
// `reference --require-client-cert` refuses clients without a certificate its CA signed; `run --client-cert
// --client-key` gets through. `run --reference-tls` does all of it with the embedded targets and no configuration.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { makeTlsMaterial, type TlsMaterial } from '../../fixtures/reference/tls.ts';
import { runCli, startReferenceChild, targetFlags, type ReferenceChild } from './processes.ts';

const oneLine = (stderr: string) => stderr.trim().split('\n');

describe('reference --tls, run --ca-file', () => {
  let ref: ReferenceChild;
  beforeAll(async () => {
    ref = await startReferenceChild(['--tls', '--time-scale', '60']);
  });
  afterAll(() => ref.stop());

  it('the reference serves the API and S3 over HTTPS, names its CA file in its settings and tells people how to use it', async () => {
    const s = ref.settings;
    expect(s.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(s.s3Url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(readFileSync(s.caFile!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    await vi.waitFor(() => expect(ref.stderr()).toContain(`run --base-url ${s.baseUrl} --ca-file ${s.caFile}`));
  });

  it('without --ca-file the run is refused: exit 2, one line saying the certificate is not trusted and what to pass', async () => {
    const r = await runCli([...targetFlags(ref.settings), '--quiet']);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^cloud-conformance: target unreachable at https:\/\/127\.0\.0\.1:\d+: \w+: .*certificate.*; the target's certificate is not signed by a CA Node trusts: pass the CA that signed it with --ca-file FILE \(or NODE_EXTRA_CA_CERTS=FILE\)\n$/
    );
    expect(r.report?.verdict).toBe('error');
  });

  it('with --ca-file the whole quick suite runs over HTTPS, API and S3, and is conformant', async () => {
    const s = ref.settings;
    const r = await runCli([
      ...targetFlags(s, { s3: true }),
      '--api-key-b',
      s.apiKeyB,
      '--api-key-readonly',
      s.apiKeyReadonly,
      '--image',
      s.image,
      '--subnet-id',
      s.subnetId,
      '--ca-file',
      s.caFile!,
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.report?.verdict).toBe('conformant');
    const s3 = r.report!.checks.filter((c) => c.id.startsWith('s3.'));
    expect(s3.length).toBeGreaterThan(5);
    expect(s3.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(r.report!['connection']).toEqual({ caFile: s.caFile });
    expect(r.report!['reproduce']).toContain(`--ca-file ${s.caFile}`);
  });

  it("NODE_EXTRA_CA_CERTS, Node's own variable, works as well", async () => {
    const r = await runCli([...targetFlags(ref.settings), '--only', 'auth', '--quiet'], {
      NODE_EXTRA_CA_CERTS: ref.settings.caFile!,
    });
    expect(r.status, r.stderr).toBe(0);
  });

  it('--ca-file keeps NODE_EXTRA_CA_CERTS: a run trusting another CA by file still trusts the one in the variable', async () => {
    const unrelated = await makeTlsMaterial();
    try {
      const r = await runCli(
        [...targetFlags(ref.settings), '--only', 'auth', '--quiet', '--ca-file', unrelated.files.caFile],
        { NODE_EXTRA_CA_CERTS: ref.settings.caFile! }
      );
      expect(r.status, r.stderr).toBe(0);
      const refused = await runCli([
        ...targetFlags(ref.settings),
        '--only',
        'auth',
        '--quiet',
        '--ca-file',
        unrelated.files.caFile,
      ]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/not signed by a CA the run trusts \(--ca-file .*ca\.pem or Node's own\)/);
    } finally {
      unrelated.remove();
    }
  });

  it('a --ca-file that does not exist is a one-line usage error, exit 2, before anything is sent', async () => {
    const r = await runCli([...targetFlags(ref.settings), '--ca-file', '/nonexistent/ca.pem']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('cloud-conformance: --ca-file /nonexistent/ca.pem: cannot read it (no such file)\n');
  });
});

describe('reference --require-client-cert (mutual TLS), run --client-cert --client-key', () => {
  let ref: ReferenceChild;
  let stranger: TlsMaterial;
  beforeAll(async () => {
    [ref, stranger] = await Promise.all([
      startReferenceChild(['--require-client-cert', '--time-scale', '60']),
      makeTlsMaterial({ clientCert: true }),
    ]);
  });
  afterAll(async () => {
    stranger.remove();
    await ref.stop();
  });

  it('the reference names a client certificate and key its CA signed', async () => {
    expect(existsSync(ref.settings.clientCertFile!)).toBe(true);
    expect(existsSync(ref.settings.clientKeyFile!)).toBe(true);
    await vi.waitFor(() =>
      expect(ref.stderr()).toContain(
        `--client-cert ${ref.settings.clientCertFile} --client-key ${ref.settings.clientKeyFile}`
      )
    );
  });

  it('without a client certificate the run is refused: exit 2, one line saying the target requires one', async () => {
    const r = await runCli([...targetFlags(ref.settings), '--ca-file', ref.settings.caFile!, '--quiet']);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /CERTIFICATE_REQUIRED; the target requires a client certificate \(mutual TLS\): pass --client-cert FILE --client-key FILE\n$/
    );
  });

  it('with a certificate another CA signed the run is refused, and the message names the certificate and why', async () => {
    const r = await runCli([
      ...targetFlags(ref.settings),
      '--ca-file',
      ref.settings.caFile!,
      '--client-cert',
      stranger.files.clientCertFile!,
      '--client-key',
      stranger.files.clientKeyFile!,
      '--quiet',
    ]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain(
      `the target closes a bare TLS connection right after the handshake; a target that requires mutual TLS does so when it does not accept the client certificate --client-cert ${stranger.files.clientCertFile}`
    );
  });

  it('with the client certificate, the API and S3 (SDK and presigned URLs) answer', async () => {
    const s = ref.settings;
    const r = await runCli([
      ...targetFlags(s, { s3: true }),
      '--ca-file',
      s.caFile!,
      '--client-cert',
      s.clientCertFile!,
      '--client-key',
      s.clientKeyFile!,
      '--only',
      'auth,s3',
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.report!.checks.find((c) => c.id === 's3.presigned')?.status).toBe('passed');
    expect(r.report!['connection']).toEqual({ caFile: s.caFile, clientCert: s.clientCertFile });
  });
});

describe('run --reference-tls', () => {
  it('serves the embedded targets over HTTPS and trusts their CA with no configuration; a proxy of the environment is not used for them', async () => {
    const r = await runCli(['--reference-tls', '--time-scale', '60', '--only', 'auth,s3', '--quiet'], {
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
    });
    expect(r.status, r.stderr).toBe(0);
    expect((r.report!['target'] as { baseUrl: string }).baseUrl).toMatch(/^https:/);
    expect(r.report!['connection']).toEqual({ referenceTls: true, proxy: { api: 'direct', s3: 'direct' } });
    expect(r.report!['reproduce']).toMatch(/--reference-tls$/);
  });
});
