// cloud-conformance verify REPORT.json and run --sign KEY, run as a user runs them on reports of the
// reference clean and with a fault: a report as the run wrote it verifies; one edited by hand does not, and says how.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';
import { sealReport } from '../../src/report/integrity.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

import { cli } from './processes.ts';
const dir = mkdtempSync(path.join(tmpdir(), 'cc-verify-'));
const file = (name: string) => path.join(dir, name);
let faulty: ReferenceTarget;

// Spaces collapsed: the status column's width depends on the statuses present.
const verify = (...args: string[]) =>
  cli(['verify', ...args]).then((r) => ({ ...r, stdout: r.stdout.replace(/ +/g, ' ') }));
const read = (name: string) => JSON.parse(readFileSync(file(name), 'utf8')) as RunReport;
/** A copy of the faulty run's report, edited as someone might edit it by hand. */
function edited(name: string, edit: (r: RunReport) => void): string {
  const r = read('faulty.json');
  edit(r);
  writeFileSync(file(name), JSON.stringify(r, null, 2));
  return file(name);
}
const failedCheck = (r: RunReport) => r.checks.find((c) => c.id === 'errors.malformed-json')!;

function pemPair(name: string): void {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileSync(file(`${name}.pem`), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(file(`${name}.pub.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
}

beforeAll(async () => {
  pemPair('certifier');
  pemPair('someone-else');
  faulty = await startReference({ faults: ['malformed-json-500'], timeScale: 60 });
  const s = faulty.settings;
  const target = ['--base-url', s.baseUrl, '--api-key', s.apiKey, '--image', s.image, '--subnet-id', s.subnetId];
  const runs = await Promise.all([
    cli([
      'run',
      '--only',
      'errors',
      '--quiet',
      '--time-scale',
      '60',
      '--sign',
      file('certifier.pem'),
      '--report',
      `json:${file('clean.json')}`,
    ]),
    cli([
      'run',
      '--only',
      'errors',
      '--quiet',
      '--time-scale',
      '60',
      ...target,
      '--sign',
      file('certifier.pem'),
      '--report',
      `json:${file('faulty.json')}`,
    ]),
    cli([
      'run',
      '--only',
      'errors',
      '--quiet',
      '--time-scale',
      '60',
      ...target,
      '--report',
      `json:${file('unsigned.json')}`,
    ]),
  ]);
  expect(runs.map((r) => r.status)).toEqual([0, 1, 1]);
}, 180_000);
afterAll(() => faulty.close());

describe('cloud-conformance verify', () => {
  it('verifies a signed report as the run wrote it, clean or not, and prints what cannot be checked offline', async () => {
    for (const name of ['clean.json', 'faulty.json']) {
      const r = await verify(file(name), '--public-key', file('certifier.pub.pem'));
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/ok signature: Ed25519 by key sha256:[0-9a-f]{64} verifies over the recorded digests/);
      expect(r.stdout).toMatch(
        /ok verdict (conformant|nonconformant) follows from the check statuses and the coverage/
      );
      expect(r.stdout).toContain('cannot be checked offline:\n - that the target answered what the');
      expect(r.stdout).toMatch(/\nverified: the report is as the run wrote it/);
    }
    const faultyRun = await verify(file('faulty.json'));
    expect(faultyRun.stdout).toMatch(/exchanges: [1-9]\d* held, every digest matches/);
  });

  it('refuses a report whose status was flipped, naming the digest, the summary and the verdict', async () => {
    const r = await verify(
      edited('flipped.json', (rep) => (failedCheck(rep).status = 'passed')),
      '--public-key',
      file('certifier.pub.pem')
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAILED checks: the digest differs');
    expect(r.stdout).toMatch(/FAILED summary: the report says \d+ passed, 1 failed/);
    expect(r.stdout).toContain(
      'FAILED verdict: the report says nonconformant, the check statuses and coverage give conformant'
    );
    expect(r.stdout).toMatch(/\nNOT VERIFIED: \d+ of \d+ verifications failed/);
  });

  it("refuses a report with an exchange removed from a failure's evidence, naming where", async () => {
    let last = 0;
    const r = await verify(
      edited('removed.json', (rep) => {
        const exchanges = failedCheck(rep).evidence!.exchanges;
        last = exchanges.length;
        exchanges.splice(-1, 1);
      })
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`FAILED exchanges: 1 removed (errors.malformed-json evidence #${last})\n`);
  });

  it('refuses a consistent forgery (status, summary, verdict and digests all redone) by its signature', async () => {
    const forged = edited('forged.json', (rep) => {
      failedCheck(rep).status = 'passed';
      rep.summary = { ...rep.summary, passed: rep.summary.passed + 1, failed: rep.summary.failed - 1 };
      rep.verdict = 'conformant';
      // The editor recomputes the digests and keeps the old signature: the digests now agree, the signature does not.
      rep.integrity = { ...sealReport(rep), signature: rep.integrity!.signature };
    });
    const unsignedCheck = await verify(forged);
    expect(unsignedCheck.stdout).toContain('not checked signature: Ed25519 by key');
    const r = await verify(forged, '--public-key', file('certifier.pub.pem'));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/FAILED signature: Ed25519 by key sha256:[0-9a-f]+ does not verify/);
  });

  it('refuses a report signed by another key than the one given, and an unsigned one when a key is given', async () => {
    const other = await verify(file('faulty.json'), '--public-key', file('someone-else.pub.pem'));
    expect(other.status).toBe(1);
    expect(other.stdout).toMatch(/FAILED signature: made by key sha256:[0-9a-f]+, not by the key given/);
    const unsigned = await verify(file('unsigned.json'), '--public-key', file('certifier.pub.pem'));
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toContain('FAILED signature: the report is not signed');
    // Without a key an unsigned report verifies, and says what the digests alone cannot show.
    const plain = await verify(file('unsigned.json'));
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('an editor can recompute them (run with --sign KEY; verify with --public-key)');
  });

  it('refuses a report without its integrity block, and one whose coverage claims a clause its checks left open', async () => {
    const bare = await verify(edited('bare.json', (rep) => delete rep.integrity));
    expect(bare.status).toBe(1);
    expect(bare.stdout).toContain('FAILED no integrity block');
    const clean = read('clean.json');
    const open = clean.coverage!.notVerified[0]!;
    clean.coverage = {
      verified: [...clean.coverage!.verified, open.clause],
      notVerified: clean.coverage!.notVerified.filter((n) => n.clause !== open.clause),
    };
    writeFileSync(file('claimed.json'), JSON.stringify(clean));
    const claimed = await verify(file('claimed.json'));
    expect(claimed.status).toBe(1);
    expect(claimed.stdout).toContain(
      `FAILED coverage: recomputed from the statuses, ${open.clause} would not be verified`
    );
  });

  it('writes JSON, and meets bad input with one line and exit 2', async () => {
    const json = await verify(file('faulty.json'), '--format', 'json', '--output', file('v.json'));
    expect(json.status).toBe(0);
    expect(JSON.parse(readFileSync(file('v.json'), 'utf8'))).toMatchObject({ verified: true });
    writeFileSync(file('not-a-key.pem'), 'hello');
    for (const [args, message] of [
      [[], /usage: cloud-conformance verify REPORT.json/],
      [['missing.json'], /cannot read missing.json: ENOENT/],
      [[file('faulty.json'), '--public-key', file('not-a-key.pem')], /--public-key .*not a PEM public key/],
      [[file('faulty.json'), '--format', 'xml'], /--format must be terminal or json/],
    ] as const) {
      const r = await verify(...args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    const badSign = await cli(['run', '--only', 'errors', '--sign', file('not-a-key.pem')]);
    expect(badSign.status).toBe(2);
    expect(badSign.stderr).toMatch(/^cloud-conformance: --sign .*not a PEM private key/);
    // The public key given by mistake: said so, and the suggested command writes new files, never over the one given.
    const { publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(file('certifier.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const publicGiven = await cli(['run', '--only', 'errors', '--sign', file('certifier.pub.pem')]);
    expect(publicGiven.status).toBe(2);
    expect(publicGiven.stderr).toMatch(/a public key; --sign takes the private key/);
    expect(publicGiven.stderr).toMatch(/-out certifier\.key\.pem .*-pubout -out certifier\.pub\.pem/);
    expect(publicGiven.stderr).not.toContain(`-out ${file('certifier.pub.pem')}`);
  });
});
