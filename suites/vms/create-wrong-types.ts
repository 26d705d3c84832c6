import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check } from '../../src/engine/run/check.ts';
import { judge, finding } from '../../src/engine/run/check.ts';
import { fieldsOf, isCoercible, type FieldType } from '../../src/engine/generate/create-body.ts';
import { sendCreateCases, statusClass } from './_create-cases.ts';

/**
 * Values of another JSON type for a field of the given seed type: ones a lenient server may read as the type (a
 * numeric string for an integer, null as "absent") and ones nobody can (a fraction, a word, a number for a string).
 */
function wrongTypedValues(type: FieldType): Array<{ label: string; value: unknown }> {
  return type === 'integer'
    ? [
        { label: 'a numeric string', value: '2' },
        { label: 'a word', value: 'two' },
        { label: 'a fraction', value: 1.5 },
        { label: 'null', value: null },
      ]
    : [
        { label: 'an integer', value: 12345 },
        { label: 'null', value: null },
        { label: 'an array', value: ['x'] },
      ];
}

/**
 * Deterministic coverage: each create-VM field in turn gets each wrong JSON type while every other field stays
 * valid, so a single mistyped field is found on every run, not by luck. The seed types the fields (VM-CREATE-FIELDS)
 * but shows no validation rules: a 5xx or no answer breaks the contract (must); accepting a value nobody can read as
 * the field's type breaks convention (should); accepting a coercible one is the target's choice (observed).
 */
export const createWrongTypes: Check = {
  id: 'vms.create-wrong-types',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  why: {
    must: "the seed types the fields and requests are JSON: a wrong type is the client's error, never a 5xx",
    should:
      "refusing a value that cannot be read as the field's type is convention; the seed shows no validation rules, so coercing one is allowed",
  },
  title:
    'A create-VM request with one field of the wrong JSON type never gets a 5xx, and is refused unless the value reads as the type',
  async run(ctx) {
    const { body: valid } = ctx.objects.vmCreateBody('types');
    const fields = fieldsOf(ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject, {});
    const cases = fields.flatMap((f) =>
      wrongTypedValues(f.type).map(({ label, value }) => ({
        label: `${f.name} as ${label}`,
        coercible: isCoercible(value, f.type),
        body: { ...valid, [f.name]: value },
      }))
    );
    const sent = (await sendCreateCases(ctx, cases)).map((s, i) => ({ ...s, coercible: cases[i]!.coercible }));
    const broken = sent.filter((s) => statusClass(s.ex) === '5xx' || statusClass(s.ex) === 'other');
    const accepted = sent.filter((s) => statusClass(s.ex) === '2xx');
    const lenient = accepted.filter((s) => s.coercible);
    const wrongly = accepted.filter((s) => !s.coercible);
    if (lenient.length)
      ctx.observe(
        'createCoercion',
        lenient.map((s) => s.label)
      );
    const show = (xs: typeof sent) =>
      xs
        .slice(0, 3)
        .map((w) => `${w.label} → ${w.ex.response?.status ?? w.ex.transportError}`)
        .join('; ');
    const findings = [
      ...(broken.length
        ? [
            finding(
              'must',
              `${broken.length} of ${sent.length} wrong-typed requests got a server error or no answer: ${show(broken)}`,
              broken.map((w) => w.ex),
              { cases: broken.map((w) => ({ case: w.label, status: w.ex.response?.status ?? w.ex.transportError })) }
            ),
          ]
        : []),
      ...(wrongly.length
        ? [
            finding(
              'should',
              `${wrongly.length} requests with a value that cannot be read as the field's type were accepted: ${show(wrongly)}`,
              wrongly.map((w) => w.ex),
              { cases: wrongly.map((w) => w.label) }
            ),
          ]
        : []),
    ];
    const refused = sent.length - accepted.length - broken.length;
    return judge(
      findings,
      `all ${sent.length} wrong-typed requests (${fields.length} fields) were answered without a server error: ${refused} refused with a 4xx${lenient.length ? `, ${lenient.length} coercible ones accepted (${lenient.map((s) => s.label).join(', ')})` : ''}`
    );
  },
};
