// load/lib/*.d.ts are generated from the JSDoc-typed load/lib/*.js modules, so the project's TypeScript (which
// does not check JavaScript) can type the tests' imports. This fails when they drift; regenerate with
//   UPDATE_LOAD_DTS=1 npx vitest run test/load/dts.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MODULES = ['verdicts.js', 'report.js', 'flow.js'];
const libDir = fileURLToPath(new URL('../../load/lib/', import.meta.url));

function header(js: string): string {
  return `// Generated from ${js} by test/load/dts.test.ts (UPDATE_LOAD_DTS=1 npx vitest run test/load/dts.test.ts); do not edit.\n`;
}

function generate(): Record<string, string> {
  const out: Record<string, string> = {};
  const program = ts.createProgram(MODULES.map((m) => libDir + m), {
    allowJs: true,
    declaration: true,
    emitDeclarationOnly: true,
    outDir: '/virtual-dts',
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2020,
    strict: true,
    skipLibCheck: true,
    types: [],
  });
  const result = program.emit(undefined, (file, text) => {
    const js = basename(file).replace(/\.d\.ts$/, '.js');
    if (MODULES.includes(js)) out[js] = header(js) + text;
  });
  expect(result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  return out;
}

describe('load/lib declarations', () => {
  it('match the JavaScript modules they are generated from', () => {
    const generated = generate();
    expect(Object.keys(generated).sort()).toEqual([...MODULES].sort());
    for (const [js, text] of Object.entries(generated)) {
      const path = libDir + js.replace(/\.js$/, '.d.ts');
      if (process.env['UPDATE_LOAD_DTS'] === '1') writeFileSync(path, text);
      expect(readFileSync(path, 'utf8'), `${path} is stale: regenerate it`).toBe(text);
    }
  }, 60_000);
});
