// Bodies drawn from a declared schema: alternatives (oneOf, anyOf, allOf) as JSON Schema 2020-12 and OpenAPI 3.1 state
// them, maps under propertyNames, nothing invented where a schema says nothing, and no range the declaration does not
// state; and values no alternative admits, for the invalid inputs.
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { arbitraryFromSchema, type SchemaLike } from '../../src/engine/generate/arbitrary.ts';
import { admittedTypes, foreignValue } from '../../src/engine/generate/invalid-inputs.ts';

const ajv = new Ajv2020({ strict: false });
const draw = (schema: SchemaLike, opts = {}, name = '') =>
  fc.sample(arbitraryFromSchema(schema, opts, name), { numRuns: 200, seed: 7 });

/** node-fastify's and ruby-webrick's tags on the create: a map, or a list of "key:value" strings. */
const TAGS: SchemaLike = {
  oneOf: [
    { type: 'object', maxProperties: 50, additionalProperties: { type: 'string' } },
    { type: 'array', maxItems: 50, items: { type: 'string', pattern: '^[^:]+:.*$' } },
  ],
};

describe('arbitraryFromSchema', () => {
  it.each([
    ['oneOf', TAGS],
    ['anyOf', { anyOf: TAGS.oneOf }],
    ['allOf', { allOf: [{ type: 'object', properties: { a: { type: 'integer', minimum: 5 } } }, { required: ['a'] }] }],
    [
      'a map under propertyNames',
      {
        type: 'object',
        maxProperties: 4,
        propertyNames: { minLength: 1, maxLength: 8, pattern: '^[^:]*$' },
        additionalProperties: { type: 'string', maxLength: 5 },
      },
    ],
  ] as Array<[string, SchemaLike]>)('draws only values valid under %s', (_, schema) => {
    const valid = ajv.compile(schema);
    const values = draw(schema);
    expect(values.filter((v) => !valid(v))).toEqual([]);
  });

  it('draws from every alternative', () => {
    const values = draw(TAGS);
    expect(values.some(Array.isArray)).toBe(true);
    expect(values.some((v) => v !== null && typeof v === 'object' && !Array.isArray(v))).toBe(true);
  });

  it('invents no item a schema says nothing of', () => {
    expect(new Set(draw({ type: 'array', items: { type: 'object' } }).map((v) => JSON.stringify(v)))).toEqual(
      new Set(['[]'])
    );
  });

  it('starts an unstated range where the run knows the target accepts, a stated one at its minimum', () => {
    const known = { known: { system_disk_gb: 20 } };
    expect(Math.min(...(draw({ type: 'integer' }, known, 'system_disk_gb') as number[]))).toBe(20);
    expect(Math.min(...(draw({ type: 'integer', minimum: 10 }, known, 'system_disk_gb') as number[]))).toBe(10);
  });
});

describe('foreignValue: a value no alternative admits', () => {
  it.each([
    [{ type: 'object' }, 7],
    [{ type: 'array' }, { not: 'an array' }],
    [{ type: 'string' }, { not: 'a scalar' }],
    [{ type: 'string', enum: ['a'] }, { not: 'a scalar' }],
    [TAGS, 7],
  ] as Array<[SchemaLike, unknown]>)('%j: %j, invalid under it', (schema, want) => {
    expect(foreignValue(schema)).toEqual(want);
    expect(ajv.compile(schema)(want)).toBe(false);
  });

  it('none where a schema admits any type, or its types are not known', () => {
    expect(foreignValue({})).toBeUndefined();
    expect(foreignValue({ oneOf: [{ type: 'object' }, {}] })).toBeUndefined();
    expect(admittedTypes({ anyOf: [{ type: 'number' }, { type: 'string' }] })).toEqual(
      new Set(['number', 'string', 'integer'])
    );
  });
});
