import type { OpenAPIV3_1 } from 'openapi-types';
import type { LoadedSpec, OpenApiDocument } from './load.ts';

/** Where a value sits in a response: a JSON pointer into the body, or a header name. */
export type ValueLocation = { in: 'body'; pointer: string } | { in: 'header'; name: string };

export interface TaskDeclaration {
  stateField?: string;
  terminal?: string[];
  success?: string[];
}

export interface ErrorCase {
  status: number;
  code: string;
  'retry-after'?: boolean;
}

export interface DeclaredOperation {
  method: string;
  path: string;
  operationId?: string;
}

export interface WebhookDeclaration {
  register: DeclaredOperation & { urlField: string; eventsField: string; secretField?: string };
  /** The operation that deletes a registration (x-cleanup-for: registerWebhook). */
  remove?: DeclaredOperation;
  signature?: { header: string; algorithm: string; prefix: string; encoding: 'hex' | 'base64' };
  retry?: { attempts: number; afterSeconds: number };
  /** Event names from the document's top-level webhooks, with their family. */
  events: Array<{ name: string; family: string }>;
  /** Where a delivery names its event type: a header, else a body field. */
  typeHeader?: string;
  typeField?: string;
}

export interface AlarmDeclaration {
  create: DeclaredOperation;
  /** A request body that makes an alarm fire; "{vm_id}" stands for a VM the run created. */
  firingBody: Record<string, unknown>;
}

export interface AuditDeclaration {
  search: DeclaredOperation;
  export?: DeclaredOperation & { formatParam: string; formats: Record<string, string> };
  entriesField: string;
  fields: { id: string; actor: string; sourceIp: string; result: string; path: string; status?: string };
  /** Query parameters that filter by actor and by result, and the result values. */
  filters: { actor?: string; result?: string };
  resultValues: { success: string; failure: string };
}

/** The target's choices for what the seed leaves unshown, as declared by its overlay (spec/README.md). */
export interface Declarations {
  taskIdOnCreateVm?: ValueLocation;
  taskIdOnStartBackup?: ValueLocation;
  totalField?: string;
  perPageOverMax?: 'clamp' | 'reject';
  firstPage?: number;
  task: TaskDeclaration;
  tagsField?: string;
  errorCases: Record<string, ErrorCase>;
  deleteVm?: DeclaredOperation;
  restoreBackup?: DeclaredOperation;
  /** The operation that revokes the key of the calling token (x-revokes-key: current). */
  revokeKey?: DeclaredOperation;
  webhooks?: WebhookDeclaration;
  alarms?: AlarmDeclaration;
  audit?: AuditDeclaration;
}

type Operation = OpenAPIV3_1.OperationObject;
type Responses = OpenAPIV3_1.ResponsesObject;
type Extended<T> = T & Record<`x-${string}`, unknown>;

/** Parses an OpenAPI runtime expression such as $response.body#/task_id or $response.header.Location. */
export function parseRuntimeExpression(expr: unknown): ValueLocation | undefined {
  if (typeof expr !== 'string') return undefined;
  const body = /^\$response\.body#(\/.*)$/.exec(expr);
  if (body) return { in: 'body', pointer: body[1]! };
  const header = /^\$response\.header\.(.+)$/.exec(expr);
  if (header) return { in: 'header', name: header[1]! };
  return undefined;
}

function successResponse(op: Operation | undefined): Extended<OpenAPIV3_1.ResponseObject> | undefined {
  const responses = (op?.responses ?? {}) as Responses;
  const key = Object.keys(responses).find((k) => /^2(\d\d|XX)$/.test(k));
  return key ? (responses[key] as Extended<OpenAPIV3_1.ResponseObject>) : undefined;
}

function taskLinkLocation(op: Operation | undefined): ValueLocation | undefined {
  const links = successResponse(op)?.links ?? {};
  for (const link of Object.values(links) as OpenAPIV3_1.LinkObject[]) {
    if (link.operationId === 'getTask') return parseRuntimeExpression(link.parameters?.['id']);
  }
  return undefined;
}

export function findOperation(doc: OpenApiDocument, pred: (op: Extended<Operation>) => boolean): DeclaredOperation | undefined {
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = (item as Record<string, unknown>)?.[method] as Extended<Operation> | undefined;
      if (op && pred(op)) return { method: method.toUpperCase(), path: p, operationId: op.operationId };
    }
  }
  return undefined;
}

function operation(doc: OpenApiDocument, p: string, method: 'get' | 'post'): Operation | undefined {
  return (doc.paths?.[p] as Record<string, Operation> | undefined)?.[method];
}

function stringArray(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

export function readDeclarations(spec: LoadedSpec): Declarations {
  const doc = spec.merged;
  const components = (doc.components ?? {}) as OpenAPIV3_1.ComponentsObject;
  const task = (components.schemas?.['Task'] ?? {}) as Record<string, unknown>;
  const perPage = (components.parameters?.['per_page'] ?? {}) as Record<string, unknown>;
  const page = (components.parameters?.['page'] ?? {}) as Record<string, unknown>;
  const vmCreate = (components.schemas?.['VmCreateRequest'] ?? {}) as Record<string, unknown>;
  const listResponse = successResponse(operation(doc, '/v1/vms', 'get'));
  const total = listResponse?.['x-total-count'] as { field?: unknown } | undefined;
  const info = doc.info as Extended<OpenAPIV3_1.InfoObject>;
  const over = perPage['x-per-page-over-max'];
  return {
    taskIdOnCreateVm: taskLinkLocation(operation(doc, '/v1/vms', 'post')),
    taskIdOnStartBackup: taskLinkLocation(operation(doc, '/v1/vms/{id}/backups', 'post')),
    totalField: typeof total?.field === 'string' ? total.field : undefined,
    perPageOverMax: over === 'clamp' || over === 'reject' ? over : undefined,
    firstPage: typeof page['x-first-page'] === 'number' ? (page['x-first-page'] as number) : undefined,
    task: {
      stateField: typeof task['x-state-field'] === 'string' ? (task['x-state-field'] as string) : undefined,
      terminal: stringArray(task['x-terminal-states']),
      success: stringArray(task['x-success-states']),
    },
    tagsField: typeof vmCreate['x-tags-field'] === 'string' ? (vmCreate['x-tags-field'] as string) : undefined,
    errorCases: (info['x-error-cases'] as Record<string, ErrorCase> | undefined) ?? {},
    deleteVm: findOperation(doc, (op) => op['x-cleanup-for'] === 'createVm'),
    restoreBackup: findOperation(doc, (op) => op['x-restores'] === 'startBackup'),
    revokeKey: findOperation(doc, (op) => op['x-revokes-key'] === 'current'),
    webhooks: readWebhooks(doc),
    alarms: readAlarms(doc),
    audit: readAudit(doc),
  };
}

type Ext = Record<string, unknown>;
const str = (v: unknown, fallback?: string): string | undefined => (typeof v === 'string' ? v : fallback);

function operationWith(doc: OpenApiDocument, key: string, value?: unknown): (DeclaredOperation & { op: Ext }) | undefined {
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = (item as Record<string, unknown>)?.[method] as Ext | undefined;
      if (op && key in op && (value === undefined || op[key] === value)) return { method: method.toUpperCase(), path: p, operationId: str(op['operationId']), op };
    }
  }
  return undefined;
}

function readWebhooks(doc: OpenApiDocument): WebhookDeclaration | undefined {
  const reg = operationWith(doc, 'x-webhook-registration');
  if (!reg) return undefined;
  const r = (reg.op['x-webhook-registration'] ?? {}) as Ext;
  const sig = reg.op['x-webhook-signature'] as Ext | undefined;
  const retry = reg.op['x-webhook-retry'] as Ext | undefined;
  const events = Object.entries(((doc as Ext)['webhooks'] ?? {}) as Record<string, Ext>).map(([name, item]) => ({
    name,
    family: str(((item['post'] ?? {}) as Ext)['x-event-family'], 'unknown')!,
  }));
  const remove = operationWith(doc, 'x-cleanup-for', 'registerWebhook');
  const type = (reg.op['x-event-type-in'] ?? {}) as Ext;
  return {
    register: { method: reg.method, path: reg.path, operationId: reg.operationId, urlField: str(r['url-field'], 'url')!, eventsField: str(r['events-field'], 'events')!, secretField: str(r['secret-field']) },
    remove: remove && { method: remove.method, path: remove.path, operationId: remove.operationId },
    signature: sig && { header: str(sig['header'], 'X-Signature')!, algorithm: str(sig['algorithm'], 'hmac-sha256')!, prefix: str(sig['prefix'], '')!, encoding: sig['encoding'] === 'base64' ? 'base64' : 'hex' },
    retry: retry && { attempts: Number(retry['attempts'] ?? 2), afterSeconds: Number(retry['after-seconds'] ?? 1) },
    events,
    typeHeader: str(type['header']),
    typeField: str(type['body-field']),
  };
}

function readAlarms(doc: OpenApiDocument): AlarmDeclaration | undefined {
  const create = operationWith(doc, 'x-alarm-firing-example');
  if (!create) return undefined;
  return { create: { method: create.method, path: create.path, operationId: create.operationId }, firingBody: (create.op['x-alarm-firing-example'] ?? {}) as Record<string, unknown> };
}

function readAudit(doc: OpenApiDocument): AuditDeclaration | undefined {
  const search = operationWith(doc, 'x-audit', 'search');
  if (!search) return undefined;
  const a = (search.op['x-audit-fields'] ?? {}) as Ext;
  const f = (search.op['x-audit-filters'] ?? {}) as Ext;
  const rv = (search.op['x-audit-result-values'] ?? {}) as Ext;
  const exp = operationWith(doc, 'x-audit', 'export');
  const formats = (exp?.op['x-audit-formats'] ?? {}) as Record<string, string>;
  return {
    search: { method: search.method, path: search.path, operationId: search.operationId },
    export: exp && { method: exp.method, path: exp.path, operationId: exp.operationId, formatParam: str(exp.op['x-audit-format-param'], 'format')!, formats },
    entriesField: str(search.op['x-audit-entries-field'], 'entries')!,
    fields: { id: str(a['id'], 'id')!, actor: str(a['actor'], 'actor')!, sourceIp: str(a['source-ip'], 'source_ip')!, result: str(a['result'], 'result')!, path: str(a['path'], 'path')!, status: str(a['status']) },
    filters: { actor: str(f['actor']), result: str(f['result']) },
    resultValues: { success: str(rv['success'], 'success')!, failure: str(rv['failure'], 'failure')! },
  };
}
