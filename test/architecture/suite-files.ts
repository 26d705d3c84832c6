// The rules of suites/ as functions over file names, texts and imports (checks-and-helpers.test.ts holds the tree to
// them; test/scripts/new-check.test.ts holds what the scaffold writes to them).
import path from 'node:path';
import type { ImportGraph } from './imports.ts';

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
