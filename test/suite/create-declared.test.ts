// vms.create-declared-valid and errors.invalid-inputs against the schemas and rules the zoo members declare: tags as
// oneOf a map or "key:value" strings (node-fastify, ruby-webrick, php-sockets), and a disk minimum per image no overlay
// can state (every member).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_OVERLAY, runAgainstReference } from '../helpers.ts';

const check = (report: Awaited<ReturnType<typeof runAgainstReference>>, id: string) =>
  report.checks.find((c) => c.id === id)!;

/** The reference overlay with the create's tags declared as oneOf a map or a list of "key:value" strings. */
function overlayWithTagsOneOf(): string {
  const text = readFileSync(REFERENCE_OVERLAY, 'utf8');
  const map = '        tags:\n          type: object\n          additionalProperties: { type: string }\n';
  expect(text).toContain(map);
  const oneOf =
    '        tags:\n          oneOf:\n            - { type: object, additionalProperties: { type: string } }\n' +
    "            - { type: array, items: { type: string, pattern: '^[^:]+:.*$' } }\n";
  const file = join(mkdtempSync(join(tmpdir(), 'cc-tags-oneof-')), 'tags-oneof.yaml');
  writeFileSync(
    file,
    text.replace(map, () => oneOf)
  );
  return file;
}

describe('a create schema whose tags are oneOf a map or "key:value" strings', () => {
  it('is drawn from (plain bodies sent and accepted), and a tag map is never taken for an invalid input', async () => {
    const report = await runAgainstReference({
      variants: ['tags-map-or-strings', 'tag-characters-plain'],
      overlay: overlayWithTagsOneOf(),
      only: ['vms', 'errors'],
    });
    expect(check(report, 'vms.create-declared-valid')).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/^[1-9]\d* generated bodies valid by the declared schema were accepted/),
    });
    expect(check(report, 'errors.invalid-inputs').status).toBe('passed');
  });
});

describe('a disk minimum per image, above the declared minimum', () => {
  it('is the target’s rule for that image, not judged, and the other fields still are', async () => {
    const report = await runAgainstReference({
      variants: ['disk-minimum-per-image'],
      overlay: REFERENCE_OVERLAY,
      only: ['vms'],
    });
    expect(check(report, 'vms.create-declared-valid')).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(
        /^[1-9]\d* generated bodies .* accepted; not judged: system_disk_gb=1\d refused for image ubuntu-22\.04/
      ),
    });
  });

  it('leaves a refusal that does not name the image a failure of the declaration', async () => {
    const report = await runAgainstReference({
      variants: ['disk-minimum-per-image'],
      faults: ['vcpus-over-1-refused'],
      overlay: REFERENCE_OVERLAY,
      only: ['vms'],
    });
    expect(check(report, 'vms.create-declared-valid')).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^a body valid by the declared schema was refused: POST \/v1\/vms → 400/),
    });
  });
});

describe('a refusal whose retry meets the quota', () => {
  it('is not judged (the quota, which other creates spent, says nothing of the declaration), and never failed', async () => {
    const report = await runAgainstReference({
      variants: ['disk-minimum-per-image', 'vm-quota-low'],
      overlay: REFERENCE_OVERLAY,
      only: ['vms'],
    });
    const c = check(report, 'vms.create-declared-valid');
    expect(c.status).not.toBe('failed');
    expect(c.message).toMatch(
      /system_disk_gb=\d+ refused \(POST \/v1\/vms → 400\), and the same body with the run VM's values refused for a documented reason/
    );
  });
});
