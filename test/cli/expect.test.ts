// --expect, --write-expect, --strict-expect, run as a user runs them against the embedded reference with a
// fault: the verdict stays nonconformant, the exit code says whether anything got worse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';

import { cli } from './processes.ts';
const dir = mkdtempSync(path.join(tmpdir(), 'cc-expect-'));
const file = (name: string) => path.join(dir, name);
let faulty: ReferenceTarget;

const run = (...args: string[]) => cli(['run', '--only', 'errors', '--time-scale', '60', ...args]);
const againstFaulty = () => {
  const s = faulty.settings;
  return ['--base-url', s.baseUrl, '--api-key', s.apiKey, '--image', s.image, '--subnet-id', s.subnetId];
};

beforeAll(async () => {
  faulty = await startReference({ faults: ['malformed-json-500'], timeScale: 60 });
});
afterAll(() => faulty.close());

describe('--expect', () => {
  it("writes the run's failures with --write-expect, and with that file exits 0 while the verdict stays nonconformant", async () => {
    const first = await run(...againstFaulty(), '--write-expect', file('expect.yaml'));
    expect(first.status, first.stderr).toBe(1);
    const written = readFileSync(file('expect.yaml'), 'utf8');
    expect(written).toContain('- check: errors.malformed-json');
    // Said where it went, as every report is (the newcomer trial found it written in silence).
    expect(first.stdout + first.stderr).toMatch(
      /expectations: \d+ known failures? (and|or) warnings? written to .*expect\.yaml/
    );
    const again = await run(...againstFaulty(), '--expect', file('expect.yaml'), '--report', `json:${file('r.json')}`);
    expect(again.status, again.stderr + again.stdout).toBe(0);
    const report = JSON.parse(readFileSync(file('r.json'), 'utf8'));
    expect(report.verdict).toBe('nonconformant');
    expect(report.checks.find((c: { id: string }) => c.id === 'errors.malformed-json').expected).toBeDefined();
    expect(report.expectations).toMatchObject({ unexpected: [], fixed: [] });
  }, 120_000);

  it('exits 1 for a failure the file does not list', async () => {
    writeFileSync(
      file('other.yaml'),
      '- check: errors.error-object\n  reason: known\n  reference: https://tracker.example/1\n'
    );
    const r = await run(...againstFaulty(), '--expect', file('other.yaml'));
    expect(r.status).toBe(1);
  }, 120_000);

  it('reports an expected failure that now passes, and --strict-expect makes it exit 1', async () => {
    writeFileSync(
      file('fixed.yaml'),
      '- check: errors.malformed-json\n  clause: SVC-JSON\n  reason: crashes on bad JSON\n'
    );
    const lenient = await run('--expect', file('fixed.yaml'));
    expect(lenient.status).toBe(0);
    const strict = await run('--expect', file('fixed.yaml'), '--strict-expect');
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain('FIXED (--strict-expect: remove from the file): errors.malformed-json (SVC-JSON)');
  }, 120_000);

  it.each([
    ['- check: no.such-check\n', /--expect .*:1: unknown check id no\.such-check/],
    [
      '- check: errors.error-object\n- check: errors.json-responses\n  clause: NOPE\n',
      /--expect .*:2: unknown clause id NOPE/,
    ],
    ['- check: errors.error-object\n  ticket: x\n', /--expect .*:1: unknown field ticket/],
    ['check: [unclosed\n', /--expect .*:2: not YAML \(Flow sequence/],
  ])('refuses a bad file %j before sending anything: exit 2, the line named', async (text, message) => {
    writeFileSync(file('bad.yaml'), text);
    const r = await run('--expect', file('bad.yaml'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('with --only, --strict-expect calls entries of checks that did not run "not run", never fixed', async () => {
    writeFileSync(
      file('split.yaml'),
      "- check: errors.malformed-json\n  reason: known\n- check: auth.token-shape\n  reason: another group's\n"
    );
    const r = await run(
      ...againstFaulty(),
      '--expect',
      file('split.yaml'),
      '--strict-expect',
      '--report',
      `json:${file('split.json')}`
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const report = JSON.parse(readFileSync(file('split.json'), 'utf8'));
    expect(report.expectations).toMatchObject({ fixed: [], notRun: ['auth.token-shape'] });
    expect(r.stdout).toContain('not run (left out or skipped; kept in the file): auth.token-shape');
  }, 120_000);
});
