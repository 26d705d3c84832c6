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
}

export interface ArbitraryOptions {
  /** Values only the target can supply (an image, a subnet id), by property name: used as they are. */
  supplied?: Record<string, unknown>;
  /** Prefix for the value of a property named "name", so everything the run creates is recognisable. */
  namePrefix?: string;
  /**
   * Numbers stay near the bottom of their range (at most min + 2): generated creates must be small, since a real
   * deployment bills for them. Strings and structure vary freely within the schema.
   */
  numberSpan?: number;
}

const KEY = fc.stringMatching(/^[a-z][a-z0-9-]{0,9}$/);

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
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const span = opts.numberSpan ?? 2;
  switch (type) {
    case 'integer': {
      const min = schema.minimum ?? 1;
      const max = Math.min(schema.maximum ?? min + span, min + span);
      return fc.integer({ min, max: Math.max(min, max) });
    }
    case 'number': {
      const min = schema.minimum ?? 0;
      return fc.double({
        min,
        max: Math.min(schema.maximum ?? min + span, min + span),
        noNaN: true,
        noDefaultInfinity: true,
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const prefix = name === 'name' ? (opts.namePrefix ?? '') : '';
      if (schema.pattern) {
        const fits = withinSchema(schema);
        // A name keeps the run's prefix: the tail is drawn from the pattern, kept where prefix + tail still fits it.
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .map((s) => prefix + s)
          .filter(fits);
      }
      const minLength = Math.max(0, (schema.minLength ?? 0) - prefix.length);
      const maxLength = Math.max(minLength, Math.min((schema.maxLength ?? 40) - prefix.length, 40));
      return fc
        .string({ unit: 'grapheme', minLength, maxLength })
        .filter((s) => [...(prefix + s)].length <= (schema.maxLength ?? Infinity))
        .map((s) => prefix + s);
    }
    case 'array':
      return fc.array(arbitraryFromSchema(schema.items ?? {}, opts), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const props = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, s]) => [k, arbitraryFromSchema(s, opts, k)])
      );
      const base = fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
      const extra = schema.additionalProperties;
      if (extra && typeof extra === 'object' && Object.keys(props).length === 0) {
        return fc.dictionary(KEY, arbitraryFromSchema(extra, opts), { maxKeys: 3 });
      }
      return base;
    }
    default:
      return fc.constant(null);
  }
}
