// `npm run test:quick` stays quick and nothing escapes the choice: every test file is quick or slow by exactly one entry
// of test/quick-and-slow.ts, and no quick file imports what runs the suite, a fault or a process, or starts a target.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { QUICK_TESTS, SLOW_TESTS, underEntry } from '../quick-and-slow.ts';
import { ROOT, sourcesUnder } from './imports.ts';

/** What a quick test may not import: each runs the suite, a fault or a process, or starts a target. */
const SLOW_IMPORTS: Array<[RegExp, string]> = [
  [/^(runAgainstReference|runFor)$/, 'runs the suite against the reference'],
  [/^describeFaults$/, "runs the reference's fault probes"],
  [/^start(Reference\w*|EmbeddedS3|Member)$/, 'starts a target'],
  [/^(runCli|cli|runSuite)$/, 'runs the CLI in a process'],
];

const testFiles = sourcesUnder('test').filter((f) => f.endsWith('.test.ts'));

/** Why a test file is not quick, from its imports (their names as exported, whatever it calls them here). */
function slowImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (/child_process$/.test(st.moduleSpecifier.text)) found.push('imports child_process: it runs a process');
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const el of bindings.elements) {
      const name = (el.propertyName ?? el.name).text;
      for (const [slow, why] of SLOW_IMPORTS) if (slow.test(name)) found.push(`imports ${name}: it ${why}`);
    }
  }
  return found;
}

describe('quick and slow tests (test/quick-and-slow.ts)', () => {
  it('classes every test file by exactly one entry, and every entry classes a file', () => {
    const entries = [...QUICK_TESTS, ...SLOW_TESTS];
    const unclassed = testFiles.filter((f) => entries.filter((e) => underEntry(f, e)).length !== 1);
    expect(unclassed, 'each test file needs exactly one entry in QUICK_TESTS or SLOW_TESTS').toEqual([]);
    expect(entries.filter((e) => !testFiles.some((f) => underEntry(f, e)))).toEqual([]);
  });

  it('keeps every quick test away from suite runs, faults, processes and reference targets', () => {
    const quick = testFiles.filter((f) => QUICK_TESTS.some((e) => underEntry(f, e)));
    const found = quick.flatMap((f) => slowImports(f).map((why) => `${f} ${why}`));
    expect(found, 'move these to SLOW_TESTS, or test the unit without the target').toEqual([]);
  });

  it('starts npm test from measured durations that name test files which exist (npm run test:durations renews them)', () => {
    const measured = JSON.parse(readFileSync(path.join(ROOT, 'test', 'durations.json'), 'utf8')) as Record<
      string,
      number
    >;
    expect(Object.keys(measured).filter((f) => !testFiles.includes(f))).toEqual([]);
    expect(Object.values(measured).every((s) => Number.isInteger(s) && s > 0)).toBe(true);
  });
});
