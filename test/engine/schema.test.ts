import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_OVERLAYS_DIR, loadSpec } from '../../src/spec/load.ts';
import { SchemaAsserter } from '../../src/engine/schema.ts';
import { UsageError } from '../../src/spec/errors.ts';

// A run compiles every response schema before sending anything: a broken one is a usage error naming its operation,
// and the shipped documents (taken on trust by src/spec/load.ts, which does not validate them again) always compile.
describe('response schemas compile', () => {
  const shipped = [undefined, ...readdirSync(SHIPPED_OVERLAYS_DIR).filter((f) => f.endsWith('.yaml')).map((f) => path.join(SHIPPED_OVERLAYS_DIR, f))];

  it.each(shipped)('every response schema of the shipped document compiles (overlay %s)', async (overlay) => {
    const spec = await loadSpec(overlay);
    expect(spec.shipped).toBe(true);
    expect(() => new SchemaAsserter(spec).compileAll()).not.toThrow();
  });

  it('a broken response schema is a usage error naming the operation', async () => {
    const spec = await loadSpec();
    const merged = structuredClone(spec.merged);
    const get = merged.paths!['/v1/vms']!.get!;
    (get.responses!['2XX'] as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema = { type: 'no-such-type' };
    const asserter = new SchemaAsserter({ ...spec, merged, shipped: false, overlayPath: 'mine.yaml' });
    expect(() => asserter.compileAll()).toThrow(UsageError);
    expect(() => asserter.compileAll()).toThrow(/GET \/v1\/vms response 2XX/);
  });
});
