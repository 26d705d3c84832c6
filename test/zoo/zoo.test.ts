// The zoo's contract and what its runs mean (scripts/zoo/): a member prints one settings line and lists its own fault
// catalogue; a clean member judged with any failure or warning is a false verdict; a fault is caught when the verdict
// turns as its level says; a miss points at the checks that cite the clause it breaks.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { listMembers, parseCatalogue, parseSettings, readCatalogue } from '../../scripts/zoo/members.ts';
import {
  caught,
  judgeClean,
  killRates,
  nearestClause,
  parseDiagnoses,
  parseKinds,
  type ClauseRef,
} from '../../scripts/zoo/verdicts.ts';
import type { SuiteRun } from '../../scripts/zoo/suite-run.ts';

const settings = {
  baseUrl: 'http://127.0.0.1:8080',
  apiKey: 'k1',
  apiKeyB: 'k2',
  apiKeyReadonly: 'k3',
  image: 'ubuntu',
  subnetId: 's1',
  subnetIdB: 's2',
};
const run = (checks: Array<[string, string]>, verdict = 'conformant'): SuiteRun => ({
  exitCode: 0,
  verdict,
  checks: checks.map(([id, status]) => ({ id, level: 'must', status, message: `${id} ${status}` })),
  notVerified: [],
  wallMs: 1,
});

describe('the member contract', () => {
  it('reads the settings line, and names what a line that breaks it lacks', () => {
    expect(parseSettings('m', JSON.stringify({ ...settings, extra: 1 }))).toEqual(settings);
    expect(() => parseSettings('m', JSON.stringify({ ...settings, subnetIdB: '' }))).toThrow(
      /m: its settings line lacks subnetIdB/
    );
    expect(() => parseSettings('m', 'listening on 8080')).toThrow(/not JSON/);
    expect(() => parseSettings('m', JSON.stringify({ ...settings, baseUrl: 'http://10.0.0.1:80' }))).toThrow(
      /not on this machine's loopback/
    );
  });

  it('reads a catalogue of JSON Lines, each with a name, a level and the clause it breaks', () => {
    const line = { name: 'f', level: 'MUST', clause: 'Every error response carries a JSON object', description: 'd' };
    expect(parseCatalogue('m', `${JSON.stringify(line)}\n\n`)).toEqual([line]);
    expect(() => parseCatalogue('m', JSON.stringify({ ...line, level: 'MAY' }))).toThrow(/breaks the contract/);
  });

  it('has at least three members, each with 30 or more faults of its own, 24 of them MUST, each quoting the seed', async () => {
    const members = listMembers();
    const kinds = parseKinds(readFileSync('scripts/zoo/kinds.yaml', 'utf8'));
    expect(members.length).toBeGreaterThanOrEqual(3);
    const seed = readFileSync(path.resolve('spec/seed/000_e5e171e8c451466f.txt'), 'utf8').replace(/\s+/g, ' ');
    for (const m of members) {
      const faults = await readCatalogue(m);
      expect(faults.length, m).toBeGreaterThanOrEqual(30);
      expect(faults.filter((f) => f.level === 'MUST').length, m).toBeGreaterThanOrEqual(24);
      expect(new Set(faults.map((f) => f.name)).size, m).toBe(faults.length);
      // A MUST fault breaks something the seed states: its author quoted a sentence of it.
      const unquoted = faults.filter(
        (f) => f.level === 'MUST' && !seed.includes(f.clause.replace(/\s+/g, ' ').replace(/^"|"$/g, '').slice(0, 40))
      );
      expect(
        unquoted.map((f) => f.name),
        m
      ).toEqual([]);
      // Every fault is classified once: seed-reachable, declared or unobservable (scripts/zoo/kinds.yaml).
      expect([...(kinds.get(m)?.keys() ?? [])].sort(), m).toEqual(faults.map((f) => f.name).sort());
    }
  }, 600_000);
});

describe('what a zoo run means', () => {
  it('a clean member with a failure, a warning or an error is a false verdict; skips with a reason are not', () => {
    expect(
      judgeClean(
        run([
          ['a', 'passed'],
          ['b', 'skipped'],
        ]),
        'quick'
      )
    ).toMatchObject({ clean: true, problems: [] });
    expect(judgeClean(run([['a', 'warning']]), 'full').problems).toEqual(['warning a: a warning']);
    expect(judgeClean(run([['a', 'failed']], 'nonconformant'), 'quick').problems).toEqual([
      'failed a: a failed',
      'verdict nonconformant',
    ]);
    expect(judgeClean({ ...run([], 'error'), error: 'target unreachable' }, 'certify').problems).toEqual([
      'the run could not start: target unreachable',
    ]);
    expect(judgeClean(run([], 'incomplete'), 'certify').clean).toBe(true);
  });

  it('a MUST fault is caught by a failure, a SHOULD fault by a failure or a warning', () => {
    const must = { name: 'f', level: 'MUST' as const, clause: '', description: '' };
    expect(caught(must, run([['a', 'warning']]))).toEqual({ caught: false, by: [] });
    expect(caught(must, run([['a', 'failed']]))).toEqual({ caught: true, by: ['a'] });
    expect(caught({ ...must, level: 'SHOULD' }, run([['a', 'warning']]))).toEqual({ caught: true, by: ['a'] });
  });

  it('a check that already failed or warned on the clean member catches nothing: its finding was there before the fault', () => {
    const must = { name: 'f', level: 'MUST' as const, clause: '', description: '' };
    const clean = run([
      ['a', 'failed'],
      ['b', 'warning'],
    ]);
    expect(caught(must, run([['a', 'failed']]), clean)).toEqual({ caught: false, by: [] });
    expect(
      caught(
        must,
        run([
          ['a', 'failed'],
          ['c', 'failed'],
        ]),
        clean
      )
    ).toEqual({ caught: true, by: ['c'] });
    expect(caught({ ...must, level: 'SHOULD' }, run([['b', 'warning']]), clean)).toEqual({ caught: false, by: [] });
  });

  it('reads how each fault is reached, and counts kills per level and kind', () => {
    const kinds = parseKinds(
      'm:\n  a: seed\n  b: { kind: declared, needs: audit search }\n  c: { kind: unobservable, why: x }\n'
    );
    expect(kinds.get('m')?.get('b')).toEqual({ kind: 'declared', because: 'audit search' });
    expect(() => parseKinds('m:\n  a: maybe\n')).toThrow(/kind must be seed, declared or unobservable/);
    const must = { name: 'f', level: 'MUST' as const, clause: '', description: '' };
    expect(
      killRates([
        { fault: must, kind: 'seed', caughtIn: 'quick' },
        { fault: must, kind: 'seed' },
        { fault: { ...must, level: 'SHOULD' }, kind: 'declared', caughtIn: 'certify' },
      ])
    ).toEqual({ 'MUST seed': { caught: 1, of: 2 }, 'SHOULD declared': { caught: 1, of: 1 } });
    expect(() => parseDiagnoses('m:\n  f: { class: 4 }\n')).toThrow(/needs class and why/);
  });

  it('points a miss at the clause of spec/clauses.yaml nearest the sentence its author quoted', () => {
    const clauses = (YAML.parse(readFileSync('spec/clauses.yaml', 'utf8')) as { clauses: ClauseRef[] }).clauses;
    expect(
      nearestClause(
        'Every error response carries a JSON object of the form error with code and message (see part 2).',
        clauses
      )?.id
    ).toMatch(/^ERROR/);
    expect(nearestClause('Token issuance | 10 per minute per API key', clauses)?.id).toBe('LIMIT-TOKEN-10');
    expect(nearestClause('zzz qqq', clauses)).toBeUndefined();
  });
});
