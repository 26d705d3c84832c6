// The documents that ship with the suite (spec/*.yaml, spec/overlays/*.yaml) are parsed at every run; the YAML
// parser takes about a third of a second for them on a small machine, JSON.parse a few milliseconds. Their parsed
// form is kept as JSON in the derived cache (src/spec/cache.ts), keyed by the text's digest, so an edited file is
// parsed afresh. test/spec/yaml.test.ts proves each shipped document survives the JSON round trip unchanged.
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_ROOT, digestOf, readDerived, writeDerived } from './cache.ts';

// Loaded on first use: a run whose documents all come from the cache never loads the YAML parser.
const require = createRequire(import.meta.url);
export const parseYaml = (text: string): unknown => (require('yaml') as typeof import('yaml')).parse(text);

const entryName = (file: string) => `yaml-${path.relative(PACKAGE_ROOT, path.resolve(file))}`;

/** The parsed form of a shipped YAML document's text, from the cache when it holds this text's digest. */
export function parseShippedYaml(file: string, text: string): unknown {
  const name = entryName(file);
  const key = digestOf(text);
  const cached = readDerived(name, key);
  if (cached) {
    try {
      return JSON.parse(cached.toString('utf8'));
    } catch {
      // A damaged entry: parse again below.
    }
  }
  const parsed = parseYaml(text);
  writeDerived(name, key, JSON.stringify(parsed));
  return parsed;
}
