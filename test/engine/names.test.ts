import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { admitsPrefix, arbitraryFromSchema } from '../../src/engine/generate/arbitrary.ts';

const PREFIX = 'cc-1a2b3c4d-declared-';

// docs/checks-and-levels.md ("What the run does to your deployment") and spec/README.md ("Names") promise that
// everything a run creates is named cc-<run id>-...: a declared name schema never drops it.
describe('generated names under a declared name schema', () => {
  for (const schema of [
    { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 63 },
    { type: 'string', pattern: '[a-z]', minLength: 1, maxLength: 40 },
    { type: 'string', minLength: 1, maxLength: 63 },
  ]) {
    it(`keep the prefix with ${JSON.stringify(schema)}`, () => {
      expect(admitsPrefix(schema, PREFIX)).toBe(true);
      const names = fc.sample(
        arbitraryFromSchema(
          { type: 'object', required: ['name'], properties: { name: schema } },
          { namePrefix: PREFIX }
        ),
        { numRuns: 50, seed: 7 }
      ) as Array<{ name: string }>;
      for (const { name } of names) {
        expect(name.startsWith(PREFIX), name).toBe(true);
        if (schema.pattern) expect(new RegExp(schema.pattern).test(name), name).toBe(true);
        expect([...name].length).toBeLessThanOrEqual(schema.maxLength);
      }
    });
  }

  for (const schema of [
    { type: 'string', pattern: '^[A-Z][a-z]+$' },
    { type: 'string', pattern: '^[a-z0-9-]*$', maxLength: 12 },
  ]) {
    it(`are reported impossible, not generated without the prefix, with ${JSON.stringify(schema)}`, () => {
      expect(admitsPrefix(schema, PREFIX)).toBe(false);
    });
  }
});
