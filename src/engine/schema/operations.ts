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
  /** A GET answering an object that holds an array of items. */
  list: boolean;
}

export function documentOperations(doc: OpenAPIV3_1.Document): DocumentOperation[] {
  const out: DocumentOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OpenAPIV3_1.OperationObject | undefined>)?.[method];
      if (!op?.operationId) continue;
      const ok = Object.entries(op.responses ?? {}).find(([s]) => /^2/.test(s))?.[1] as OpenAPIV3_1.ResponseObject | undefined;
      const schema = ok?.content?.['application/json']?.schema as OpenAPIV3_1.SchemaObject | undefined;
      // A list answers an object holding an array of items (the VM list's vms; a declared list's own field).
      const list = method === 'get' && !!schema?.properties && Object.values(schema.properties).some((p) => (p as OpenAPIV3_1.SchemaObject).type === 'array');
      out.push({ operationId: op.operationId, method: method.toUpperCase(), path, public: Array.isArray(op.security) && op.security.length === 0, takesBody: !!op.requestBody, list });
    }
  }
  return out;
}
