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
  };
}
