// The user's own mistakes are usage errors: an image the target does not have, a subnet it does not know or
// that belongs to another organization, a key whose role cannot create. Each stops the run with exit 2 and one line
// naming the flag and what the target said, never a MUST failure of the target. And only then: a refusal that does not
// name the input, or names a value the target says it accepts, is still the target's to answer for.
import { INPUT_NAMES } from '../../src/cli/options.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';
import { inputRefusalOf, acceptedValues } from '../../src/engine/target/input-refusal.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { runCli } from './processes.ts';

let target: ReferenceTarget;
beforeAll(async () => {
  target = await startReference({ port: 0, timeScale: 60 });
});
afterAll(() => target.close());

/** A run of the vms group against the reference, keys from the environment as the README advises. */
function run(flags: { key?: string; image?: string; subnet?: string; readonly?: string }) {
  const s = target.settings;
  return runCli(
    [
      '--base-url',
      s.baseUrl,
      '--time-scale',
      '60',
      '--only',
      'vms',
      '--image',
      flags.image ?? s.image,
      '--subnet-id',
      flags.subnet ?? s.subnetId,
    ],
    {
      CONFORMANCE_API_KEY: flags.key ?? s.apiKey,
      ...(flags.readonly ? { CONFORMANCE_API_KEY_READONLY: flags.readonly } : {}),
    }
  );
}

/** One line on stderr, naming the flag; exit 2; no check failed (the report is a stop, not a verdict on the target). */
function expectUsageError(r: Awaited<ReturnType<typeof run>>, flag: RegExp): string {
  expect(r.status, r.stderr + r.stdout).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(flag);
  expect(r.stdout).not.toMatch(/^FAIL /m);
  // No check the stop cut short is listed as if the suite had run it (the newcomer trial saw 28 SKIP lines).
  expect(r.stdout).not.toMatch(/the run stopped/);
  expect(r.report?.verdict).toBe('error');
  expect(r.report?.checks).toEqual([]);
  expect((r.report as { startupFailure?: { kind: string } }).startupFailure?.kind).toBe('input-refused');
  return lines[0]!;
}

describe('the run’s own inputs refused by the target', () => {
  it('--image the target does not have: exit 2, one line naming --image and the images it accepts', async () => {
    const line = expectUsageError(await run({ image: 'debian-99' }), /^cloud-conformance: --image debian-99: /);
    expect(line).toMatch(/→ 400 "invalid_request: image must be one of ubuntu-22\.04, debian-12, rocky-9"/);
    expect(line).toMatch(/it accepts: ubuntu-22\.04, debian-12, rocky-9$/);
  });

  it('--subnet-id the target does not know: exit 2, one line naming --subnet-id', async () => {
    const line = expectUsageError(
      await run({ subnet: 'subnet-nope' }),
      /^cloud-conformance: --subnet-id subnet-nope: /
    );
    expect(line).toMatch(/subnet_id does not name a subnet of your organization/);
    expect(line).toMatch(/give a subnet of the organization of --api-key \(org_[0-9a-f]+\)/);
  });

  it('--api-key of another organization than --subnet-id: exit 2, naming both', async () => {
    const line = expectUsageError(
      await run({ key: target.settings.apiKeyB }),
      new RegExp(`^cloud-conformance: --subnet-id ${target.settings.subnetId}: `)
    );
    expect(line).toMatch(/the organization of --api-key/);
  });

  it('--api-key whose role only reads: exit 2, one line naming --api-key and the role', async () => {
    const line = expectUsageError(
      await run({ key: target.settings.apiKeyReadonly }),
      /^cloud-conformance: --api-key: /
    );
    expect(line).toMatch(/403 "forbidden: your role does not permit this operation"/);
    expect(line).toMatch(/role "viewer"/);
  });

  it('valid inputs: the run goes on and judges the target', async () => {
    const r = await run({});
    expect(r.status, r.stderr).toBe(0);
    expect(r.report?.verdict).toBe('conformant');
  });
});

const refused = (status: number, error: { code: string; message: string }): Exchange => ({
  seq: 1,
  sentBy: 'setup',
  request: { method: 'POST', url: 'http://t/v1/vms', headers: {} },
  response: { status, headers: {}, body: JSON.stringify({ error }), json: { error } },
  startedAt: '',
  durationMs: 0,
});
const config = { image: 'ubuntu-22.04', subnetId: 'subnet-1', names: INPUT_NAMES };
const facts = (role?: string, readonlyRole?: string) => () => Promise.resolve({ role, readonlyRole });

describe('what is not a usage error: the target is judged', () => {
  it('a refusal that lists the image it refused among those it accepts', async () => {
    const ex = refused(400, { code: 'invalid', message: 'image must be one of ubuntu-22.04, debian-12' });
    expect(await inputRefusalOf([ex], config, facts())).toBeUndefined();
  });

  it('a refusal naming another field, a 5xx, or a quota', async () => {
    for (const ex of [
      refused(400, { code: 'invalid_request', message: 'vcpus must be 1' }),
      refused(500, { code: 'internal', message: 'image store unavailable' }),
      refused(403, { code: 'quota_exceeded', message: 'organization VM quota of 20 reached' }),
    ])
      expect(await inputRefusalOf([ex], config, facts('operator'))).toBeUndefined();
  });

  it('a 403 to a key whose role writes, or says nothing', async () => {
    const ex = refused(403, { code: 'forbidden', message: 'your role does not permit this operation' });
    expect(await inputRefusalOf([ex], config, facts('operator'))).toBeUndefined();
    expect(await inputRefusalOf([ex], config, facts('administrator', 'auditor'))).toBeUndefined();
    expect(await inputRefusalOf([ex], config, facts(undefined))).toBeUndefined();
    expect((await inputRefusalOf([ex], config, facts('auditor', 'auditor')))?.flag).toBe('--api-key');
  });

  it('a size the target refused before it refused the image: every attempt must name the input', async () => {
    const size = refused(400, { code: 'invalid', message: 'vcpus must be at least 2' });
    const image = refused(400, { code: 'invalid', message: 'image ubuntu-22.04 is not offered at this size' });
    expect(await inputRefusalOf([size, image], config, facts())).toBeUndefined();
    expect((await inputRefusalOf([image, image], config, facts()))?.flag).toBe('--image');
  });

  it('reads the accepted values an answer lists', () => {
    expect(acceptedValues('image must be one of ubuntu-22.04, debian-12, rocky-9')).toEqual([
      'ubuntu-22.04',
      'debian-12',
      'rocky-9',
    ]);
    expect(acceptedValues('unknown image "x"; allowed: "a" | "b"')).toEqual(['a', 'b']);
    expect(acceptedValues('image not found')).toBeUndefined();
  });
});
