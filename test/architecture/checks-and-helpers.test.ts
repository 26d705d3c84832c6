// One check per file, helpers marked apart: in suites/<group>/, a file is the group's index, a check (one `Check`,
// registered by the index), or a helper whose name starts with `_` and which defines no check; nothing outside the
// group imports its helpers (what another group or the CLI needs goes to suites/*.ts or the group's index.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, importGraph, sourcesUnder, type ImportGraph } from './imports.ts';
import { foreignHelperImports, misplacedFiles } from './suite-files.ts';

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
