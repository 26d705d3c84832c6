import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_OVERLAYS_DIR, loadSpec } from '../../src/spec/load.ts';
import { SchemaAsserter } from '../../src/engine/schema/schema.ts';
import { UsageError } from '../../src/spec/errors.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';

// A run compiles every response schema before sending anything: a broken one is a usage error naming its operation,
// and the shipped documents (taken on trust by src/spec/load.ts, which does not validate them again) always compile.
describe('response schemas compile', () => {
  const shipped = [
    undefined,
    ...readdirSync(SHIPPED_OVERLAYS_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join(SHIPPED_OVERLAYS_DIR, f)),
  ];

  it.each(shipped)('every response schema of the shipped document compiles (overlay %s)', async (overlay) => {
    const spec = await loadSpec(overlay);
    expect(spec.shipped).toBe(true);
    // Not shipped: compiled by ajv, not taken from the derived cache.
    const asserter = new SchemaAsserter({ ...spec, shipped: false });
    expect(() => asserter.compileAll()).not.toThrow();
    expect(asserter.compiledFrom).toBe('ajv');
  });

  it('a broken response schema is a usage error naming the operation', async () => {
    const spec = await loadSpec();
    const merged = structuredClone(spec.merged);
    const get = merged.paths!['/v1/vms']!.get!;
    (get.responses!['2XX'] as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema = {
      type: 'no-such-type',
    };
    const asserter = new SchemaAsserter({ ...spec, merged, shipped: false, overlayPath: 'mine.yaml' });
    expect(() => asserter.compileAll()).toThrow(UsageError);
    expect(() => asserter.compileAll()).toThrow(/GET \/v1\/vms response 2XX/);
  });
});

// The shipped documents' validators are kept as a module in the derived cache (src/engine/schema/schema.ts): the kept ones
// must judge every response exactly as freshly compiled ones do, message for message.
describe('validators from the derived cache', () => {
  const shipped = [
    undefined,
    ...readdirSync(SHIPPED_OVERLAYS_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join(SHIPPED_OVERLAYS_DIR, f)),
  ];
  const bodies: unknown[] = [
    {},
    [],
    null,
    'text',
    0,
    true,
    { id: 'vm-1', name: 'a', status: 'running', created_at: '2026-01-01T00:00:00Z' },
    { id: 1, created_at: 'yesterday', tags: 'x' },
    { items: [], total: 0, page: 1, per_page: 50 },
    { items: [{ id: 7, status: 42 }], total: '3' },
    { error: { code: 'not_found', message: 'no such VM' } },
    { error: { code: 7 } },
    { access_token: 'abc', token_type: 'Bearer', expires_in: 3600 },
    { access_token: 1, expires_in: 'an hour' },
  ];

  it.each(shipped)('judge every documented response as freshly compiled ones do (overlay %s)', async (overlay) => {
    const spec = await loadSpec(overlay);
    new SchemaAsserter(spec).compileAll();
    const kept = new SchemaAsserter(spec);
    kept.compileAll();
    expect(kept.compiledFrom).toBe('derived cache');
    const fresh = new SchemaAsserter({ ...spec, shipped: false });
    fresh.compileAll();
    expect(fresh.compiledFrom).toBe('ajv');
    let compared = 0;
    let refused = 0;
    for (const [p, item] of Object.entries(spec.merged.paths ?? {})) {
      for (const [method, op] of Object.entries(item as Record<string, { responses?: Record<string, unknown> }>)) {
        for (const key of Object.keys(op?.responses ?? {})) {
          const status = key === 'default' ? 599 : Number(key.replace(/XX$/, '00'));
          for (const json of bodies) {
            const ex = {
              seq: 1,
              sentBy: 'test',
              startedAt: '',
              durationMs: 0,
              request: {
                method: method.toUpperCase(),
                url: `http://127.0.0.1${p.replace(/\{[^}]+\}/g, 'x1')}`,
                headers: {},
              },
              response: { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(json), json },
            } as unknown as Exchange;
            const verdict = kept.assert(ex);
            expect(verdict).toStrictEqual(fresh.assert(ex));
            compared++;
            if (verdict?.baseErrors.length || verdict?.declaredErrors.length) refused++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    // Many of the bodies break the documented schema: the comparison covers messages, not only passes.
    expect(refused).toBeGreaterThan(compared / 10);
  });
});
