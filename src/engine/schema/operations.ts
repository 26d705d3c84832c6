// Every operation of an OpenAPI document (after the overlay): what a clause's domain resolves against and what the
// checks that range over every operation send to.
import type { OpenAPIV3_1 } from 'openapi-types';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface DocumentOperation {
  operationId: string;
  method: string;
  path: string;
  /** security: [] (token issuance). */
  public: boolean;
  takesBody: boolean;
  /** A list: a GET that takes page and per_page (query parameters) and answers an object holding an array of items. */
  list: boolean;
  /** The list's array field (its first array property). */
  itemsField?: string;
  /** Answers with a task (seed: create VM and restore backup): create VM, and every operation a 2xx answer of which links to getTask. */
  longRunning: boolean;
  /** Revokes the key whose token it carries, or a key by id (x-revokes-key): no check sends it with a key the run needs. */
  revokesKey: boolean;
  /**
   * The roles that may call it: the role names of its Security Requirement (the document's
   * where it has none) for a bearer scheme, any of which suffices (a key has one role). Undefined: none declared.
   */
  roles?: string[];
}

/** The role names of a list of Security Requirements, for the document's http bearer schemes; undefined when none names a role. */
function rolesOf(
  doc: OpenAPIV3_1.Document,
  security: OpenAPIV3_1.SecurityRequirementObject[] | undefined
): string[] | undefined {
  const schemes = doc.components?.securitySchemes ?? {};
  const bearer = (name: string) => {
    const s = schemes[name] as OpenAPIV3_1.SecuritySchemeObject | undefined;
    return s?.type === 'http' && s.scheme?.toLowerCase() === 'bearer';
  };
  const roles = (security ?? []).flatMap((req) =>
    Object.entries(req)
      .filter(([name]) => bearer(name))
      .flatMap(([, names]) => names ?? [])
  );
  return roles.length ? [...new Set(roles.filter((r) => typeof r === 'string'))] : undefined;
}

const withRoles = (roles: string[] | undefined) => (roles ? { roles } : {});

export function documentOperations(doc: OpenAPIV3_1.Document): DocumentOperation[] {
  const out: DocumentOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OpenAPIV3_1.OperationObject | undefined>)?.[method];
      if (!op?.operationId) continue;
      const ok = Object.entries(op.responses ?? {}).find(([s]) => /^2/.test(s))?.[1] as
        OpenAPIV3_1.ResponseObject | undefined;
      const schema = ok?.content?.['application/json']?.schema as OpenAPIV3_1.SchemaObject | undefined;
      // A list answers an object holding an array of items (the VM list's vms; a declared list's own field).
      const itemsField =
        method === 'get'
          ? Object.entries(schema?.properties ?? {}).find(
              ([, p]) => (p as OpenAPIV3_1.SchemaObject).type === 'array'
            )?.[0]
          : undefined;
      // A list takes page and per_page (seed §4): an export that answers every entry at once is none.
      const query = [...((item as OpenAPIV3_1.PathItemObject).parameters ?? []), ...(op.parameters ?? [])]
        .filter((p): p is OpenAPIV3_1.ParameterObject => !('$ref' in p) && p.in === 'query')
        .map((p) => p.name);
      const list = itemsField !== undefined && query.includes('page') && query.includes('per_page');
      const longRunning =
        op.operationId === 'createVm' ||
        Object.entries(op.responses ?? {}).some(
          ([s, r]) =>
            /^2/.test(s) &&
            Object.values((r as OpenAPIV3_1.ResponseObject).links ?? {}).some(
              (l) => (l as { operationId?: string }).operationId === 'getTask'
            )
        );
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        public: Array.isArray(op.security) && op.security.length === 0,
        takesBody: !!op.requestBody,
        list,
        ...(itemsField ? { itemsField } : {}),
        longRunning,
        revokesKey: (op as Record<string, unknown>)['x-revokes-key'] !== undefined,
        ...withRoles(rolesOf(doc, op.security ?? doc.security)),
      });
    }
  }
  return out;
}
