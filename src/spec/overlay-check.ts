// Validates an overlay against the vocabulary (src/spec/vocabulary.ts): each action is applied in turn, and every
// x- term it brings is located (action index, target, JSON path) and checked for being known, in its place, and
// well-formed; links must name an operation that exists with runtime expressions that parse; an action whose target
// matches nothing is a problem too. `cloud-conformance overlay check` prints the problems; `run --overlay` refuses
// an overlay that has any.
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { TERMS_BY_NAME, ERROR_CASES, type LocationKind } from './vocabulary.ts';
import { UsageError } from './errors.ts';

const require = createRequire(import.meta.url);
// Both are loaded on first use: a run whose shipped overlay comes from the derived cache (src/spec/load.ts) needs neither.
// openapi-format is CommonJS; its overlay engine reports which actions matched nothing.
const openapiOverlay = (doc: unknown, opts: { overlaySet: unknown }) =>
  (
    require('openapi-format') as {
      openapiOverlay(
        doc: unknown,
        opts: { overlaySet: unknown }
      ): Promise<{ data: unknown; resultData: { unusedActions: unknown[] } }>;
    }
  ).openapiOverlay(doc, opts);
// jsonpathly (the JSONPath engine openapi-format applies targets with) gives the concrete paths a target matches.
const jsonPathPaths = (doc: unknown, path: string) =>
  (require('jsonpathly') as { paths(doc: unknown, path: string): string[] }).paths(doc, path);

interface OverlayAction {
  target: string;
  description?: string;
  update?: unknown;
  remove?: boolean;
}

export interface OverlayProblem {
  /** 1-based index of the action, when the problem belongs to one. */
  action?: number;
  target?: string;
  /** JSON path of the term in the document, e.g. $.paths['/v1/webhooks'].post['x-webhook-retry']. */
  path?: string;
  message: string;
}

export function formatProblem(file: string, p: OverlayProblem): string {
  const where = p.action !== undefined ? `action #${p.action} (target ${p.target}): ` : '';
  return `overlay ${file}: ${where}${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/** An overlay that breaks the vocabulary: the message names the first problem with its location, problems has all. */
export class OverlayInvalid extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: OverlayProblem[]
  ) {
    super(
      formatProblem(file, problems[0]!) +
        (problems.length > 1
          ? ` (and ${problems.length - 1} more problems; see cloud-conformance overlay check ${file})`
          : '')
    );
    this.name = 'OverlayInvalid';
  }
}

const overlaySchema = {
  type: 'object',
  required: ['overlay', 'info', 'actions'],
  properties: {
    overlay: { type: 'string', pattern: '^1\\.0\\.\\d+$' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: { type: 'string' }, version: { type: 'string' } },
    },
    extends: { type: 'string' },
    actions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['target'],
        properties: {
          target: { type: 'string', pattern: '^\\$' },
          description: { type: 'string' },
          update: {},
          remove: { const: true },
        },
        anyOf: [{ required: ['update'] }, { required: ['remove'] }],
      },
    },
  },
} as const;

// Compiled on first use, like the term schemas: a run from the derived cache checks no overlay.
let ajv: Ajv2020 | undefined;
const overlayAjv = () => (ajv ??= new Ajv2020({ allErrors: false, strict: false }));
let overlayShape: ValidateFunction | undefined;
const validateOverlayShape = (overlay: unknown) => (overlayShape ??= overlayAjv().compile(overlaySchema))(overlay);
const termValidators = new Map<string, ValidateFunction>();
function termValidator(name: string): ValidateFunction {
  let v = termValidators.get(name);
  if (!v) {
    v = overlayAjv().compile(TERMS_BY_NAME.get(name)!.schema);
    termValidators.set(name, v);
  }
  return v;
}

// ---- where a node of an OpenAPI document sits ---------------------------------------------------------------------

/** Kinds of node: the locations terms may take, plus containers whose keys are names (or, for some, extensions). */
type Kind =
  | LocationKind
  | 'paths'
  | 'webhooks'
  | 'webhook-item'
  | 'components'
  | 'responses'
  | 'opaque'
  | { map: Kind }
  | { list: Kind };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const SCHEMA_ONE = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const COMPONENT_KINDS: Record<string, Kind> = {
  schemas: 'schema',
  parameters: 'parameter',
  responses: 'response',
  requestBodies: 'request-body',
  headers: 'header',
  links: 'link',
  pathItems: 'path-item',
};

/** The kind of the child at key, or undefined when the key is an extension (or a field the suite does not descend into). */
function childKind(kind: Kind, key: string): Kind {
  if (typeof kind === 'object') return 'map' in kind ? kind.map : kind.list;
  switch (kind) {
    case 'document':
      return key === 'info'
        ? 'info'
        : key === 'paths'
          ? 'paths'
          : key === 'webhooks'
            ? 'webhooks'
            : key === 'components'
              ? 'components'
              : 'opaque';
    case 'paths':
      return 'path-item';
    case 'webhooks':
      return 'webhook-item';
    case 'path-item':
    case 'webhook-item':
      if (METHODS.has(key)) return kind === 'webhook-item' ? 'webhook-operation' : 'operation';
      return key === 'parameters' ? { list: 'parameter' } : 'opaque';
    case 'operation':
    case 'webhook-operation':
      return key === 'parameters'
        ? { list: 'parameter' }
        : key === 'requestBody'
          ? 'request-body'
          : key === 'responses'
            ? 'responses'
            : 'opaque';
    case 'responses':
      return 'response';
    case 'response':
      return key === 'headers'
        ? { map: 'header' }
        : key === 'content'
          ? { map: 'media-type' }
          : key === 'links'
            ? { map: 'link' }
            : 'opaque';
    case 'request-body':
      return key === 'content' ? { map: 'media-type' } : 'opaque';
    case 'media-type':
    case 'header':
    case 'parameter':
      return key === 'schema' ? 'schema' : key === 'content' ? { map: 'media-type' } : 'opaque';
    case 'schema':
      return SCHEMA_ONE.has(key)
        ? 'schema'
        : SCHEMA_MAP.has(key)
          ? { map: 'schema' }
          : SCHEMA_LIST.has(key)
            ? { list: 'schema' }
            : 'opaque';
    case 'components':
      return COMPONENT_KINDS[key] ? { map: COMPONENT_KINDS[key]! } : 'opaque';
    default:
      return 'opaque';
  }
}

/** Containers whose x- keys are extensions (a Paths or Responses object); in other containers every key is a name. */
const extensible = (kind: Kind): boolean => typeof kind === 'string';

function kindAt(segments: string[]): Kind {
  let kind: Kind = 'document';
  for (const s of segments) kind = childKind(kind, s);
  return kind;
}

const describeKind = (kind: Kind): string =>
  typeof kind === 'string'
    ? kind
    : 'map' in kind
      ? `a map of ${describeKind(kind.map)}`
      : `a list of ${describeKind(kind.list)}`;

/** $['paths']['/v1/vms']['post'] → ['paths', '/v1/vms', 'post']. */
function segmentsOf(normalized: string): string[] {
  const out: string[] = [];
  const re = /\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/g;
  for (let m = re.exec(normalized); m; m = re.exec(normalized))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return out;
}

function jsonPath(segments: readonly string[]): string {
  return (
    '$' +
    segments
      .map((s) =>
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : /^\d+$/.test(s) ? `[${s}]` : `['${s.replace(/'/g, "\\'")}']`
      )
      .join('')
  );
}

// ---- runtime expressions -------------------------------------------------------------------------------------------

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const RUNTIME_EXPRESSION = new RegExp(
  `^\\$(url|method|statusCode|(request|response)\\.(header\\.${TOKEN}|query\\.[^\\s]+|path\\.[^\\s]+|body(#(/([^~/]|~[01])*)*)?))$`
);

/** An OpenAPI 3.1 runtime expression ($response.body#/id, $response.header.Location, $request.path.id, ...). */
export function isRuntimeExpression(v: string): boolean {
  return RUNTIME_EXPRESSION.test(v);
}

// ---- the check -----------------------------------------------------------------------------------------------------

interface Occurrence {
  action: number;
  target: string;
  segments: string[];
  kind: Kind;
  key: string;
  value: unknown;
}

/** Walks an update placed at a node of the given kind, collecting x- keys and links. */
function collect(
  value: unknown,
  kind: Kind,
  segments: string[],
  found: (o: { segments: string[]; kind: Kind; key: string; value: unknown }) => void
): void {
  if (kind === 'opaque' || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (typeof kind === 'object' && 'list' in kind)
      value.forEach((v, i) => collect(v, kind.list, [...segments, String(i)], found));
    return;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key.startsWith('x-') && extensible(kind)) {
      found({ segments, kind, key, value: v });
      continue;
    }
    const child = childKind(kind, key);
    if (child === 'link') found({ segments: [...segments, key], kind: child, key: '', value: v });
    collect(v, child, [...segments, key], found);
  }
}

function ajvMessage(e: ErrorObject): string {
  const at = e.instancePath ? `${e.instancePath} ` : '';
  const allowed = e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params['allowedValues'])}` : '';
  const extra = e.params && 'additionalProperty' in e.params ? ` (${String(e.params['additionalProperty'])})` : '';
  return `${at}${e.message ?? 'is invalid'}${allowed}${extra}`;
}

function operationIds(doc: unknown): Set<string> {
  const ids = new Set<string>();
  const d = doc as {
    paths?: Record<string, Record<string, { operationId?: unknown }>>;
    webhooks?: Record<string, Record<string, { operationId?: unknown }>>;
  };
  for (const items of [d.paths ?? {}, d.webhooks ?? {}]) {
    for (const item of Object.values(items)) {
      for (const [m, op] of Object.entries(item ?? {}))
        if (METHODS.has(m) && typeof op?.operationId === 'string') ids.add(op.operationId);
    }
  }
  return ids;
}

function problemsOf(o: Occurrence, finalIds: Set<string>): string[] {
  if (o.kind === 'link' && o.key === '') {
    const link = (o.value ?? {}) as {
      operationId?: unknown;
      operationRef?: unknown;
      parameters?: Record<string, unknown>;
      requestBody?: unknown;
    };
    const out: string[] = [];
    if (typeof link.operationId === 'string' && !finalIds.has(link.operationId))
      out.push(`the link names operationId ${link.operationId}, which no operation of the document has`);
    for (const [name, v] of Object.entries(link.parameters ?? {})) {
      if (typeof v === 'string' && v.startsWith('$') && !isRuntimeExpression(v))
        out.push(
          `parameter ${name}: ${JSON.stringify(v)} is not a runtime expression ($response.body#/pointer, $response.header.Name, ...)`
        );
    }
    return out;
  }
  const term = TERMS_BY_NAME.get(o.key);
  if (!term) return [`unknown extension ${o.key}: not a term of the overlay vocabulary (spec/README.md)`];
  if (term.role === 'annotation') return [`${o.key} is an annotation of the derived document, not a declaration`];
  const kind = o.kind as LocationKind;
  if (!term.where.includes(kind))
    return [`${o.key} does not belong at ${describeKind(o.kind)} (it goes at ${term.where.join(' or ')})`];
  if (o.key === 'x-error-cases' && o.value && typeof o.value === 'object' && !Array.isArray(o.value)) {
    const unknown = Object.keys(o.value).filter((k) => !(k in ERROR_CASES));
    if (unknown.length)
      return unknown.map(
        (k) => `unknown error case ${JSON.stringify(k)} (cases: ${Object.keys(ERROR_CASES).join(', ')})`
      );
  }
  const validate = termValidator(o.key);
  if (!validate(o.value)) return [`${o.key} ${ajvMessage(validate.errors![0]!)}`];
  if ((o.key === 'x-cleanup-for' || o.key === 'x-restores') && typeof o.value === 'string' && !finalIds.has(o.value)) {
    return [`${o.key} names operationId ${o.value}, which no operation of the document has`];
  }
  if (o.key === 'x-emitted-by' && Array.isArray(o.value)) {
    const unknown = o.value.filter((v) => typeof v === 'string' && !finalIds.has(v));
    if (unknown.length)
      return [`x-emitted-by names operationId ${unknown.join(', ')}, which no operation of the document has`];
  }
  return [];
}

interface CheckedOverlay {
  /** The document after every action, $refs not resolved. */
  data: unknown;
  actions: number;
  problems: OverlayProblem[];
  /** Terms the overlay declares, by name (how many times). */
  terms: Record<string, number>;
}

/**
 * Security Requirements that cannot declare roles: a scheme the document does not define, or
 * role names that are not a list of names. Every operation's and the document's own.
 */
function securityProblems(doc: unknown): OverlayProblem[] {
  const d = doc as {
    security?: unknown;
    components?: { securitySchemes?: Record<string, unknown> };
    paths?: Record<string, Record<string, { security?: unknown }>>;
  };
  const schemes = d.components?.securitySchemes ?? {};
  const out: OverlayProblem[] = [];
  const judge = (security: unknown, segments: string[]) => {
    if (security === undefined) return;
    if (!Array.isArray(security))
      return out.push({ path: jsonPath(segments), message: 'security must be a list of Security Requirements' });
    security.forEach((req: unknown, i) => {
      for (const [name, roles] of Object.entries((req ?? {}) as Record<string, unknown>)) {
        const at = jsonPath([...segments, String(i), name]);
        if (!(name in schemes))
          out.push({
            path: at,
            message: `names security scheme ${name}, which components.securitySchemes does not define (schemes: ${Object.keys(schemes).join(', ') || 'none'})`,
          });
        else if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string' || r === ''))
          out.push({ path: at, message: 'the roles of a Security Requirement must be a list of role names (strings)' });
      }
    });
  };
  judge(d.security, ['security']);
  for (const [path, item] of Object.entries(d.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
        judge(op?.security, ['paths', path, method, 'security']);
  }
  return out;
}

/** Applies the overlay action by action and reports every problem; never throws for a bad overlay. */
export async function checkOverlay(doc: unknown, overlay: unknown): Promise<CheckedOverlay> {
  if (!validateOverlayShape(overlay)) {
    const first = overlayShape!.errors?.[0];
    return {
      data: doc,
      actions: 0,
      terms: {},
      problems: [
        {
          message:
            `the file is not an OpenAPI Overlay 1.0 document: ${first?.instancePath || '(root)'} ${first?.message ?? ''}`.trim(),
        },
      ],
    };
  }
  const ov = overlay as { overlay: string; info: unknown; actions: OverlayAction[] };
  const problems: OverlayProblem[] = [];
  const occurrences: Occurrence[] = [];
  let current = structuredClone(doc);
  for (const [i, action] of ov.actions.entries()) {
    const index = i + 1;
    let matched: string[] = [];
    try {
      matched = jsonPathPaths(current, action.target);
    } catch (err) {
      problems.push({
        action: index,
        target: action.target,
        message: `the target is not a JSONPath expression: ${(err as Error).message.split('\n')[0]}`,
      });
      continue;
    }
    const result = await openapiOverlay(current, {
      overlaySet: { overlay: ov.overlay, info: ov.info, actions: [action] },
    });
    if (result.resultData.unusedActions.length > 0 || matched.length === 0) {
      problems.push({ action: index, target: action.target, message: 'the target matches nothing in the document' });
      continue;
    }
    if (action.update !== undefined) {
      for (const p of matched) {
        const segments = segmentsOf(p);
        const kind = kindAt(segments);
        // An update at a node merges into it: its keys sit at the node's kind (an array target appends the value).
        const at: Kind = typeof kind === 'object' && 'list' in kind && !Array.isArray(action.update) ? kind.list : kind;
        collect(action.update, at, segments, (o) => occurrences.push({ action: index, target: action.target, ...o }));
      }
    }
    current = result.data;
  }
  const ids = operationIds(current);
  const terms: Record<string, number> = {};
  for (const o of occurrences) {
    if (o.key) terms[o.key] = (terms[o.key] ?? 0) + 1;
    const path = jsonPath(o.key ? [...o.segments, o.key] : o.segments);
    for (const message of problemsOf(o, ids)) problems.push({ action: o.action, target: o.target, path, message });
  }
  problems.push(...securityProblems(current));
  problems.sort((a, b) => (a.action ?? 0) - (b.action ?? 0));
  return { data: current, actions: ov.actions.length, problems, terms };
}
