// The k6 scripts load on every k6 from the documented minimum (load/README.md, "k6 versions"). k6 before v0.52
// compiles ES modules with Babel 6, which takes ES2015 (no object spread, `?.`, `??`, `catch {}`); k6 v0.52 and
// v0.53 run them natively but without numeric separators (`60_000`, k6 v0.54). So every file under load/ must
// parse as an ES2015 module, and use no built-in that the JavaScript runtime of k6 v0.38 (goja of 2022-04) lacks; so must
// the engine's documented-limits/ modules, which the scripts import.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import * as acorn from 'acorn';
import { describe, expect, it } from 'vitest';
import { MIN_K6_VERSION } from '../../load/lib/decisions.js';

const loadDir = fileURLToPath(new URL('../../load/', import.meta.url));
const sharedDir = fileURLToPath(new URL('../../src/engine/documented-limits/', import.meta.url));

function scripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return scripts(path);
    return e.name.endsWith('.js') ? [path] : [];
  });
}

/** Members that goja in k6 v0.38 does not have (checked against its vendored sources). */
const ABSENT_IN_K6_0_38 = new Set([
  'fromEntries',
  'replaceAll',
  'at',
  'hasOwn',
  'findLast',
  'findLastIndex',
  'structuredClone',
]);

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

function* walk(node: unknown): Generator<Node> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) yield* walk(n);
    return;
  }
  const n = node as Node;
  if (typeof n.type === 'string') yield n;
  for (const [k, v] of Object.entries(n)) if (k !== 'loc' && v && typeof v === 'object') yield* walk(v);
}

function lineOf(source: string, offset: number): number {
  return source.slice(0, offset).split('\n').length;
}

/** Problems that would stop or break an old k6: a parse error as "file:line: message", then absent built-ins. */
function problems(name: string, source: string): string[] {
  let ast: acorn.Program;
  try {
    ast = acorn.parse(source, { ecmaVersion: 2015, sourceType: 'module', locations: true });
  } catch (err) {
    return [`${name}: ${(err as Error).message}`];
  }
  const out: string[] = [];
  for (const n of walk(ast)) {
    if (n.type === 'MemberExpression' && !n['computed']) {
      const prop = n['property'] as { name?: string };
      if (prop.name && ABSENT_IN_K6_0_38.has(prop.name))
        out.push(`${name}:${lineOf(source, n.start)}: .${prop.name} is not in k6 v0.38`);
    }
    if (n.type === 'Identifier' && n['name'] === 'structuredClone')
      out.push(`${name}:${lineOf(source, n.start)}: structuredClone is not in k6 v0.38`);
    if (n.type === 'Literal' && n['regex'] && /[uy]/.test((n['regex'] as { flags: string }).flags)) {
      out.push(
        `${name}:${lineOf(source, n.start)}: regular expression flags u and y are not needed; keep to plain ES5 regular expressions`
      );
    }
  }
  return out;
}

describe(`k6 scripts load on k6 v${MIN_K6_VERSION} and later`, () => {
  const files = [...scripts(loadDir), ...scripts(sharedDir)];

  it('finds the scripts and their modules', () => {
    expect(files.map((f) => relative(loadDir, f)).sort()).toEqual(
      expect.arrayContaining([
        'pagination.js',
        'rate-limits.js',
        'lib/decisions.js',
        'lib/report.js',
        'lib/flow.js',
        'lib/k6common.js',
        '../src/engine/documented-limits/limits.js',
        '../src/engine/documented-limits/windows.js',
        '../src/engine/documented-limits/retry-after.js',
        '../src/engine/documented-limits/verdicts.js',
      ])
    );
  });

  for (const file of files) {
    it(`${relative(loadDir, file)} is an ES2015 module with no built-in newer than k6 v0.38`, () => {
      expect(problems(relative(loadDir, file), readFileSync(file, 'utf8'))).toEqual([]);
    });
  }

  it('the check catches what k6 0.48 and 0.53 refused', () => {
    const cases: Array<[string, RegExp]> = [
      ['export const o = { ...base, a: 1 };', /Unexpected token/],
      ['export const x = a?.b;', /Unexpected token/],
      ['export const y = a ?? b;', /Unexpected token/],
      ['export const n = 60_000;', /Identifier directly after number/],
      ['try { f(); } catch { g(); }', /Unexpected token/],
      ['export const e = Object.fromEntries([]);', /probe.js:1: .fromEntries is not in k6 v0.38/],
      ['export const r = /x/u;', /flags u and y/],
    ];
    for (const [code, message] of cases) expect(problems('probe.js', code).join('\n'), code).toMatch(message);
  });
});
