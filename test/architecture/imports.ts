// The project's import graph, read with TypeScript's own pre-processor (type-only imports count: a circle of types is
// a circle all the same), and the two rules the layering test holds it to: no circle, and no import upwards.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every .ts and .js source under the given folders (relative to the repository), declaration files left out. */
export function sourcesUnder(...dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.posix.join(dir, e.name);
      // Installed packages and build output (a zoo member's own) are nobody's source.
      if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'build' ? [] : walk(rel);
      return /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
    });
  return dirs.flatMap(walk).sort();
}

/** file → the repository files it imports (relative specifiers only; packages and node: builtins are not edges). */
export type ImportGraph = Map<string, string[]>;

export function importGraph(files: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const deps = info.importedFiles
      .map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
    graph.set(file, [...new Set(deps)]);
  }
  return graph;
}

/** Every import circle (strongly connected set of more than one file, or a file importing itself), by Tarjan. */
export function circles(graph: ImportGraph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/**
 * Imports that go upwards: `orderOf` places a file in an ordered list of layers (undefined: outside them, unjudged);
 * a file may import its own layer and those before it.
 */
export function upwardImports(
  graph: ImportGraph,
  orderOf: (file: string) => number | undefined
): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const [from, deps] of graph) {
    const a = orderOf(from);
    if (a === undefined) continue;
    for (const to of deps) {
      const b = orderOf(to);
      if (b !== undefined && b > a) out.push({ from, to });
    }
  }
  return out;
}

/** The longest chain of imports among `files` (circles counted as one level): how deep a newcomer may have to read. */
export function importLevels(graph: ImportGraph, files: readonly string[]): number {
  const inside = new Set(files);
  const memo = new Map<string, number>();
  const depth = (v: string, seen: Set<string>): number => {
    const known = memo.get(v);
    if (known !== undefined) return known;
    if (seen.has(v)) return 0;
    seen.add(v);
    const below = (graph.get(v) ?? []).filter((w) => inside.has(w)).map((w) => depth(w, seen));
    seen.delete(v);
    const d = 1 + Math.max(0, ...below);
    memo.set(v, d);
    return d;
  };
  return Math.max(0, ...files.map((f) => depth(f, new Set())));
}
