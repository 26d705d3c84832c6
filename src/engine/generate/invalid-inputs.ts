// Invalid inputs for every operation of a document that takes any: derived from its request-body schema and
// query parameters, so an operation added to the document is covered without new code.
import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import { alternativesOf, type SchemaLike } from './arbitrary.ts';

/** An operation that takes input: its body schema (JSON) and query parameters, from the dereferenced document. */
export interface InputOperation {
  method: string;
  /** The path template, as the document writes it. */
  path: string;
  operationId?: string;
  /** Public (security: []): sent without a token. */
  public: boolean;
  pathParams: string[];
  body?: SchemaLike;
  query: Array<{ name: string; schema: SchemaLike }>;
}

/** One invalid request: what is wrong, and the body or query that carries it. */
interface InvalidCase {
  what: string;
  body?: unknown;
  query?: Record<string, string>;
  /**
   * Invalid beyond any reading: no target coerces it (a body that is not an object, an object or array where the
   * schema says a scalar). Accepting it breaks convention (should); the other cases are judged on their answers only.
   */
  unambiguous: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch'] as const;
const typeOf = (s: SchemaLike | undefined): string | undefined =>
  Array.isArray(s?.type) ? s!.type.find((t) => t !== 'null') : s?.type;

/** Every GET, POST, PUT and PATCH of the document with a JSON object body schema or query parameters (DELETE is never sent). */
export function inputOperations(doc: OpenAPIV3_1.Document): InputOperation[] {
  const out: InputOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown> | undefined)?.[method] as OpenAPIV3_1.OperationObject | undefined;
      if (!op) continue;
      const params = [
        ...((item as OpenAPIV3_1.PathItemObject).parameters ?? []),
        ...(op.parameters ?? []),
      ] as OpenAPIV3_1.ParameterObject[];
      const query = params
        .filter((p) => p.in === 'query' && p.schema)
        .map((p) => ({ name: p.name, schema: p.schema as SchemaLike }));
      const body = (op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content?.['application/json']
        ?.schema as SchemaLike | undefined;
      // An object body with no properties named (a restore's) still refuses a body that is not an object (G11).
      const objectBody = body && typeOf(body) === 'object' ? body : undefined;
      if (!objectBody && query.length === 0) continue;
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        public: Array.isArray(op.security) && op.security.length === 0,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        body: objectBody,
        query,
      });
    }
  }
  return out;
}

/** The JSON Schema type of a value. */
const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/**
 * The JSON types a schema admits, over its alternatives (oneOf, anyOf); undefined when one of them says no type (it
 * may admit anything). An integer is a number too.
 */
export function admittedTypes(schema: SchemaLike): Set<string> | undefined {
  const types = new Set<string>();
  for (const alt of alternativesOf(schema)) {
    // Without a type, the types of its enum or const values.
    const values = alt.enum ?? (alt.const !== undefined ? [alt.const] : undefined);
    const own = alt.type ?? values?.map(jsonType);
    if (own === undefined || own.length === 0) return undefined;
    for (const t of Array.isArray(own) ? own : [own]) types.add(t);
  }
  if (types.has('number')) types.add('integer');
  return types;
}

/**
 * A value of a JSON type the schema admits under none of its alternatives, one no target reads as valid; undefined
 * when its types are not known, or it admits every type.
 */
export function foreignValue(schema: SchemaLike): unknown {
  const types = admittedTypes(schema);
  if (!types) return undefined;
  if (!types.has('object')) return { not: types.size === 1 && types.has('array') ? 'an array' : 'a scalar' };
  if (!types.has('integer')) return 7;
  if (!types.has('string')) return 'cc-not-an-object';
  if (!types.has('boolean')) return true;
  return undefined;
}

/** A value of the schema's type that is plausible on its own (the first enum value, the minimum, a short string). */
function plainValue(declared: SchemaLike): unknown {
  // Of alternatives (oneOf, anyOf), the first.
  const schema = alternativesOf(declared)[0]!;
  if (schema.enum?.length) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'cc-invalid-input';
  }
}

/**
 * The cases for one operation: a body that is not an object, each property with a foreign value, each required property
 * missing, each query parameter with a value of another type; a seeded sample of `max` of them, mostly unambiguous.
 */
export function invalidCases(
  op: InputOperation,
  seed: number,
  max: number,
  supplied: Record<string, unknown> = {}
): InvalidCase[] {
  const cases: InvalidCase[] = [];
  if (op.body) {
    const props = Object.entries(op.body.properties ?? {});
    // Values only the target can supply (an image, a subnet, the run's name prefix) keep the rest of the body plausible.
    const base = Object.fromEntries(props.map(([k, s]) => [k, k in supplied ? supplied[k] : plainValue(s)]));
    cases.push({ what: 'a JSON array as the body', body: [], unambiguous: true });
    cases.push({ what: 'a JSON string as the body', body: 'not an object', unambiguous: true });
    for (const [k, s] of props) {
      const foreign = foreignValue(s);
      if (foreign !== undefined)
        cases.push({ what: `${k} as ${JSON.stringify(foreign)}`, body: { ...base, [k]: foreign }, unambiguous: true });
    }
    for (const k of op.body.required ?? []) {
      const { [k]: _, ...rest } = base;
      cases.push({ what: `${k} missing`, body: rest, unambiguous: false });
    }
  }
  for (const q of op.query) {
    const t = typeOf(q.schema);
    const bad =
      t === 'integer' || t === 'number'
        ? 'not-a-number'
        : t === 'boolean'
          ? 'not-a-boolean'
          : q.schema.enum?.length
            ? 'cc-not-in-enum'
            : undefined;
    if (bad) cases.push({ what: `query ${q.name}=${bad}`, query: { [q.name]: bad }, unambiguous: false });
  }
  if (cases.length <= max) return cases;
  // A seeded choice, so repeated runs under one seed send the same requests; a third of the room for the cases that
  // are judged on their answers only, the rest for the unambiguous ones.
  const shuffled = fc.sample(fc.shuffledSubarray(cases, { minLength: cases.length, maxLength: cases.length }), {
    seed,
    numRuns: 1,
  })[0]!;
  const sure = shuffled.filter((c) => c.unambiguous);
  const rest = shuffled.filter((c) => !c.unambiguous);
  const taken = sure.slice(0, max - Math.min(rest.length, Math.floor(max / 3)));
  return [...taken, ...rest.slice(0, max - taken.length)];
}
