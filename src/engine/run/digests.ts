// sha256 of the documents a run was judged against (the JSON report's digests).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseShippedYaml } from '../../spec/yaml.ts';
import { SPEC_DIR } from '../../spec/load.ts';

/** sha256 of the clause list, the OpenAPI document, and the seed where it is present. */
export interface Digests {
  clauses: string;
  openapi: string;
  seed?: { path: string; sha256: string };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Digests of what the run was judged against: spec/clauses.yaml and spec/openapi.yaml ship with the tool and are
 * always there; the seed document (named in clauses.yaml, relative to the workspace that holds this repository)
 * is digested only where it is present, e.g. in the project's own checkout.
 */
export function specDigests(): Digests {
  const clausesFile = path.join(SPEC_DIR, 'clauses.yaml');
  const digests: Digests = { clauses: sha256(clausesFile), openapi: sha256(path.join(SPEC_DIR, 'openapi.yaml')) };
  try {
    const seedRel = (parseShippedYaml(clausesFile, readFileSync(clausesFile, 'utf8')) as { seed?: string }).seed;
    if (seedRel) {
      const repo = path.dirname(SPEC_DIR);
      const found = [path.resolve(repo, seedRel), path.resolve(repo, '..', seedRel)].find((p) => existsSync(p));
      if (found) digests.seed = { path: seedRel, sha256: sha256(found) };
    }
  } catch {
    // No seed digest: the clause list's digest still pins the statements the run checked.
  }
  return digests;
}
