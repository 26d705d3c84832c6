import { describe, it, expect } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_OVERLAYS_DIR, deriveSpec, loadSpec } from '../../src/spec/load.ts';
import { DERIVED_CACHE_DIR, readDerived, writeDerived } from '../../src/spec/cache.ts';
import { REFERENCE_OVERLAY } from '../helpers.ts';

const shippedOverlays = readdirSync(SHIPPED_OVERLAYS_DIR).filter((f) => f.endsWith('.yaml'));
const entriesOf = (overlay: string) =>
  readdirSync(DERIVED_CACHE_DIR).filter((f) => f.startsWith(`spec-${overlay}-`) && !f.endsWith('.tmp'));

describe('the derived cache of the shipped documents (src/spec/load.ts, src/spec/cache.ts)', () => {
  it('gives the base alone as derived afresh, with merged the same object as base', async () => {
    await loadSpec();
    const cached = await loadSpec();
    expect(cached.merged).toBe(cached.base);
    expect(cached.base).toStrictEqual((await deriveSpec()).base);
    expect(cached).toMatchObject({ overlayActions: 0, shipped: true });
  });

  it.each(shippedOverlays)('gives base + the shipped overlay %s as derived afresh', async (file) => {
    const overlayPath = path.join(SHIPPED_OVERLAYS_DIR, file);
    await loadSpec(overlayPath);
    expect(entriesOf(file)).toHaveLength(1);
    const cached = await loadSpec(overlayPath);
    const fresh = await deriveSpec(overlayPath);
    expect(cached.base).toStrictEqual(fresh.base);
    expect(cached.merged).toStrictEqual(fresh.merged);
    expect(cached).toMatchObject({ overlayPath, overlayActions: fresh.overlayActions, shipped: true });
    expect(cached.overlayActions).toBeGreaterThan(0);
  });

  // The dereferenced document shares the object of a $ref resolved in several places; the cache keeps that sharing.
  it('keeps the sharing of a resolved $ref', async () => {
    const fresh = await deriveSpec(REFERENCE_OVERLAY);
    const cached = await loadSpec(REFERENCE_OVERLAY);
    const schemas = (doc: typeof fresh.merged) =>
      Object.values(doc.paths ?? {}).flatMap((item) =>
        Object.values(
          item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>
        ).flatMap((op) =>
          Object.values(op?.responses ?? {})
            .map((r) => r.content?.['application/json']?.schema)
            .filter((s): s is object => !!s)
        )
      );
    expect(new Set(schemas(cached.merged)).size).toBe(new Set(schemas(fresh.merged)).size);
    expect(new Set(schemas(cached.merged)).size).toBeLessThan(schemas(cached.merged).length);
  });

  it('derives again when the entry is damaged', async () => {
    await loadSpec(REFERENCE_OVERLAY);
    const [entry] = entriesOf(path.basename(REFERENCE_OVERLAY));
    writeFileSync(path.join(DERIVED_CACHE_DIR, entry!), 'not a serialized spec');
    const loaded = await loadSpec(REFERENCE_OVERLAY);
    expect(loaded.merged).toStrictEqual((await deriveSpec(REFERENCE_OVERLAY)).merged);
  });
});

describe('CONFORMANCE_NO_CACHE=1', () => {
  it('derives everything afresh and keeps nothing', async () => {
    const saved = process.env.CONFORMANCE_NO_CACHE;
    process.env.CONFORMANCE_NO_CACHE = '1';
    try {
      expect(readDerived(`spec-${path.basename(REFERENCE_OVERLAY)}`, 'any')).toBeUndefined();
      writeDerived('cc-test-never-kept', '0', 'x');
      expect(readdirSync(DERIVED_CACHE_DIR).filter((f) => f.startsWith('cc-test-never-kept'))).toEqual([]);
      const loaded = await loadSpec(REFERENCE_OVERLAY);
      expect(loaded.merged).toStrictEqual((await deriveSpec(REFERENCE_OVERLAY)).merged);
    } finally {
      if (saved === undefined) delete process.env.CONFORMANCE_NO_CACHE;
      else process.env.CONFORMANCE_NO_CACHE = saved;
    }
  });
});
