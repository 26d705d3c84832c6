import { describe, it, expect, beforeAll } from 'vitest';
import { renderJunit } from '../../src/report/junit.ts';
import type { RunReport } from '../../src/engine/run/report.ts';
import { runAgainstReference } from '../helpers.ts';
import { all, parseXml, type XmlElement } from './xml.ts';

describe('the JUnit report', () => {
  let report: RunReport;
  let doc: XmlElement;

  beforeAll(async () => {
    // One must fault (a failure) and one should fault (a warning), so every kind of testcase is there.
    report = await runAgainstReference({ only: ['auth', 'errors'], faults: ['token-ttl-7200', 'unauthenticated-403'] });
    doc = parseXml(renderJunit(report));
  });

  it('is well-formed XML with one testcase per check, named with its level and clause ids', () => {
    expect(doc.name).toBe('testsuites');
    expect(Number(doc.attrs['tests'])).toBe(report.checks.length);
    const cases = all(doc, 'testcase');
    expect(cases.length).toBe(report.checks.length);
    for (const [i, c] of report.checks.entries()) {
      const name = cases[i]!.attrs['name']!;
      expect(name.startsWith(c.id)).toBe(true);
      expect(name).toContain(`[${c.level.toUpperCase()}]`);
      for (const clause of c.clauses) expect(name).toContain(clause);
      expect(cases[i]!.attrs['classname']).toBe(`cloud-conformance.${c.group}`);
    }
    for (const suite of all(doc, 'testsuite'))
      expect(Number(suite.attrs['tests'])).toBe(suite.children.filter((c) => c.name === 'testcase').length);
  });

  it('gives each suite the domains of the clauses its checks hold: what was exercised, what was left', () => {
    const auth = all(doc, 'testsuite').find((s) => s.attrs['name'] === 'auth')!;
    const out = auth.children.filter((c) => c.name === 'system-out');
    expect(out.length).toBe(1);
    expect(out[0]!.text).toMatch(/^domain of AUTH-BEARER-REQUIRED: operations \d+\/\d+/m);
    const bearer = report.coverage!.domains!.find((d) => d.clause === 'AUTH-BEARER-REQUIRED')!;
    expect(out[0]!.text).toContain(
      `domain of AUTH-BEARER-REQUIRED: operations ${bearer.exercised.operations!.length}/${bearer.domain.operations!.length}`
    );
  });

  it('gives each failed check a failure carrying its message and evidence, and counts them', () => {
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toContain('auth.token-shape');
    const failures = all(doc, 'failure');
    expect(failures.length).toBe(failed.length);
    expect(Number(doc.attrs['failures'])).toBe(failed.length);
    const tokenShape = all(doc, 'testcase').find((t) => t.attrs['name']!.startsWith('auth.token-shape '))!;
    const failure = tokenShape.children.find((c) => c.name === 'failure')!;
    expect(failure.attrs['message']).toBe(report.checks.find((c) => c.id === 'auth.token-shape')!.message);
    expect(failure.attrs['type']).toBe('must');
    expect(failure.text).toContain('curl');
  });

  it('reports a should-level failure as a passing testcase with its warning, and skips as skipped', () => {
    const warned = all(doc, 'testcase').find((t) => t.attrs['name']!.startsWith('auth.unauthenticated-status '))!;
    expect(warned.children.map((c) => c.name)).toEqual(['system-out']);
    expect(warned.children[0]!.text).toMatch(/^WARNING \(should\): /);
    const skipped = report.checks.filter((c) => c.status === 'skipped');
    expect(all(doc, 'skipped').length).toBe(skipped.length);
  });

  it('writes a failure the expectations file lists as skipped, with "expected:", its reason and the finding, and does not count it', () => {
    const checks = report.checks.map((c) =>
      c.id === 'auth.token-shape'
        ? { ...c, expected: { reason: 'known: TTL config', reference: 'https://tracker.example/7' } }
        : c
    );
    const el = parseXml(renderJunit({ ...report, checks }));
    const tokenShape = all(el, 'testcase').find((t) => t.attrs['name']!.startsWith('auth.token-shape '))!;
    expect(tokenShape.children.map((c) => c.name)).toEqual(['skipped']);
    expect(tokenShape.children[0]!.attrs['message']).toMatch(
      /^expected: known: TTL config \(https:\/\/tracker\.example\/7\): FAILED /
    );
    expect(Number(el.attrs['failures'])).toBe(report.checks.filter((c) => c.status === 'failed').length - 1);
  });

  it('escapes what it takes from the report', () => {
    const hostile = `a<b>&"'\u0001]]>`;
    const r = {
      ...report,
      checks: [{ ...report.checks[0]!, id: hostile, status: 'failed' as const, message: hostile, clauses: [hostile] }],
    };
    const el = parseXml(renderJunit(r));
    const tc = all(el, 'testcase')[0]!;
    expect(tc.attrs['name']).toContain('a<b>&"\']]>');
    expect(tc.children[0]!.attrs['message']).toBe('a<b>&"\']]>');
  });
});
