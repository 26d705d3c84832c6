import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import standaloneModule from 'ajv/dist/standalone/index.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { LoadedSpec, OpenApiDocument } from '../../spec/load.ts';
import type { Exchange } from '../transport/exchange.ts';
import { UsageError } from '../../spec/errors.ts';
import { derivedFile, digestOf, writeDerived } from '../../spec/cache.ts';

// ajv-formats ships CommonJS with a default export; under NodeNext the namespace arrives, so unwrap it.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;
type StandaloneCode = (ajv: Ajv2020, refs: Record<string, string>) => string;
const standaloneCode: StandaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

interface SchemaVerdict {
  operationId: string;
  /** Which response of the document applied ("2XX", "default", "404"...). */
  responseKey: string;
  /** Violations of the seed-derived document: MUST level. */
  baseErrors: string[];
  /** Violations of base + overlay that the base does not have: DECLARED level. */
  declaredErrors: string[];
}

interface RouteMatcher {
  method: string;
  template: string;
  regex: RegExp;
}

function compileRoutes(doc: OpenApiDocument): RouteMatcher[] {
  const routes: RouteMatcher[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete', 'head']) {
      if (!(item as Record<string, unknown>)[method]) continue;
      const regex = new RegExp(
        '^' +
          template
            .replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : '\\' + c))
            .replace(/\{[^}]+\}/g, '[^/]+') +
          '$'
      );
      routes.push({ method: method.toUpperCase(), template, regex });
    }
  }
  // Literal paths win over templated ones (/v1/vms/x/backups before /v1/vms/{id}).
  return routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
}

function pickResponse(
  responses: OpenAPIV3_1.ResponsesObject,
  status: number
): [string, OpenAPIV3_1.ResponseObject] | undefined {
  const exact = responses[String(status)];
  if (exact) return [String(status), exact as OpenAPIV3_1.ResponseObject];
  const range = `${String(status)[0]}XX`;
  if (responses[range]) return [range, responses[range] as OpenAPIV3_1.ResponseObject];
  if (responses['default']) return ['default', responses['default'] as OpenAPIV3_1.ResponseObject];
  return undefined;
}

/** A JSON media type: application/json or a +json suffix (RFC 6839); a sequence of values (JSON Lines) is none. */
function isJsonMediaType(type: string): boolean {
  const t = type.split(';')[0]!.trim().toLowerCase();
  return t === 'application/json' || t.endsWith('+json');
}

/**
 * The media type object a response is validated against: the one declared for its own media type (exactly, else its
 * range type/*, else *\/*), validated only where that type is JSON (a declared CSV or JSON Lines answer is not held to
 * a JSON schema); for a type not declared, or no type, the application/json one.
 */
export function mediaFor(
  content: Record<string, OpenAPIV3_1.MediaTypeObject>,
  contentType: string
): OpenAPIV3_1.MediaTypeObject | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const declared = Object.fromEntries(Object.entries(content).map(([k, v]) => [k.toLowerCase(), v]));
  const own = type ? (declared[type] ?? declared[`${type.split('/')[0]}/*`] ?? declared['*/*']) : undefined;
  if (own) return isJsonMediaType(type) ? own : undefined;
  return declared['application/json'];
}

/** The derived-cache entry holding a shipped pair of documents' compiled response validators (a CommonJS module). */
const compiledEntry = (spec: LoadedSpec) => `validators-${spec.overlayPath ? basename(spec.overlayPath) : 'base'}`;

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) =>
      `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params['allowedValues'])}` : ''}`
  );
}

/** The ajv options every asserter compiles with (part of the compiled-validator cache's key). */
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: true } as const;
const require = createRequire(import.meta.url);
const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;

/** Asserts responses against the derived document (MUST) and against document + overlay (DECLARED) with ajv. */
export class SchemaAsserter {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<object, ValidateFunction>();
  /** Where compileAll took the response validators from. */
  compiledFrom?: 'ajv' | 'derived cache';
  private readonly baseRoutes: RouteMatcher[];
  private readonly mergedRoutes: RouteMatcher[];

  constructor(private readonly spec: LoadedSpec) {
    // strict: false because OpenAPI schemas carry x- extensions and annotation keywords ajv does not know.
    // code.source keeps each validator's code, so the shipped documents' validators can be kept as a module (compileAll).
    this.ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true } });
    addFormats(this.ajv);
    this.baseRoutes = compileRoutes(spec.base);
    this.mergedRoutes = compileRoutes(spec.merged);
  }

  private validator(schema: object): ValidateFunction {
    let v = this.cache.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.cache.set(schema, v);
    }
    return v;
  }

  /** Every response schema of the base and merged documents, with where it sits (for a broken schema's message). */
  private responseSchemas(): Array<{ schema: object; where: string }> {
    const found: Array<{ schema: object; where: string }> = [];
    for (const [doc, label] of [
      [this.spec.base, 'the derived spec'],
      [
        this.spec.merged,
        this.spec.overlayPath ? `the document after overlay ${this.spec.overlayPath}` : 'the derived spec',
      ],
    ] as const) {
      for (const [p, item] of Object.entries(doc.paths ?? {})) {
        for (const [method, op] of Object.entries(item as Record<string, OpenAPIV3_1.OperationObject>)) {
          for (const [status, response] of Object.entries(op?.responses ?? {})) {
            for (const [type, media] of Object.entries((response as OpenAPIV3_1.ResponseObject).content ?? {})) {
              if (!media.schema || (type !== 'application/json' && !isJsonMediaType(type))) continue;
              found.push({
                schema: media.schema as object,
                where: `${label}: the ${type} schema of ${method.toUpperCase()} ${p} response ${status}`,
              });
            }
          }
        }
      }
    }
    return found;
  }

  /**
   * Compiles every response schema up front, so a broken overlay is reported before any request is sent. For the
   * documents that ship with the suite, the compiled validators are kept as one module in the derived cache
   * (src/spec/cache.ts), keyed by the schemas, ajv's version and options: loading it takes a few milliseconds where
   * compiling takes about 0.15 s of a quick run's start on a small machine.
   */
  compileAll(): void {
    this.compiledFrom = 'ajv';
    const schemas = this.responseSchemas();
    const contents = schemas.map(({ schema }) => JSON.stringify(schema));
    const distinct = [...new Set(contents)];
    const key = this.spec.shipped ? digestOf(AJV_VERSION, JSON.stringify(AJV_OPTIONS), ...distinct) : undefined;
    if (
      key &&
      this.loadCompiled(
        key,
        schemas.map(({ schema }, i) => [schema, distinct.indexOf(contents[i]!)] as const)
      )
    ) {
      this.compiledFrom = 'derived cache';
      return;
    }
    for (const { schema, where } of schemas) {
      try {
        this.validator(schema);
      } catch (err) {
        throw new UsageError(`${where} is invalid: ${(err as Error).message}`);
      }
    }
    if (key)
      this.keepCompiled(
        key,
        distinct.map((c) => schemas[contents.indexOf(c)]!.schema)
      );
  }

  /** Takes the validators from the derived cache's module for key; false when there is none or it does not load. */
  private loadCompiled(key: string, schemas: ReadonlyArray<readonly [object, number]>): boolean {
    const file = derivedFile(compiledEntry(this.spec), key, '.cjs');
    if (!file) return false;
    try {
      const compiled = require(file) as Record<string, ValidateFunction>;
      const loaded = schemas.map(([schema, i]) => [schema, compiled[`v${i}`]] as const);
      if (loaded.some(([, v]) => typeof v !== 'function')) return false;
      for (const [schema, v] of loaded) this.cache.set(schema, v!);
      return true;
    } catch {
      return false;
    }
  }

  private keepCompiled(key: string, distinct: object[]): void {
    try {
      const refs: Record<string, string> = {};
      distinct.forEach((schema, i) => {
        this.ajv.addSchema(schema, `cc-response-${i}`);
        refs[`v${i}`] = `cc-response-${i}`;
      });
      writeDerived(compiledEntry(this.spec), key, standaloneCode(this.ajv, refs), '.cjs');
    } catch {
      // Not kept: the next run compiles again.
    }
  }

  /** The operation of the document (merged if given) that a method and path address. */
  operationFor(
    doc: 'base' | 'merged',
    method: string,
    pathname: string
  ): { template: string; op: OpenAPIV3_1.OperationObject } | undefined {
    const routes = doc === 'base' ? this.baseRoutes : this.mergedRoutes;
    const document = doc === 'base' ? this.spec.base : this.spec.merged;
    const route = routes.find((r) => r.method === method.toUpperCase() && r.regex.test(pathname));
    if (!route) return undefined;
    const op = (document.paths?.[route.template] as Record<string, OpenAPIV3_1.OperationObject>)[method.toLowerCase()]!;
    return { template: route.template, op };
  }

  private check(
    doc: 'base' | 'merged',
    ex: Exchange
  ): { op?: string; key?: string; errors: string[]; applied: boolean } {
    if (!ex.response) return { errors: [], applied: false };
    const pathname = new URL(ex.request.url).pathname;
    const found = this.operationFor(doc, ex.request.method, pathname);
    if (!found) return { errors: [], applied: false };
    const picked = pickResponse(found.op.responses ?? {}, ex.response.status);
    if (!picked) return { op: found.op.operationId, errors: [], applied: false };
    const [key, response] = picked;
    const media = mediaFor(response.content ?? {}, ex.response.headers['content-type'] ?? '');
    if (!media?.schema) return { op: found.op.operationId, key, errors: [], applied: false };
    const validate = this.validator(media.schema as object);
    if (ex.response.json === undefined)
      return { op: found.op.operationId, key, errors: ['(body) is not JSON'], applied: true };
    return {
      op: found.op.operationId,
      key,
      errors: validate(ex.response.json) ? [] : formatErrors(validate.errors),
      applied: true,
    };
  }

  /** Verdicts already given, by exchange: several checks review the same log (the same response judged once). */
  private readonly verdicts = new WeakMap<
    Exchange,
    { response: Exchange['response']; verdict: SchemaVerdict | undefined }
  >();

  /** Validates one exchange; undefined when no documented response applies (unknown path, transport error). */
  assert(ex: Exchange): SchemaVerdict | undefined {
    const known = this.verdicts.get(ex);
    if (known && known.response === ex.response) return known.verdict;
    const verdict = this.judge(ex);
    this.verdicts.set(ex, { response: ex.response, verdict });
    return verdict;
  }

  private judge(ex: Exchange): SchemaVerdict | undefined {
    const base = this.check('base', ex);
    const merged = this.spec.merged === this.spec.base ? base : this.check('merged', ex);
    if (!base.applied && !merged.applied) return undefined;
    const declaredErrors = merged.errors.filter((e) => !base.errors.includes(e));
    return {
      operationId: (merged.op ?? base.op)!,
      responseKey: (merged.key ?? base.key)!,
      baseErrors: base.errors,
      declaredErrors,
    };
  }

  /** Validates a value against a component schema of the base document (e.g. Error, Token), or of base + overlay. */
  validateComponent(name: string, value: unknown, doc: 'base' | 'merged' = 'base'): string[] {
    const schema = (doc === 'base' ? this.spec.base : this.spec.merged).components?.schemas?.[name];
    if (!schema) throw new Error(`no schema ${name} in the derived document`);
    const v = this.validator(schema as object);
    return v(value) ? [] : formatErrors(v.errors);
  }
}
