// cloud-conformance diff OLD.json NEW.json, run as a user runs it, on reports of the reference with and
// without a fault: a regression exits 1 and names the check and its clauses; a fix exits 0 and says what now passes.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgainstReference } from '../helpers.ts';

const BIN = path.resolve('bin/cloud-conformance.js');
const dir = mkdtempSync(path.join(tmpdir(), 'cc-diff-'));
const file = (name: string) => path.join(dir, name);
const diff = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'diff', ...args], { encoding: 'utf8', timeout: 120_000 });

beforeAll(async () => {
  const clean = await runAgainstReference({ only: ['errors'] });
  const faulty = await runAgainstReference({ only: ['errors'], faults: ['malformed-json-500'] });
  writeFileSync(file('clean.json'), JSON.stringify(clean));
  writeFileSync(file('faulty.json'), JSON.stringify(faulty));
  writeFileSync(
    file('newer-suite.json'),
    JSON.stringify({
      ...clean,
      tool: { ...clean.tool, version: '9.9.9' },
      digests: { ...clean.digests, clauses: 'other' },
    })
  );
  writeFileSync(file('not-a-report.json'), JSON.stringify({ hello: 'world' }));
  // A report written before the ledger kept what was left (a bare list of entries), and one that left two VMs.
  writeFileSync(file('old-ledger.json'), JSON.stringify({ ...clean, ledger: clean.ledger.entries }));
  const left = { kind: 'vm', reason: 'DELETE /v1/vms/{id} answered 405', owner: 'primary', listed: true };
  writeFileSync(
    file('left.json'),
    JSON.stringify({
      ...clean,
      ledger: {
        ...clean.ledger,
        leftBehind: [
          { ...left, name: 'cc-1-a' },
          { ...left, name: 'cc-1-b' },
        ],
      },
    })
  );
}, 120_000);

describe('cloud-conformance diff', () => {
  it('exits 1 on a regression, naming the check newly failing and the clauses it breaks', () => {
    const r = diff(file('clean.json'), file('faulty.json'));
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^REGRESSION: verdict conformant → nonconformant; 1 checks newly failing/);
    expect(r.stdout).toContain('checks newly failing (1):\n  errors.malformed-json  passed → failed');
    // The errors group alone leaves SVC-JSON not verified (other groups cite it too); now it fails.
    expect(r.stdout).toContain('clauses newly failing (1):\n  SVC-JSON  not verified → failed');
    // The headline counts the sections below it, by their names.
    const headline = r.stdout.split('\n')[0]!;
    for (const [, name, n] of r.stdout.matchAll(/^([a-z ,]+?) \((\d+)\):$/gm))
      expect(headline).toContain(`${n} ${name}`);
  });

  it('exits 0 on a fix, and says what now passes', () => {
    const r = diff(file('faulty.json'), file('clean.json'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^no regression: verdict nonconformant → conformant/);
    expect(r.stdout).toContain('checks newly passing (1):\n  errors.malformed-json  failed → passed');
  });

  it('writes Markdown fit for a pull-request comment, and JSON', () => {
    const md = diff(file('clean.json'), file('faulty.json'), '--format', 'markdown');
    expect(md.stdout).toContain('### Conformance: ❌ regression');
    expect(md.stdout).toContain('| `errors.malformed-json` | passed | failed |');
    const out = file('diff.json');
    expect(diff(file('clean.json'), file('faulty.json'), '--format', 'json', '--output', out).status).toBe(1);
    const d = JSON.parse(readFileSync(out, 'utf8'));
    expect(d.regression).toBe(true);
    expect(d.checks.newlyFailing).toEqual([{ id: 'errors.malformed-json', from: 'passed', to: 'failed' }]);
  });

  it('compares runs of different suite or document versions by id, and says that they differ', () => {
    const r = diff(file('clean.json'), file('newer-suite.json'));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /the runs differ \(compared by check and clause id\): suite \S+ → 9\.9\.9; clause list \(spec\/clauses\.yaml\) differs/
    );
  });

  it('says what each run left on the target, reading a report from before the ledger kept it', () => {
    const r = diff(file('old-ledger.json'), file('left.json'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('left behind on the target: 0 → 2 resources (ledger.leftBehind)');
    expect(diff(file('old-ledger.json'), file('clean.json')).stdout).not.toContain('left behind');
  });

  it.each([
    [['only-one.json'], /usage: cloud-conformance diff OLD.json NEW.json/],
    [['missing.json', 'missing.json'], /cannot read missing.json: ENOENT/],
    [['NOT', 'NOT'], /is not a cloud-conformance JSON report/],
    [['CLEAN', 'CLEAN', '--format', 'xml'], /--format must be terminal, json or markdown/],
  ])('refuses bad input %j with exit 2 and one line', (args, message) => {
    const r = diff(
      ...args.map((a) => (a === 'NOT' ? file('not-a-report.json') : a === 'CLEAN' ? file('clean.json') : a))
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
