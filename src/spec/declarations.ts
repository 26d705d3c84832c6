import type { OpenAPIV3_1 } from 'openapi-types';
import type { LoadedSpec, OpenApiDocument } from './load.ts';
import { term } from './vocabulary.ts';

/**
 * Where a value sits in a response: a JSON pointer into the body, or a header. A header value may be the bare id, a
 * path or a URL: with a template (the linked operation's path, e.g. /v1/tasks/{id}) the id is read from the path.
 * claim: the value there is a JWT (the bearer token the answer hands out) and the id is that claim of it, read from its
 * payload or its protected header (x-token-claim).
 */
export type ValueLocation =
  { in: 'body'; pointer: string; claim?: string } | { in: 'header'; name: string; template?: string; claim?: string };

export interface TaskDeclaration {
  stateField?: string;
  terminal?: string[];
  success?: string[];
}

export interface ErrorCase {
  status: number;
  code?: string;
  'retry-after'?: boolean;
}

export interface DeclaredOperation {
  method: string;
  path: string;
  operationId?: string;
}

/** Kinds of resource the run creates and cleans up (the ledger's kinds). */
export type ResourceKind = 'vm' | 'backup' | 'webhook' | 'alarm';

/** The operation that deletes what a creating operation made, and where the created id is in the creating response. */
export interface CleanupDeclaration extends DeclaredOperation {
  id: ValueLocation;
}

export interface SignatureDeclaration {
  scheme: 'hmac' | 'standard-webhooks';
  header: string;
  algorithm: 'hmac-sha256' | 'hmac-sha1' | 'hmac-sha512';
  encoding: 'hex' | 'base64';
  /** Header template over {signature}, {timestamp}, {id}. */
  format: string;
  /** Signed-payload template over {body}, {timestamp}, {id}. */
  payload: string;
  timestampHeader?: string;
  idHeader?: string;
  /** Target-seconds the signed timestamp may be from the target's clock; undefined: freshness not declared. */
  toleranceSeconds?: number;
  /** The clock the signed timestamp follows: the target's (its Date headers; default) or the wall clock (x-webhook-signature clock). */
  clock?: 'target' | 'wall';
  secretFormat: 'text' | 'whsec';
}

export interface WebhookDeclaration {
  register: DeclaredOperation & { urlField: string; eventsField: string; secretField?: string; id: ValueLocation };
  /** The operation that deletes a registration (x-cleanup-for: the registration's operationId). */
  remove?: DeclaredOperation;
  /** An operation that sends a registration a test event (x-sends-test-event). */
  testEvent?: DeclaredOperation;
  signature?: SignatureDeclaration;
  /** Target-seconds before each retry of a failed delivery. */
  retry?: { delays: number[]; eventIdHeader?: string; timeoutSeconds?: number };
  /** Event names from the document's top-level webhooks, with their family. */
  events: Array<{ name: string; family: string; emittedBy?: string[]; emittedOn?: 'succeeded' | 'failed' }>;
  /** Values for the events field that subscribe to everything, or to one family (default: the names). */
  subscriptions: Record<string, string[]>;
  /** Where a delivery names its event type: a header, else a body pointer. */
  typeHeader?: string;
  typePointer: string;
}

export interface AlarmDeclaration {
  create: DeclaredOperation;
  /** A request body that makes an alarm fire; "{vm_id}" stands for a VM the run created. The first of firingBodies. */
  firingBody: Record<string, unknown>;
  /** Every firing example declared: one per comparison (or metric) the create takes, each of which must fire. */
  firingBodies: ReadonlyArray<Record<string, unknown>>;
  /** The request sent once the alarm is created that makes it fire (x-fires-alarm on a link of the create's answer). */
  fire?: AlarmFiring;
}

/** A link's request: its operation, each path parameter a runtime expression of the create or a literal, its body. */
export interface AlarmFiring {
  operation: DeclaredOperation;
  /** Path parameter → where its value is: the create's request body or response body (a pointer), or a literal. */
  parameters: Record<string, { from: 'request' | 'response'; pointer: string } | { literal: string }>;
  body?: unknown;
}

export type AuditField = 'id' | 'actor' | 'sourceIp' | 'result' | 'path' | 'status' | 'method' | 'time';

export interface AuditDeclaration {
  search: DeclaredOperation;
  /** csvColumns: the CSV column of a field, where the overlay names it (x-audit-csv-columns). */
  export?: DeclaredOperation & {
    formatParam: string;
    formats: Record<string, string>;
    csvColumns: Partial<Record<string, string>>;
  };
  /** JSON pointer of the entries array in a search response (x-audit-entries-field); undefined: found in the data. */
  entriesPointer?: string;
  /** JSON pointers into an entry. */
  fields: Record<AuditField, string>;
  /** Query parameters that filter by actor, result, path prefix, method and time window (x-audit-filters). */
  filters: { actor?: string; result?: string; pathPrefix?: string; method?: string; from?: string; to?: string };
  resultValues: { success: string; failure: string };
  /** The declared order of entries across pages (undefined: not declared; the suite reads newest first). */
  order?: 'newest-first' | 'oldest-first';
  /** A query parameter and value that ask for newest first. */
  sort?: { param: string; newestFirst: string };
  /** Whose audit shows a token issuance's entry (x-audit-unauthenticated; undefined: not declared, not looked for). */
  unauthenticated?: 'key-organization' | 'none';
  /** JSON pointer of the total in a search response (x-total-count on its response). */
  totalPointer?: string;
}

export interface RevocationDeclaration extends DeclaredOperation {
  mode: 'current' | 'by-id';
  /** by-id: where the key's id is found, on the token response or on a GET answered with the key's own token. */
  lookup?: { from: 'token' | DeclaredOperation; id: ValueLocation };
}

/** The target's choices for what the seed leaves unshown, as declared by its overlay (spec/README.md). */
export interface Declarations {
  taskIdOnCreateVm?: ValueLocation;
  taskIdOnStartBackup?: ValueLocation;
  backupIdOnStartBackup?: ValueLocation;
  totalField?: string;
  perPageOverMax?: 'clamp' | 'reject';
  firstPage?: number;
  task: TaskDeclaration;
  tagsField?: string;
  /** VMs an organization may hold (x-quota on the create, vms-per-organization); undefined: not declared. */
  vmQuota?: number;
  /** How the tag filter matches (x-tag-filter on the list's tag parameter); undefined: not declared. */
  tagFilter?: {
    case?: 'sensitive' | 'insensitive';
    repeated?: 'all' | 'any' | 'first' | 'refused';
    keyEnd?: 'first' | 'last';
  };
  /** How the rate limits count (x-rate-limit-accounting on info); undefined: not declared. */
  rateLimitAccounting?: {
    refused?: 'counted' | 'free';
    retryAfterClock?: 'target' | 'wall';
    window?: 'fixed' | 'sliding';
  };
  /** Every case with its accepted status/code pairs (a single declared pair is a list of one). */
  errorCases: Record<string, ErrorCase[]>;
  deleteVm?: DeclaredOperation;
  restoreBackup?: DeclaredOperation & { taskId?: ValueLocation };
  /** The delete operation of each kind of created resource (x-cleanup-for). */
  cleanup: Partial<Record<ResourceKind, CleanupDeclaration>>;
  revokeKey?: RevocationDeclaration;
  webhooks?: WebhookDeclaration;
  alarms?: AlarmDeclaration;
  audit?: AuditDeclaration;
}

type Operation = OpenAPIV3_1.OperationObject;
type Ext = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Reads a term's value, going through the vocabulary so a term the suite reads is always a documented one. */
const x = (obj: unknown, name: string): unknown =>
  obj && typeof obj === 'object' ? (obj as Ext)[term(name).name] : undefined;
const str = (v: unknown, fallback?: string): string | undefined => (typeof v === 'string' ? v : fallback);

/** A field name or a JSON pointer, as a pointer (dotted names reach into objects). */
function toPointer(fieldOrPointer: string): string {
  return fieldOrPointer.startsWith('/')
    ? fieldOrPointer
    : '/' +
        fieldOrPointer
          .split('.')
          .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
          .join('/');
}

/** Parses an OpenAPI runtime expression such as $response.body#/task_id or $response.header.Location. */
function parseRuntimeExpression(expr: unknown, template?: string): ValueLocation | undefined {
  if (typeof expr !== 'string') return undefined;
  const body = /^\$response\.body#(\/.*)?$/.exec(expr);
  if (body) return { in: 'body', pointer: body[1] ?? '' };
  const header = /^\$response\.header\.(.+)$/.exec(expr);
  if (header) return template ? { in: 'header', name: header[1]!, template } : { in: 'header', name: header[1]! };
  return undefined;
}

interface FoundOperation extends DeclaredOperation {
  op: Ext;
}

function operations(doc: OpenApiDocument): FoundOperation[] {
  const out: FoundOperation[] = [];
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)?.[method] as Ext | undefined;
      if (op) out.push({ method: method.toUpperCase(), path: p, operationId: str(op['operationId']), op });
    }
  }
  return out;
}

const declared = ({ method, path, operationId }: DeclaredOperation): DeclaredOperation => ({
  method,
  path,
  operationId,
});

function operationWith(doc: OpenApiDocument, name: string, value?: unknown): FoundOperation | undefined {
  return operations(doc).find((o) => x(o.op, name) !== undefined && (value === undefined || x(o.op, name) === value));
}

function byOperationId(doc: OpenApiDocument, id: string | undefined): FoundOperation | undefined {
  return id === undefined ? undefined : operations(doc).find((o) => o.operationId === id);
}

function successResponse(op: Ext | Operation | undefined): Ext | undefined {
  const responses = ((op as Operation | undefined)?.responses ?? {}) as Record<string, unknown>;
  const key = Object.keys(responses).find((k) => /^2(\d\d|XX)$/.test(k));
  return key ? (responses[key] as Ext) : undefined;
}

/**
 * Where an operation's success response says an id for another operation is: its link to that operation (or, for
 * a resource id, to another operation on the same path), the link's parameter a runtime expression.
 */
function linkedLocation(
  doc: OpenApiDocument,
  from: Ext | undefined,
  to: FoundOperation,
  samePath = false
): ValueLocation | undefined {
  const links = (successResponse(from)?.['links'] ?? {}) as Record<string, OpenAPIV3_1.LinkObject>;
  const all = Object.values(links);
  const direct = all.filter((l) => l.operationId !== undefined && l.operationId === to.operationId);
  const sibling = samePath ? all.filter((l) => byOperationId(doc, l.operationId)?.path === to.path) : [];
  for (const link of [...direct, ...sibling]) {
    const params = link.parameters ?? {};
    const expr = params['id'] ?? Object.values(params)[0];
    const loc = parseRuntimeExpression(expr, byOperationId(doc, link.operationId)?.path);
    const claim = x(link, 'x-token-claim');
    if (loc) return typeof claim === 'string' ? { ...loc, claim } : loc;
  }
  return undefined;
}

function taskLinkLocation(doc: OpenApiDocument, op: Ext | Operation | undefined): ValueLocation | undefined {
  const getTask = byOperationId(doc, 'getTask') ?? {
    method: 'GET',
    path: '/v1/tasks/{id}',
    operationId: 'getTask',
    op: {},
  };
  return linkedLocation(doc, op as Ext, getTask);
}

function operation(doc: OpenApiDocument, p: string, method: 'get' | 'post'): Operation | undefined {
  return (doc.paths?.[p] as Record<string, Operation> | undefined)?.[method];
}

function stringArray(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

/** x-error-cases with every case as a list of pairs (a single pair is accepted as a list of one). */
function readErrorCases(v: unknown): Record<string, ErrorCase[]> {
  const out: Record<string, ErrorCase[]> = {};
  for (const [name, value] of Object.entries((v ?? {}) as Record<string, unknown>)) {
    out[name] = (Array.isArray(value) ? value : [value]) as ErrorCase[];
  }
  return out;
}

export function readDeclarations(spec: LoadedSpec): Declarations {
  const doc = spec.merged;
  const components = (doc.components ?? {}) as OpenAPIV3_1.ComponentsObject;
  const task = components.schemas?.['Task'];
  const perPage = components.parameters?.['per_page'];
  const page = components.parameters?.['page'];
  const vmCreate = components.schemas?.['VmCreateRequest'];
  const total = x(successResponse(operation(doc, '/v1/vms', 'get')), 'x-total-count') as
    { field?: unknown } | undefined;
  const over = x(perPage, 'x-per-page-over-max');
  const startBackup = operation(doc, '/v1/vms/{id}/backups', 'post');
  const restore = operationWith(doc, 'x-restores', 'startBackup');
  const getBackup = operations(doc).find((o) => o.method === 'GET' && o.path === '/v1/backups/{id}');
  const cleanup = readCleanup(doc);
  return {
    taskIdOnCreateVm: taskLinkLocation(doc, operation(doc, '/v1/vms', 'post')),
    taskIdOnStartBackup: taskLinkLocation(doc, startBackup),
    backupIdOnStartBackup:
      cleanup.backup?.id ?? (getBackup ? linkedLocation(doc, startBackup as Ext, getBackup, true) : undefined),
    totalField: typeof total?.field === 'string' ? total.field : undefined,
    perPageOverMax: over === 'clamp' || over === 'reject' ? over : undefined,
    firstPage: typeof x(page, 'x-first-page') === 'number' ? (x(page, 'x-first-page') as number) : undefined,
    task: {
      stateField: str(x(task, 'x-state-field')),
      terminal: stringArray(x(task, 'x-terminal-states')),
      success: stringArray(x(task, 'x-success-states')),
    },
    tagsField: str(x(vmCreate, 'x-tags-field')),
    ...(typeof (x(operation(doc, '/v1/vms', 'post'), 'x-quota') as Ext | undefined)?.['vms-per-organization'] ===
    'number'
      ? { vmQuota: (x(operation(doc, '/v1/vms', 'post'), 'x-quota') as Ext)['vms-per-organization'] as number }
      : {}),
    ...readTagFilter(doc),
    errorCases: readErrorCases(x(doc.info, 'x-error-cases')),
    ...readRateLimitAccounting(x(doc.info, 'x-rate-limit-accounting')),
    deleteVm: cleanup.vm && declared(cleanup.vm),
    restoreBackup: restore && { ...declared(restore), taskId: taskLinkLocation(doc, restore.op) },
    cleanup,
    revokeKey: readRevocation(doc),
    webhooks: readWebhooks(doc),
    alarms: readAlarms(doc),
    audit: readAudit(doc),
  };
}

/** The kind a creating operation makes: the seed's createVm and startBackup, the declared registration and alarm. */
function kindCreatedBy(doc: OpenApiDocument, operationId: string): ResourceKind | undefined {
  if (operationId === 'createVm') return 'vm';
  if (operationId === 'startBackup') return 'backup';
  const op = byOperationId(doc, operationId);
  if (op && x(op.op, 'x-webhook-registration') !== undefined) return 'webhook';
  if (op && x(op.op, 'x-alarm-firing-example') !== undefined) return 'alarm';
  return undefined;
}

function readCleanup(doc: OpenApiDocument): Partial<Record<ResourceKind, CleanupDeclaration>> {
  const out: Partial<Record<ResourceKind, CleanupDeclaration>> = {};
  for (const del of operations(doc)) {
    const creator = str(x(del.op, 'x-cleanup-for'));
    if (!creator) continue;
    const kind = kindCreatedBy(doc, creator);
    if (!kind || out[kind]) continue;
    const createOp =
      creator === 'startBackup'
        ? (operation(doc, '/v1/vms/{id}/backups', 'post') as Ext)
        : byOperationId(doc, creator)?.op;
    out[kind] = { ...declared(del), id: linkedLocation(doc, createOp, del, true) ?? { in: 'body', pointer: '/id' } };
  }
  return out;
}

function readRevocation(doc: OpenApiDocument): RevocationDeclaration | undefined {
  const op = operationWith(doc, 'x-revokes-key');
  if (!op) return undefined;
  const mode = x(op.op, 'x-revokes-key') === 'by-id' ? 'by-id' : 'current';
  if (mode === 'current') return { ...declared(op), mode };
  const tokenOp = operation(doc, '/v1/auth/tokens', 'post') as Ext | undefined;
  const fromToken = linkedLocation(doc, tokenOp, op);
  if (fromToken) return { ...declared(op), mode, lookup: { from: 'token', id: fromToken } };
  for (const candidate of operations(doc).filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
    const id = linkedLocation(doc, candidate.op, op);
    if (id) return { ...declared(op), mode, lookup: { from: declared(candidate), id } };
  }
  return { ...declared(op), mode };
}

/** x-webhook-signature with its defaults filled in (Standard Webhooks has all of its own). */
function readSignature(sig: Ext | undefined): SignatureDeclaration | undefined {
  if (!sig) return undefined;
  if (sig['scheme'] === 'standard-webhooks') {
    return {
      scheme: 'standard-webhooks',
      header: str(sig['header'], 'webhook-signature')!,
      algorithm: 'hmac-sha256',
      encoding: 'base64',
      format: '{signature}',
      payload: '{id}.{timestamp}.{body}',
      timestampHeader: str(sig['timestamp-header'], 'webhook-timestamp'),
      idHeader: str(sig['id-header'], 'webhook-id'),
      toleranceSeconds: typeof sig['tolerance-seconds'] === 'number' ? sig['tolerance-seconds'] : 300,
      ...(sig['clock'] === 'wall' ? { clock: 'wall' as const } : {}),
      secretFormat: 'whsec',
    };
  }
  const prefix = str(sig['prefix'], '')!;
  return {
    scheme: 'hmac',
    header: str(sig['header'], 'X-Signature')!,
    algorithm: str(sig['algorithm'], 'hmac-sha256') as SignatureDeclaration['algorithm'],
    encoding: sig['encoding'] === 'base64' ? 'base64' : 'hex',
    format: str(sig['format'], `${prefix.replace(/[{}]/g, '')}{signature}`)!,
    payload: str(sig['payload'], '{body}')!,
    timestampHeader: str(sig['timestamp-header']),
    idHeader: str(sig['id-header']),
    toleranceSeconds: typeof sig['tolerance-seconds'] === 'number' ? sig['tolerance-seconds'] : undefined,
    ...(sig['clock'] === 'wall' ? { clock: 'wall' as const } : {}),
    secretFormat: sig['secret-format'] === 'whsec' ? 'whsec' : 'text',
  };
}

/** x-rate-limit-accounting on info: which requests spend a budget, which clock Retry-After counts. */
function readRateLimitAccounting(value: unknown): { rateLimitAccounting?: Declarations['rateLimitAccounting'] } {
  const v = value as Ext | undefined;
  if (!v || typeof v !== 'object') return {};
  const refused = v['refused'] === 'counted' || v['refused'] === 'free' ? v['refused'] : undefined;
  const clock =
    v['retry-after-clock'] === 'target' || v['retry-after-clock'] === 'wall' ? v['retry-after-clock'] : undefined;
  const window = v['window'] === 'fixed' || v['window'] === 'sliding' ? v['window'] : undefined;
  return {
    rateLimitAccounting: {
      ...(refused ? { refused } : {}),
      ...(clock ? { retryAfterClock: clock } : {}),
      ...(window ? { window } : {}),
    },
  };
}

/** x-tag-filter on the VM list's tag parameter (inline, or a $ref to components.parameters). */
function readTagFilter(doc: OpenApiDocument): { tagFilter?: Declarations['tagFilter'] } {
  const params = ((operation(doc, '/v1/vms', 'get') as Ext | undefined)?.['parameters'] ?? []) as Ext[];
  const resolved = params.map((p) =>
    typeof p['$ref'] === 'string'
      ? (((doc as Ext)['components'] as Ext | undefined)?.['parameters'] as Record<string, Ext> | undefined)?.[
          String(p['$ref']).split('/').pop()!
        ]
      : p
  );
  const tag = resolved.find((p) => p?.['name'] === 'tag');
  const t = x(tag, 'x-tag-filter') as Ext | undefined;
  if (!t) return {};
  const c = t['case'] === 'sensitive' || t['case'] === 'insensitive' ? t['case'] : undefined;
  const r = ['all', 'any', 'first', 'refused'].includes(String(t['repeated']))
    ? (t['repeated'] as 'all' | 'any' | 'first' | 'refused')
    : undefined;
  const k = t['key-end'] === 'first' || t['key-end'] === 'last' ? t['key-end'] : undefined;
  return { tagFilter: { ...(c ? { case: c } : {}), ...(r ? { repeated: r } : {}), ...(k ? { keyEnd: k } : {}) } };
}

/** x-webhook-retry as delays; the older form (attempts, after-seconds) means attempts - 1 equal delays. */
function readRetry(
  retry: Ext | undefined
): { delays: number[]; eventIdHeader?: string; timeoutSeconds?: number } | undefined {
  if (!retry) return undefined;
  const header = {
    ...(typeof retry['event-id-header'] === 'string' ? { eventIdHeader: retry['event-id-header'] } : {}),
    ...(typeof retry['timeout-seconds'] === 'number' && retry['timeout-seconds'] > 0
      ? { timeoutSeconds: retry['timeout-seconds'] }
      : {}),
  };
  if (Array.isArray(retry['delays'])) return { delays: (retry['delays'] as unknown[]).map(Number), ...header };
  const attempts = Number(retry['attempts'] ?? 2);
  return {
    delays: Array.from({ length: Math.max(1, attempts - 1) }, () => Number(retry['after-seconds'] ?? 1)),
    ...header,
  };
}

function readWebhooks(doc: OpenApiDocument): WebhookDeclaration | undefined {
  const reg = operationWith(doc, 'x-webhook-registration');
  if (!reg) return undefined;
  const r = (x(reg.op, 'x-webhook-registration') ?? {}) as Ext;
  const events = Object.entries(((doc as Ext)['webhooks'] ?? {}) as Record<string, Ext>).map(([name, item]) => ({
    name,
    family: str(x(item['post'], 'x-event-family'), 'unknown')!,
    ...(Array.isArray(x(item['post'], 'x-emitted-by'))
      ? { emittedBy: (x(item['post'], 'x-emitted-by') as unknown[]).map(String) }
      : {}),
    ...(x(item['post'], 'x-emitted-on') === 'succeeded' || x(item['post'], 'x-emitted-on') === 'failed'
      ? { emittedOn: x(item['post'], 'x-emitted-on') as 'succeeded' | 'failed' }
      : {}),
  }));
  const remove = operations(doc).find(
    (o) => reg.operationId !== undefined && x(o.op, 'x-cleanup-for') === reg.operationId
  );
  const test = operationWith(doc, 'x-sends-test-event');
  // The registration's id: its link to the delete (or test) operation, else the body's id.
  const id = (remove && linkedLocation(doc, reg.op, remove, true)) ??
    (test && linkedLocation(doc, reg.op, test, true)) ?? { in: 'body' as const, pointer: '/id' };
  const type = (x(reg.op, 'x-event-type-in') ?? {}) as Ext;
  const declaredSubs = (r['subscriptions'] ?? {}) as Record<string, string[]>;
  const subscriptions: Record<string, string[]> = {
    all: declaredSubs['all'] ?? events.filter((e) => e.family !== 'test').map((e) => e.name),
  };
  for (const family of new Set(events.map((e) => e.family)))
    subscriptions[family] = declaredSubs[family] ?? events.filter((e) => e.family === family).map((e) => e.name);
  return {
    register: {
      ...declared(reg),
      urlField: str(r['url-field'], 'url')!,
      eventsField: str(r['events-field'], 'events')!,
      secretField: str(r['secret-field']),
      id,
    },
    remove: remove && declared(remove),
    testEvent: test && declared(test),
    signature: readSignature(x(reg.op, 'x-webhook-signature') as Ext | undefined),
    retry: readRetry(x(reg.op, 'x-webhook-retry') as Ext | undefined),
    events,
    subscriptions,
    typeHeader: str(type['header']),
    typePointer: toPointer(str(type['body-field'], 'type')!),
  };
}

function readAlarms(doc: OpenApiDocument): AlarmDeclaration | undefined {
  const create = operationWith(doc, 'x-alarm-firing-example');
  if (!create) return undefined;
  const fire = alarmFiring(doc, create);
  const example = x(create.op, 'x-alarm-firing-example') ?? {};
  const firingBodies = (Array.isArray(example) ? example : [example]) as Array<Record<string, unknown>>;
  return {
    create: declared(create),
    firingBody: firingBodies[0] ?? {},
    firingBodies,
    ...(fire ? { fire } : {}),
  };
}

/** The link of the alarm create's success response marked x-fires-alarm, as a request the run can send. */
function alarmFiring(doc: OpenApiDocument, create: FoundOperation): AlarmFiring | undefined {
  const links = (successResponse(create.op)?.['links'] ?? {}) as Record<string, OpenAPIV3_1.LinkObject>;
  const link = Object.values(links).find((l) => x(l, 'x-fires-alarm') === true);
  const target = link && byOperationId(doc, link.operationId);
  if (!link || !target) return undefined;
  const parameters: AlarmFiring['parameters'] = {};
  for (const [name, value] of Object.entries(link.parameters ?? {})) {
    const expr = typeof value === 'string' ? /^\$(request|response)\.body#(\/.*)?$/.exec(value) : null;
    parameters[name] = expr
      ? { from: expr[1] as 'request' | 'response', pointer: expr[2] ?? '' }
      : { literal: String(value) };
  }
  return {
    operation: declared(target),
    parameters,
    ...(link.requestBody !== undefined ? { body: link.requestBody } : {}),
  };
}

const AUDIT_DEFAULTS: Record<AuditField, [string, string]> = {
  id: ['id', 'id'],
  actor: ['actor', 'actor'],
  sourceIp: ['source-ip', 'source_ip'],
  result: ['result', 'result'],
  path: ['path', 'path'],
  status: ['status', 'status'],
  method: ['method', 'method'],
  time: ['time', 'time'],
};

function readAudit(doc: OpenApiDocument): AuditDeclaration | undefined {
  const search = operationWith(doc, 'x-audit', 'search');
  if (!search) return undefined;
  const a = (x(search.op, 'x-audit-fields') ?? {}) as Ext;
  const f = (x(search.op, 'x-audit-filters') ?? {}) as Ext;
  const rv = (x(search.op, 'x-audit-result-values') ?? {}) as Ext;
  const sort = x(search.op, 'x-audit-sort') as Ext | undefined;
  const total = x(successResponse(search.op), 'x-total-count') as { field?: unknown } | undefined;
  const exp = operationWith(doc, 'x-audit', 'export');
  const fields = Object.fromEntries(
    Object.entries(AUDIT_DEFAULTS).map(([k, [key, def]]) => [k, toPointer(str(a[key], def)!)])
  ) as Record<AuditField, string>;
  return {
    search: declared(search),
    export: exp && {
      ...declared(exp),
      formatParam: str(x(exp.op, 'x-audit-format-param'), 'format')!,
      formats: (x(exp.op, 'x-audit-formats') ?? {}) as Record<string, string>,
      csvColumns: (x(exp.op, 'x-audit-csv-columns') ?? {}) as Record<string, string>,
    },
    entriesPointer:
      typeof x(search.op, 'x-audit-entries-field') === 'string'
        ? toPointer(x(search.op, 'x-audit-entries-field') as string)
        : undefined,
    fields,
    filters: {
      actor: str(f['actor']),
      result: str(f['result']),
      pathPrefix: str(f['path-prefix']),
      method: str(f['method']),
      from: str(f['from']),
      to: str(f['to']),
    },
    resultValues: { success: str(rv['success'], 'success')!, failure: str(rv['failure'], 'failure')! },
    order:
      x(search.op, 'x-audit-order') === 'oldest-first'
        ? 'oldest-first'
        : x(search.op, 'x-audit-order') === 'newest-first'
          ? 'newest-first'
          : undefined,
    sort: sort && { param: String(sort['param']), newestFirst: String(sort['newest-first']) },
    ...(x(search.op, 'x-audit-unauthenticated') === 'key-organization' ||
    x(search.op, 'x-audit-unauthenticated') === 'none'
      ? { unauthenticated: x(search.op, 'x-audit-unauthenticated') as 'key-organization' | 'none' }
      : {}),
    totalPointer: typeof total?.field === 'string' ? toPointer(total.field) : undefined,
  };
}
