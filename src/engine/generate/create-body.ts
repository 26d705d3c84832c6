import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';

export type FieldType = 'string' | 'integer';

interface FieldSpec {
  name: string;
  type: FieldType;
  /** A value only the target can supply (an image, a subnet id): taken from the configuration, never invented. */
  supplied?: string;
}

/**
 * What a request departs from. The seed types the fields but shows no validation rules, so nothing here is a MUST:
 * a value that cannot be read as its field's type should be refused (convention); a value a lenient server reads as
 * the type (a numeric string for an integer, null for "absent") may be accepted or refused; positive sizes and a
 * non-empty name are convention (vms.create-conventions judges those). Whatever the class, a 5xx is never an answer.
 */
export interface Violations {
  /** Values of another JSON type that no common reading turns into the field's type: refusing them is convention. */
  typeErrors: string[];
  /** Values of another JSON type that lenient servers read as the field's type: accepting them is a valid choice. */
  coercible: string[];
  /** Well-typed values that break a convention only (zero sizes, an empty name). */
  conventions: string[];
}

/** The create-VM fields and their seed types, read from the derived document. */
export function fieldsOf(schema: OpenAPIV3_1.SchemaObject, supplied: Record<string, string | undefined>): FieldSpec[] {
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    type: (s as OpenAPIV3_1.SchemaObject).type as FieldType,
    supplied: supplied[name],
  }));
}

const isOfType = (value: unknown, type: FieldType): boolean =>
  type === 'integer' ? typeof value === 'number' && Number.isInteger(value) : typeof value === 'string';

/** A value a lenient server reads as the field's type: null as "absent", a decimal numeral for an integer. */
export const isCoercible = (value: unknown, type: FieldType): boolean =>
  value === null ||
  (type === 'integer' && typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) && value.trim() !== '');

const describeValue = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'object'
        ? 'an object'
        : typeof v === 'number' && !Number.isInteger(v)
          ? 'a fraction'
          : `a ${typeof v}`;

/**
 * Classifies a request body by what it violates. It is applied to the final case, after any shrinking,
 * so a case is judged by what it is, never by what the generator meant it to be.
 */
export function classify(body: unknown, fields: FieldSpec[]): Violations {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { typeErrors: ['the body is not a JSON object'], coercible: [], conventions: [] };
  const b = body as Record<string, unknown>;
  const v: Violations = { typeErrors: [], coercible: [], conventions: [] };
  for (const f of fields) {
    if (!(f.name in b)) continue; // required status is not shown: a missing field violates nothing stated
    const value = b[f.name];
    const what = `${f.name} is ${describeValue(value)}${typeof value === 'string' ? ` ${JSON.stringify(value.slice(0, 12))}` : ''}, not ${f.type === 'integer' ? 'an integer' : 'a string'}`;
    if (!isOfType(value, f.type)) (isCoercible(value, f.type) ? v.coercible : v.typeErrors).push(what);
    else if (f.type === 'integer' && (value as number) <= 0) v.conventions.push(`${f.name} is ${value as number}`);
    else if (f.type === 'string' && value === '') v.conventions.push(`${f.name} is empty`);
  }
  return v;
}

const wrongTyped = (type: FieldType): fc.Arbitrary<unknown> =>
  type === 'integer'
    ? fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
        fc.constant(null),
        fc.boolean(),
        fc.constant([]),
        fc.constant({})
      )
    : fc.oneof(
        fc.integer(),
        fc.constant(null),
        fc.boolean(),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
        fc.constant({})
      );

/**
 * Values for one field: mostly well-typed and conservative (so a valid case asks for a small VM), sometimes
 * convention-invalid, sometimes large, sometimes of the wrong JSON type. Names carry the run's prefix.
 */
function fieldArbitrary(field: FieldSpec, namePrefix: string): fc.Arbitrary<unknown> {
  if (field.type === 'integer') {
    return fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 2 }), weight: 4 },
      { arbitrary: fc.integer({ min: -3, max: 0 }), weight: 1 },
      { arbitrary: fc.constantFrom(2 ** 31, 2 ** 53), weight: 1 },
      { arbitrary: wrongTyped('integer'), weight: 2 }
    );
  }
  if (field.supplied !== undefined) {
    return fc.oneof(
      { arbitrary: fc.constant(field.supplied), weight: 6 },
      { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
      { arbitrary: wrongTyped('string'), weight: 2 }
    );
  }
  return fc.oneof(
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }).map((s) => namePrefix + s), weight: 4 },
    { arbitrary: fc.constantFrom('', namePrefix + 'x'.repeat(300)), weight: 1 },
    { arbitrary: wrongTyped('string'), weight: 2 }
  );
}

const KEEP = Symbol('keep');

/** A create body: the valid base with some fields replaced (shrinking moves replacements back to the base). */
export function createBodyArbitrary(
  fields: FieldSpec[],
  base: Record<string, unknown>,
  namePrefix: string
): fc.Arbitrary<Record<string, unknown>> {
  const overrides = Object.fromEntries(
    fields.map((f) => [
      f.name,
      fc.oneof(
        { arbitrary: fc.constant<typeof KEEP>(KEEP), weight: 3 },
        { arbitrary: fieldArbitrary(f, namePrefix), weight: 2 }
      ),
    ])
  ) as Record<string, fc.Arbitrary<unknown>>;
  return fc.record(overrides).map((o) => {
    const body: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(o)) if (v !== KEEP) body[k] = v;
    return body;
  });
}
