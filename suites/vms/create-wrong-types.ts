import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import type { OpenAPIV3_1 } from 'openapi-types';
import { pass, fail } from '../../src/engine/check.ts';
import { describe, isSuccess } from '../support.ts';
import { GENERATED_LANE } from './create-cases.ts';

type JsonType = 'string' | 'integer';

/** Values of the wrong JSON type for a field of the given seed type: the opposite primitive, null, a container. */
export function wrongTypedValues(type: JsonType): Array<{ label: string; value: unknown }> {
  return type === 'integer'
    ? [{ label: 'a numeric string', value: '2' }, { label: 'a fraction', value: 1.5 }, { label: 'null', value: null }]
    : [{ label: 'an integer', value: 12345 }, { label: 'null', value: null }, { label: 'an array', value: ['x'] }];
}

/**
 * Deterministic coverage: each create-VM field in turn gets each wrong JSON type while every other field stays
 * valid, so a single mistyped field is found on every run, not by luck. The seed types the fields (VM-CREATE-FIELDS):
 * such a request is the client's error, a 4xx; accepting it or failing with a 5xx both break the contract.
 */
export const createWrongTypes: Check = {
  id: 'vms.create-wrong-types',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  title: 'A create-VM request with one field of the wrong JSON type is refused with a 4xx',
  async run(ctx) {
    const { body: valid } = ctx.fixtures.vmCreateBody('types');
    const schema = ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject;
    const fields = Object.entries(schema.properties ?? {}).map(([name, s]) => [name, (s as OpenAPIV3_1.SchemaObject).type as JsonType] as const);
    const sent: Array<{ field: string; label: string; ex: Exchange }> = [];
    for (const [field, type] of fields) {
      for (const { label, value } of wrongTypedValues(type)) {
        const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: { ...valid, [field]: value }, lane: GENERATED_LANE });
        sent.push({ field, label, ex });
        if (isSuccess(ex)) ctx.ledger.record({ kind: 'vm', name: String(valid['name']), createdBy: ctx.checkId, note: `accepted with ${field} as ${label}` });
      }
    }
    const wrong = sent.filter((s) => !s.ex.response || s.ex.response.status < 400 || s.ex.response.status >= 500);
    if (wrong.length) {
      return fail(
        `${wrong.length} of ${sent.length} wrong-typed requests were not refused with a 4xx: ${wrong.slice(0, 3).map((w) => `${w.field} as ${w.label} → ${describe(w.ex).split('→ ')[1]}`).join('; ')}`,
        wrong.map((w) => w.ex),
        { cases: wrong.map((w) => ({ field: w.field, value: w.label, status: w.ex.response?.status ?? w.ex.transportError })) },
      );
    }
    return pass(`all ${sent.length} wrong-typed requests (${fields.length} fields × ${sent.length / fields.length} wrong types) were refused with a 4xx`);
  },
};
