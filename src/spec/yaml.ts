// The documents that ship with the suite (spec/*.yaml, spec/overlays/*.yaml) are parsed at every run; the YAML
// parser takes about a third of a second for them on a small machine, JSON.parse a few milliseconds. Their parsed
// form is kept as JSON under node_modules/.cache, keyed by the text's digest, so an edited file is parsed afresh.
// test/spec/yaml.test.ts proves each shipped document survives the JSON round trip unchanged.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const YAML_CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'cloud-conformance', 'yaml');

/** The parsed form of a shipped YAML document's text, from the cache when it holds this text's digest. */
export function parseShippedYaml(file: string, text: string): unknown {
  const stem = path.relative(ROOT, path.resolve(file)).replace(/[^A-Za-z0-9.-]/g, '_');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cached = path.join(YAML_CACHE_DIR, `${stem}-${digest}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    // Not cached yet (or unreadable): parse, and keep the result for the next run if the cache can be written.
  }
  const parsed: unknown = parseYaml(text);
  try {
    mkdirSync(YAML_CACHE_DIR, { recursive: true });
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(parsed));
    renameSync(tmp, cached);
    // Earlier versions of the same file.
    for (const old of readdirSync(YAML_CACHE_DIR)) if (old.startsWith(`${stem}-`) && old !== path.basename(cached) && old.endsWith('.json')) rmSync(path.join(YAML_CACHE_DIR, old), { force: true });
  } catch {
    // A read-only install: every run parses, as before.
  }
  return parsed;
}

/** A shipped YAML document read from disk and parsed (through the cache). */
export function readShippedYaml(file: string): unknown {
  return parseShippedYaml(file, readFileSync(file, 'utf8'));
}
