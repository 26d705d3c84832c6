import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { admitsPrefix, arbitraryFromSchema } from '../../src/engine/generate/arbitrary.ts';
import { RunObjects } from '../../src/engine/target/run-objects.ts';
import { Ledger } from '../../src/engine/target/ledger.ts';
import { INPUT_NAMES } from '../../src/cli/options.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';

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

// A target may require names unique in the organization (go-nethttp, variant vm-names-unique): every create the run
// sends carries a name of its own, generated bodies that share one included.
describe("the run's names", () => {
  const objects = () =>
    new RunObjects(
      async () => {
        throw new Error('no call');
      },
      { runId: '1a2b3c4d', image: 'img', subnetId: 'sn', names: INPUT_NAMES } as RunConfig,
      { task: {} } as never,
      new Ledger()
    );

  it('are unique per run: a suffix used again, or a generated name drawn twice, gets a counter', () => {
    const o = objects();
    const names = [o.vmCreateBody('x').body['name'], o.vmCreateBody('x').body['name']];
    const drawn = { name: 'cc-1a2b3c4d-declared-a', vcpus: 1 };
    names.push((o.withOwnName(drawn) as { name: string }).name, (o.withOwnName({ ...drawn }) as { name: string }).name);
    expect(names).toEqual(['cc-1a2b3c4d-x', 'cc-1a2b3c4d-x-2', 'cc-1a2b3c4d-declared-a', 'cc-1a2b3c4d-declared-a-2']);
  });

  it("keep a body's own name once given, and leave names that are not the run's alone", () => {
    const o = objects();
    const { body } = o.vmCreateBody('y');
    expect(o.withOwnName(body)).toBe(body);
    const foreign = { name: 'someone-else' };
    expect(o.withOwnName(foreign)).toBe(foreign);
  });
});
