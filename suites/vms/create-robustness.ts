import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { sendCreateCases, statusClass } from './_create-cases.ts';

/** Strings and numbers valid by the seed's types that break careless handlers: length, planes, marks, NUL, size. */
function robustnessValues(prefix: string): Array<{ label: string; field: string; value: unknown }> {
  return [
    { label: 'a 256-character name', field: 'name', value: (prefix + 'x'.repeat(256)).slice(0, 256) },
    { label: 'a 1000-character name', field: 'name', value: (prefix + 'y'.repeat(1000)).slice(0, 1000) },
    { label: 'a name with an emoji (outside the BMP)', field: 'name', value: `${prefix}\u{1F680}` },
    {
      label: 'a name with combining marks and right-to-left text',
      field: 'name',
      value: `${prefix}e\u0301\u05D0\u05D1`,
    },
    { label: 'a name with a NUL character', field: 'name', value: `${prefix}a\u0000b` },
    { label: 'vcpus 2^31', field: 'vcpus', value: 2 ** 31 },
    { label: 'memory_gb 2^53', field: 'memory_gb', value: 2 ** 53 },
  ];
}

/**
 * These requests are valid by the seed's types; limits on them are not shown, so the target may accept or refuse
 * them, but a valid request never gets a 5xx or no answer (VM-CREATE).
 */
export const createRobustness: Check = {
  id: 'vms.create-robustness',
  group: 'vms',
  clauses: ['VM-CREATE'],
  level: 'must',
  why: { must: "the values are valid by the seed's types, so the request is well-formed and never gets a 5xx" },
  title: 'Long, unicode and large but well-typed create requests never get a 5xx',
  async run(ctx) {
    const { body } = ctx.objects.vmCreateBody('robust');
    const prefix = `${String(body['name'])}-`;
    const sent = await sendCreateCases(
      ctx,
      robustnessValues(prefix).map((v) => ({ label: v.label, body: { ...body, [v.field]: v.value } }))
    );
    const broken = sent.filter((s) => statusClass(s.ex) === '5xx' || statusClass(s.ex) === 'other');
    if (broken.length) {
      return fail(
        `${broken.length} well-typed requests broke the target: ${broken.map((b) => `${b.label} → ${b.ex.response?.status ?? b.ex.transportError}`).join('; ')}`,
        broken.map((b) => b.ex)
      );
    }
    return pass(
      `all ${sent.length} answered without a server error (${sent.map((s) => `${s.label}: ${s.ex.response?.status}`).join('; ')})`
    );
  },
};
