import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { SPEC_DIR, SHIPPED_OVERLAYS_DIR } from '../../src/spec/load.ts';
import { parseShippedYaml } from '../../src/spec/yaml.ts';
import { DERIVED_CACHE_DIR as YAML_CACHE_DIR } from '../../src/spec/cache.ts';

const shipped = [
  ...readdirSync(SPEC_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(SPEC_DIR, f)),
  ...readdirSync(SHIPPED_OVERLAYS_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(SHIPPED_OVERLAYS_DIR, f)),
];

describe('the parse cache of the shipped YAML documents (src/spec/yaml.ts, src/spec/cache.ts)', () => {
  it('covers the base document, the clause list and every shipped overlay', () => {
    expect(shipped.map((f) => path.relative(SPEC_DIR, f))).toEqual(
      expect.arrayContaining(['openapi.yaml', 'clauses.yaml', path.join('overlays', 'reference.yaml')])
    );
  });

  // The cache holds JSON: a value JSON cannot carry (a date, an infinity, an undefined) would change meaning on the way.
  it.each(shipped.map((f) => [path.relative(SPEC_DIR, f), f]))(
    'keeps %s unchanged through the JSON round trip',
    (_name, file) => {
      const parsed: unknown = parse(readFileSync(file, 'utf8'));
      expect(JSON.parse(JSON.stringify(parsed))).toStrictEqual(parsed);
    }
  );

  it('answers the parse of the text it is given, from the cache on the second call, and afresh for an edited text', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-yaml-'));
    const file = path.join(dir, 'doc.yaml');
    try {
      writeFileSync(file, 'a: 1\n');
      expect(parseShippedYaml(file, 'a: 1\n')).toEqual({ a: 1 });
      const entries = () => readdirSync(YAML_CACHE_DIR).filter((f) => f.includes('doc.yaml-'));
      expect(entries()).toHaveLength(1);
      expect(parseShippedYaml(file, 'a: 1\n')).toEqual({ a: 1 });
      expect(parseShippedYaml(file, 'a: 2\n')).toEqual({ a: 2 });
      // The entry for the old text is gone.
      expect(entries()).toHaveLength(1);
    } finally {
      for (const f of readdirSync(YAML_CACHE_DIR).filter((f) => f.includes('doc.yaml-')))
        rmSync(path.join(YAML_CACHE_DIR, f));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still parses a document when its cache entry is unreadable', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-yaml-'));
    const file = path.join(dir, 'broken.yaml');
    try {
      parseShippedYaml(file, 'b: [1, 2]\n');
      const [entry] = readdirSync(YAML_CACHE_DIR).filter((f) => f.includes('broken.yaml-'));
      writeFileSync(path.join(YAML_CACHE_DIR, entry!), '{not json');
      expect(parseShippedYaml(file, 'b: [1, 2]\n')).toEqual({ b: [1, 2] });
    } finally {
      for (const f of readdirSync(YAML_CACHE_DIR).filter((f) => f.includes('broken.yaml-')))
        rmSync(path.join(YAML_CACHE_DIR, f));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
