// One check per file, helpers marked apart: in suites/<group>/, a file is the group's index, a check (one `Check`,
// registered by the index), or a helper whose name starts with `_` and which defines no check; nothing outside the
// group imports its helpers (what another group or the CLI needs goes to suites/*.ts or the group's index.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, importGraph, sourcesUnder, type ImportGraph } from './imports.ts';

interface Misplaced {
  file: string;
  why: string;
}

/** What is out of place among one group's files, given each file's name and text. */
export function misplacedFiles(group: ReadonlyArray<{ file: string; text: string }>): Misplaced[] {
  const index = group.find((f) => path.posix.basename(f.file) === 'index.ts');
  const found: Misplaced[] = [];
  for (const { file, text } of group) {
    const name = path.posix.basename(file);
    if (name === 'index.ts') continue;
    const checks = (text.match(/^export const \w+: Check = \{/gm) ?? []).length;
    const helper = name.startsWith('_');
    if (helper && checks > 0) found.push({ file, why: `a helper (named _…) defines ${checks} check(s)` });
    if (!helper && checks !== 1)
      found.push({
        file,
        why: checks === 0 ? 'defines no check: a helper is named _…' : `defines ${checks} checks: one per file`,
      });
    if (!helper && checks === 1 && !index?.text.includes(`'./${name}'`))
      found.push({ file, why: "its check is not registered in the group's index.ts" });
  }
  return found;
}

const groups = [
  ...new Set(
    sourcesUnder('suites')
      .filter((f) => f.split('/').length === 3)
      .map((f) => f.split('/')[1]!)
  ),
];

describe('suites/: one check per file, helpers marked apart', () => {
  it.each(groups)('suites/%s/', (group) => {
    const files = sourcesUnder(`suites/${group}`).map((file) => ({
      file,
      text: readFileSync(path.join(ROOT, file), 'utf8'),
    }));
    expect(misplacedFiles(files)).toEqual([]);
  });

  it('a helper without the mark, a marked file with a check, two checks in a file and an unregistered check are found', () => {
    const check = (n: string) => `export const ${n}: Check = {\n};\n`;
    const found = misplacedFiles([
      { file: 'suites/g/index.ts', text: "import { a } from './a.ts';\nimport { b } from './b.ts';" },
      { file: 'suites/g/a.ts', text: check('a') },
      { file: 'suites/g/b.ts', text: check('b') + check('b2') },
      { file: 'suites/g/helper.ts', text: 'export function h() {}' },
      { file: 'suites/g/_marked.ts', text: check('m') },
      { file: 'suites/g/lost.ts', text: check('l') },
    ]);
    expect(found.map((f) => f.file)).toEqual([
      'suites/g/b.ts',
      'suites/g/helper.ts',
      'suites/g/_marked.ts',
      'suites/g/lost.ts',
    ]);
  });
});

/** Imports of a group's `_` helper (suites/<group>/_*.ts) from a file outside that group's folder. */
export function foreignHelperImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [from, deps] of graph)
    for (const to of deps) {
      const group = /^suites\/([^/]+)\/_[^/]+$/.exec(to)?.[1];
      if (group && !from.startsWith(`suites/${group}/`)) found.push(`${from} → ${to}`);
    }
  return found;
}

describe("a group's `_` helpers are its own", () => {
  // test/ is left out on purpose: a helper's unit test (test/suite/sweeps.test.ts, test/s3/s3.test.ts...) pins the
  // helper itself without a target, and changes in the same commit as the helper; nothing that ships depends on it.
  it('nothing in src/, suites/ (another group), scripts/, load/, bin/ or fixtures/ imports one', () => {
    const graph = importGraph(sourcesUnder('src', 'suites', 'scripts', 'load', 'bin', 'fixtures'));
    expect(foreignHelperImports(graph)).toEqual([]);
  });

  it("an import from another group or from src/ is found; one from the helper's own group is not", () => {
    const graph: ImportGraph = new Map([
      ['suites/g/check.ts', ['suites/g/_helper.ts', 'suites/support.ts']],
      ['suites/h/other.ts', ['suites/g/_helper.ts', 'suites/g/index.ts']],
      ['src/cli/run.ts', ['suites/g/_helper.ts']],
    ]);
    expect(foreignHelperImports(graph)).toEqual([
      'suites/h/other.ts → suites/g/_helper.ts',
      'src/cli/run.ts → suites/g/_helper.ts',
    ]);
  });
});
