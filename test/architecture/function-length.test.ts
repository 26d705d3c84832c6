// Entry points a newcomer reads first read as tables of contents: no function of src/ runs past 80 lines, so the
// steps of a run are functions named after them (runSuite, runCommand) rather than one long body.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourcesUnder } from './imports.ts';

const MAX_LINES = 80;

/** Every function, method and arrow function with a body, with the lines it spans. */
export function functionLengths(file: string, text: string): Array<{ where: string; lines: number }> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node)) &&
      node.body
    ) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      const name =
        node.name?.getText() ??
        (node.parent && 'name' in node.parent && node.parent.name
          ? (node.parent.name as ts.Node).getText()
          : '(anonymous)');
      out.push({ where: `${file}:${first + 1} ${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('function length', () => {
  it(`no function of src/ is longer than ${MAX_LINES} lines`, () => {
    const long = sourcesUnder('src')
      .flatMap((f) => functionLengths(f, readFileSync(path.join(ROOT, f), 'utf8')))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('measures a function by the lines it spans', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const x${i} = ${i};`).join('\n');
    expect(
      functionLengths('x.ts', `function long() {\n${body}\n}\nconst short = () => 1;`).map((f) => f.lines)
    ).toEqual([MAX_LINES + 2, 1]);
  });
});
