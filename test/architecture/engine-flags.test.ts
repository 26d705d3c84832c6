// The engine knows no flag of the CLI: a hint that names an input names it as the front end that started the run gives
// it (RunConfig's `names`, from the CLI's option table), so a flag is renamed in one place, and the engine could be
// started by something else. Comments may name flags (they explain); the strings the engine builds may not.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourcesUnder } from './imports.ts';
import { RUN_FLAGS } from '../../src/cli/options.ts';

/** Every piece of literal text in a source file: string literals and the fixed parts of template literals. */
function literalTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A flag of run's table as written in text: `--read-only`, not `--read-only-ish` nor a curl option like `--cacert`. */
const flag = new RegExp(`(^|[^-\\w])--(${Object.keys(RUN_FLAGS).join('|')})(?![\\w-])`);

describe('the engine names no CLI flag', () => {
  it("no string the engine builds holds a flag of run's table", () => {
    const found = sourcesUnder('src/engine').flatMap((f) =>
      literalTexts(f).flatMap((text) => (flag.test(text) ? [`${f}: ${JSON.stringify(text)}`] : []))
    );
    expect(found).toEqual([]);
  });

  it('the rule sees a flag where one is written', () => {
    expect(flag.test('a run without --read-only')).toBe(true);
    expect(flag.test('curl -sS --cacert ca.pem --data-raw')).toBe(false);
  });
});
