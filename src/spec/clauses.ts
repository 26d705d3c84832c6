import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SPEC_DIR } from './load.ts';

export interface Clause {
  id: string;
  section: string;
  text: string;
  checkable?: false;
  reason?: string;
  deferred?: { issue: number; group: string };
}

export interface UnshownItem {
  id: string;
  section: string;
  text: string;
}

export interface ClauseList {
  seed: string;
  clauses: Clause[];
  unshown: UnshownItem[];
}

export async function loadClauses(): Promise<ClauseList> {
  const text = await readFile(path.join(SPEC_DIR, 'clauses.yaml'), 'utf8');
  return parseYaml(text) as ClauseList;
}

/** The same, synchronously (for renderers, which are plain functions of the report). */
export function loadClausesSync(): ClauseList {
  return parseYaml(readFileSync(path.join(SPEC_DIR, 'clauses.yaml'), 'utf8')) as ClauseList;
}
