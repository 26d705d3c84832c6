import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check } from '../../src/engine/check.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { fieldsOf, type FieldType } from '../../src/engine/generate/create-body.ts';
import { sendCreateCases, statusClass } from './create-cases.ts';

/** Values of the wrong JSON type for a field of the given seed type: the opposite primitive, null, a container. */
export function wrongTypedValues(type: FieldType): Array<{ label: string; value: unknown }> {
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
    const fields = fieldsOf(ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject, {});
    const cases = fields.flatMap((f) => wrongTypedValues(f.type).map(({ label, value }) => ({ label: `${f.name} as ${label}`, body: { ...valid, [f.name]: value } })));
    const sent = await sendCreateCases(ctx, cases);
    const wrong = sent.filter((s) => statusClass(s.ex) !== '4xx');
    if (wrong.length) {
      return fail(
        `${wrong.length} of ${sent.length} wrong-typed requests were not refused with a 4xx: ${wrong.slice(0, 3).map((w) => `${w.label} → ${w.ex.response?.status ?? w.ex.transportError}`).join('; ')}`,
        wrong.map((w) => w.ex),
        { cases: wrong.map((w) => ({ case: w.label, status: w.ex.response?.status ?? w.ex.transportError })) },
      );
    }
    return pass(`all ${sent.length} wrong-typed requests (${fields.length} fields × ${sent.length / fields.length} wrong types) were refused with a 4xx`);
  },
};
