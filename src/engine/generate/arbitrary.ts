import fc from 'fast-check';

/** The subset of JSON Schema the document uses for request bodies and parameters. */
export interface SchemaLike {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, SchemaLike>;
  required?: string[];
  additionalProperties?: boolean | SchemaLike;
  items?: SchemaLike;
  minItems?: number;
  maxItems?: number;
  propertyNames?: SchemaLike;
  minProperties?: number;
  maxProperties?: number;
  /** Alternatives (JSON Schema 2020-12, OpenAPI 3.1): a value valid under exactly one, under at least one, under all. */
  oneOf?: SchemaLike[];
  anyOf?: SchemaLike[];
  allOf?: SchemaLike[];
}

/** Two schemas that must both hold, as one (properties and required lists joined; the second's keywords win). */
function mergeSchemas(a: SchemaLike, b: SchemaLike): SchemaLike {
  return {
    ...a,
    ...b,
    ...(a.properties || b.properties ? { properties: { ...a.properties, ...b.properties } } : {}),
    ...(a.required || b.required ? { required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])] } : {}),
  };
}

/** A schema's alternatives (oneOf, else anyOf), each with what the schema states beside them; allOf joined first. */
export function alternativesOf(schema: SchemaLike): SchemaLike[] {
  if (!schema.oneOf?.length && !schema.anyOf?.length && !schema.allOf?.length) return [schema];
  const { oneOf, anyOf, allOf, ...rest } = schema;
  const joined = (allOf ?? []).reduce(mergeSchemas, rest);
  const alternatives = oneOf ?? anyOf;
  return alternatives?.length ? alternatives.map((alt) => mergeSchemas(joined, alt)) : [joined];
}

/** Whether a schema says nothing of a value's content: no type but object, no property, no rule. */
function saysNothing(schema: SchemaLike): boolean {
  const keys = Object.keys(schema).filter((k) => !k.startsWith('x-') && k !== 'description' && k !== 'title');
  return keys.every((k) => k === 'type') && (schema.type === undefined || schema.type === 'object');
}

interface ArbitraryOptions {
  /** Values only the target can supply (an image, a subnet id), by property name: used as they are. */
  supplied?: Record<string, unknown>;
  /** Prefix for the value of a property named "name", so everything the run creates is recognisable. */
  namePrefix?: string;
  /** Values the run knows the target accepts, by property name (its own VM's sizes): the floor of an unstated range. */
  known?: Record<string, unknown>;
  /**
   * Numbers stay near the bottom of their range (at most min + 2): generated creates must be small, since a real
   * deployment bills for them. Structure varies freely within the schema; strings within a declared pattern, and of
   * letters and digits where none is declared (a rule on characters the declaration does not state is the target's).
   */
  numberSpan?: number;
}

const KEY = fc.stringMatching(/^[a-z][a-z0-9-]{0,9}$/);
/** The characters of a string whose schema declares no pattern: what every rule on names and labels admits. */
const PLAIN = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789');

/** Whether a string satisfies a string schema's pattern and lengths (in code points, as JSON Schema counts). */
function withinSchema(schema: SchemaLike): (s: string) => boolean {
  const re = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return (s) =>
    (!re || re.test(s)) && [...s].length >= (schema.minLength ?? 0) && [...s].length <= (schema.maxLength ?? 200);
}

/**
 * Whether generated names can keep the prefix under a declared string schema: some value drawn from its pattern,
 * after the prefix, still fits it. When not, the generator cannot honour both, and says so rather than drop the prefix.
 */
export function admitsPrefix(schema: SchemaLike, prefix: string): boolean {
  if (!schema.pattern) return [...prefix].length <= (schema.maxLength ?? Infinity);
  const fits = withinSchema(schema);
  const samples = fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { numRuns: 200, seed: 1 });
  return samples.some((s) => fits(prefix + s));
}

/** Values valid under a schema, derived from it (fast-check). */
export function arbitraryFromSchema(schema: SchemaLike, opts: ArbitraryOptions = {}, name = ''): fc.Arbitrary<unknown> {
  if (name && opts.supplied && name in opts.supplied) return fc.constant(opts.supplied[name]);
  const alternatives = alternativesOf(schema);
  if (alternatives.length > 1 || alternatives[0] !== schema)
    return fc.oneof(...alternatives.map((alt) => arbitraryFromSchema(alt, opts, name)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return numberArbitrary(schema, type, opts, name);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringArbitrary(schema, name === 'name' ? (opts.namePrefix ?? '') : '');
    case 'array':
      // Items the schema says nothing of are not invented: as few as it allows.
      if (!schema.items || saysNothing(schema.items))
        return fc.constant(Array.from({ length: schema.minItems ?? 0 }, () => ({})));
      return fc.array(arbitraryFromSchema(schema.items, opts), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object':
      return objectArbitrary(schema, opts);
    default:
      return fc.constant(null);
  }
}

/**
 * Integers and numbers near the bottom of their range (at most min + span). Where the schema states no minimum, the
 * bottom is the value the run knows the target accepts (opts.known), else 1 (0 for a number): a range the declaration
 * does not state is no promise, and the run stays where it knows it is on firm ground.
 */
function numberArbitrary(
  schema: SchemaLike,
  type: 'integer' | 'number',
  opts: ArbitraryOptions,
  name: string
): fc.Arbitrary<number> {
  const span = opts.numberSpan ?? 2;
  const known = opts.known?.[name];
  const floor = typeof known === 'number' && schema.minimum === undefined ? known : undefined;
  const min = schema.minimum ?? floor ?? (type === 'integer' ? 1 : 0);
  const max = Math.max(min, Math.min(schema.maximum ?? min + span, min + span));
  return type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Ways to make a drawn string plain, plainest first: letters and digits, then a first colon (key:value), then _ . - too. */
const PLAIN_WAYS: ReadonlyArray<(s: string) => string> = [
  (s) => s.replace(/[^A-Za-z0-9]/g, 'a'),
  (s) => s.replace(/[^A-Za-z0-9:]|(?<=:.*):/g, 'a'),
  (s) => s.replace(/[^A-Za-z0-9_.:-]|(?<=:.*):/g, 'a'),
];

/**
 * A string drawn from a pattern, made plain where the pattern still holds it: a pattern says which strings are valid,
 * and a rule on characters the target states nowhere else (node-fastify's tag values) is not what the declaration
 * vouches for. Where no plain form fits, the string as drawn.
 */
function plainly(fits: (s: string) => boolean): (s: string) => string {
  return (s) => PLAIN_WAYS.map((way) => way(s)).find(fits) ?? s;
}

function stringArbitrary(schema: SchemaLike, prefix: string): fc.Arbitrary<string> {
  if (schema.pattern) {
    const fits = withinSchema(schema);
    // A name keeps the run's prefix: the tail is drawn from the pattern, kept where prefix + tail still fits it.
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .map((s) => prefix + plainly((t) => fits(prefix + t))(s))
      .filter(fits);
  }
  const minLength = Math.max(0, (schema.minLength ?? 0) - prefix.length);
  const maxLength = Math.max(minLength, Math.min((schema.maxLength ?? 40) - prefix.length, 40));
  return fc
    .string({ unit: PLAIN, minLength, maxLength })
    .filter((s) => [...(prefix + s)].length <= (schema.maxLength ?? Infinity))
    .map((s) => prefix + s);
}

/** Declared properties as a record; a map (additionalProperties) as a dictionary whose keys keep to propertyNames. */
function objectArbitrary(schema: SchemaLike, opts: ArbitraryOptions): fc.Arbitrary<unknown> {
  const props = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, s]) => [k, arbitraryFromSchema(s, opts, k)])
  );
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(props).length === 0) {
    const names = schema.propertyNames;
    const key = names?.pattern || names?.maxLength !== undefined ? stringArbitrary(names, '') : KEY;
    return fc.dictionary(key, arbitraryFromSchema(extra, opts), {
      minKeys: schema.minProperties ?? 0,
      maxKeys: Math.max(schema.minProperties ?? 0, Math.min(schema.maxProperties ?? 3, 3)),
    });
  }
  return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
}
