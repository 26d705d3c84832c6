import { readFile } from 'node:fs/promises';
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
