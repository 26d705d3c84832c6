import { describe, it, expect } from 'vitest';
import type { Check, CheckOutcome } from '../../src/engine/run/check.ts';
import { judge, finding, pass, fail, failAt, skip, warn, undeclared } from '../../src/engine/run/check.ts';
import { computeCoverage, isIncomplete } from '../../src/engine/run/coverage.ts';
import {
  verdictOf,
  EXIT_CODES,
  clauseCounts,
  levelShown,
  notVerifiedByClause,
  type CheckReport,
} from '../../src/engine/run/report.ts';
import { toReport } from '../../src/engine/run/runner.ts';
import type { ClauseList } from '../../src/spec/clauses.ts';

const check = (id: string, clauses: string[], level: Check['level'] = 'must'): Check => ({
  id,
  group: id.split('.')[0]!,
  clauses,
  level,
  why: { [level]: 'test' },
  title: id,
  run: async () => pass('ok'),
});
const report = (c: Check, outcome: CheckOutcome | { status: 'error'; message: string }): CheckReport =>
  toReport(c, outcome, 1, 1);

const clauses: ClauseList = {
  seed: 'seed',
  clauses: [
    { id: 'A', section: '1', text: 'a' },
    { id: 'B', section: '1', text: 'b' },
    { id: 'Q', section: '7', text: 'quota', conditional: 'reached only within the create budget' },
    { id: 'N', section: '1', text: 'n', checkable: false, reason: 'console only' },
  ],
  unshown: [{ id: 'U-X', section: '4', text: 'x' }],
};

describe('each assertion at its own level', () => {
  const mixed = check('vms.mixed', ['A']);
  it('a must check whose only failed assertion is a should one is a warning', () => {
    const r = report(mixed, judge([finding('should', 'accepted a word for an integer')], 'fine'));
    expect(r.status).toBe('warning');
    expect(r.findings).toEqual([expect.objectContaining({ level: 'should' })]);
  });
  it('a must failure leads and the should finding travels with it', () => {
    const r = report(mixed, judge([finding('should', 'lenient'), finding('must', '500 on a string')], 'fine'));
    expect(r.status).toBe('failed');
    expect(r.message).toBe('500 on a string');
    expect(r.findings!.map((f) => f.level)).toEqual(['must', 'should']);
  });
  it('warn() in a must check warns; fail() fails at the check level', () => {
    expect(report(mixed, warn('convention', [])).status).toBe('warning');
    expect(report(mixed, fail('seed', [])).status).toBe('failed');
    expect(report(check('x.should', ['A'], 'should'), fail('convention', [])).status).toBe('warning');
  });
  it("a failAt('declared') in a must check fails at declared: the check's level and the finding's are two fields", () => {
    const r = report(mixed, failAt('declared', 'the declared task link is missing', []));
    expect(r).toMatchObject({ status: 'failed', level: 'must', checkLevel: 'must', failedAt: 'declared' });
    expect(levelShown(r)).toBe('declared');
    expect(levelShown(report(mixed, warn('convention', [])))).toBe('should');
    expect(levelShown(report(mixed, pass('ok')))).toBe('must');
  });
});

describe('coverage: what the run proved', () => {
  const a1 = check('g.a1', ['A']);
  const a2 = check('g.a2', ['A']);
  const b = check('g.b', ['B']);
  const bShould = check('g.b-should', ['B'], 'should');
  const q = check('g.q', ['Q']);
  const ux = check('g.ux', ['U-X'], 'declared');
  const all = [a1, a2, b, bShould, q, ux];

  it('verifies a clause only when every must check citing it decided', () => {
    const cov = computeCoverage(
      clauses,
      all,
      [
        report(a1, pass('ok')),
        report(a2, skip('list too short', '--profile certify')),
        report(b, fail('no', [])),
        report(bShould, skip('n/a')),
        report(q, pass('ok')),
      ],
      { overlay: false }
    );
    expect(cov.verified.sort()).toEqual(['B', 'Q']);
    expect(cov.notVerified).toEqual([
      { clause: 'A', check: 'g.a2', reason: 'list too short', howToVerify: '--profile certify', blocking: true },
    ]);
    expect(isIncomplete(cov)).toBe(true);
    // B was decided against the target: counted failed, never verified.
    expect(cov.failed).toEqual(['B']);
    expect(clauseCounts(cov)).toEqual({
      total: 3,
      verified: 1,
      failed: 1,
      notVerified: 1,
      words: '1 of 3 clauses verified, 1 failed, 1 not verified',
    });
  });

  it('lists each clause not verified once, its checks with the same reason together, and the groups left out', () => {
    const s3 = (check: string, clause: string) => ({
      clause,
      check,
      reason: 'no S3 endpoint',
      howToVerify: '--s3-url URL',
      blocking: true,
    });
    const byClause = notVerifiedByClause({
      verified: [],
      notVerified: [
        s3('s3.put', 'S3-PUT'),
        s3('s3.get', 'S3-PUT'),
        s3('s3.put', 'S3-GET'),
        { ...s3('vms.create', 'VM-CREATE'), reason: 'group vms was not selected' },
      ],
    });
    expect(byClause.clauses).toEqual([
      {
        clause: 'S3-PUT',
        blocking: true,
        reasons: [{ checks: ['s3.put', 's3.get'], reason: 'no S3 endpoint', howToVerify: '--s3-url URL' }],
      },
      {
        clause: 'S3-GET',
        blocking: true,
        reasons: [{ checks: ['s3.put'], reason: 'no S3 endpoint', howToVerify: '--s3-url URL' }],
      },
    ]);
    expect(byClause.unselected).toEqual([{ group: 'vms', clauses: 1 }]);
  });

  it('names the group that was not selected, and the error that stopped a check', () => {
    const cov = computeCoverage(
      clauses,
      all,
      [report(a1, { status: 'error', message: 'token refused (429)' }), report(q, pass('ok'))],
      { overlay: false, only: ['g'] }
    );
    expect(cov.notVerified.find((n) => n.check === 'g.a1')!.reason).toMatch(/could not run: token refused/);
  });

  it('lists a conditional clause it could not show without making the run incomplete', () => {
    const cov = computeCoverage(
      clauses,
      all,
      [
        report(a1, pass('ok')),
        report(a2, pass('ok')),
        report(b, pass('ok')),
        report(q, skip('the quota was not reached within --max-creates 150')),
      ],
      { overlay: false }
    );
    expect(cov.notVerified).toEqual([expect.objectContaining({ clause: 'Q', blocking: false })]);
    expect(isIncomplete(cov)).toBe(false);
  });

  it('holds a MUST clause by its must checks; one no must check can observe, by the declared checks that observe it through the overlay', () => {
    const declaredA = check('g.declared-a', ['A'], 'declared');
    const onlyDeclared = check('g.only-declared', ['B'], 'declared');
    const reports = [
      report(a1, pass('ok')),
      report(declaredA, skip('no overlay declares it', '--overlay FILE')),
      report(onlyDeclared, skip('no overlay declares it', '--overlay FILE')),
    ];
    const cov = computeCoverage(clauses, [a1, declaredA, onlyDeclared], reports, { overlay: false });
    expect(cov.verified).toContain('A');
    expect(cov.notVerified).toEqual([
      expect.objectContaining({ clause: 'B', check: 'g.only-declared', howToVerify: '--overlay FILE' }),
    ]);
  });

  it('does not hold an unshown item to a design the overlay does not declare (undeclared), but keeps a MUST clause open', () => {
    const onlyDeclared = check('g.only-declared', ['B', 'U-X'], 'declared');
    const reports = [report(onlyDeclared, undeclared('the overlay declares no test event', 'declare it in --overlay'))];
    const cov = computeCoverage(clauses, [onlyDeclared], reports, { overlay: true });
    expect(cov.notVerified.map((n) => n.clause)).toEqual(['B']);
  });

  it('holds declared unshown items only when an overlay is given', () => {
    const reports = [report(ux, skip('no overlay', '--overlay FILE'))];
    expect(computeCoverage(clauses, [ux], reports, { overlay: false }).notVerified).toEqual([]);
    expect(computeCoverage(clauses, [ux], reports, { overlay: true }).notVerified.map((n) => n.clause)).toEqual([
      'U-X',
    ]);
  });
});

describe('the verdict and its exit code', () => {
  const c = check('g.c', ['A']);
  it('is nonconformant (exit 1) whenever a must assertion failed, even beside a check that could not run', () => {
    const v = verdictOf(
      [report(c, fail('no', [])), report(check('g.d', ['B']), { status: 'error', message: 'boom' })],
      { incompleteCoverage: true, requireComplete: true }
    );
    expect(v).toBe('nonconformant');
    expect(EXIT_CODES[v]).toBe(1);
  });
  it('is incomplete (exit 3) when a check could not run and nothing failed', () => {
    const v = verdictOf([report(c, pass('ok')), report(check('g.d', ['B']), { status: 'error', message: 'boom' })], {
      incompleteCoverage: false,
      requireComplete: false,
    });
    expect(v).toBe('incomplete');
    expect(EXIT_CODES[v]).toBe(3);
  });
  it('is incomplete when completeness is required and a MUST clause is not verified, conformant otherwise', () => {
    expect(verdictOf([report(c, skip('x'))], { incompleteCoverage: true, requireComplete: true })).toBe('incomplete');
    expect(verdictOf([report(c, skip('x'))], { incompleteCoverage: true, requireComplete: false })).toBe('conformant');
    expect(EXIT_CODES.conformant).toBe(0);
    expect(EXIT_CODES.error).toBe(2);
  });
  it('counts a clause verified on part of its domain (the rest within reach) as not verified whole: incomplete under certify', () => {
    const whole = { verified: ['A'], notVerified: [] };
    expect(isIncomplete(whole)).toBe(false);
    expect(isIncomplete({ ...whole, partlyVerified: [] })).toBe(false);
    const partly = { ...whole, partlyVerified: ['A'] };
    expect(isIncomplete(partly)).toBe(true);
    expect(
      verdictOf([report(c, pass('ok'))], { incompleteCoverage: isIncomplete(partly), requireComplete: true })
    ).toBe('incomplete');
    expect(
      verdictOf([report(c, pass('ok'))], { incompleteCoverage: isIncomplete(partly), requireComplete: false })
    ).toBe('conformant');
  });
});
