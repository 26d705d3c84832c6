import type { Check, Finding } from '../../src/engine/run/check.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import { CREATE_VM_FIELDS } from '../../src/spec/value-classes.ts';
import { documentedRefusal } from '../support.ts';
import { sendCreateCases, statusClass, type SentCase } from './_create-cases.ts';

/** The fields left out one at a time: all but the name, by which the run finds (and deletes) what it made. */
const LEFT_OUT = CREATE_VM_FIELDS.filter((f) => f !== 'name');

const answerOf = (s: SentCase) => `${s.label} → ${s.ex.response?.status ?? s.ex.transportError}`;

/**
 * Which create fields are required is not shown (U-VM-CREATE-REQUIRED), so the run learns it from the target: a valid
 * create without one field (never the name, by which the run finds what it made), every other field there, is accepted (the field is optional, its default the target's) or
 * refused (required: the target's choice). Where two or more are optional, one more create leaves all of them out (the
 * target's default VM). Whatever the answer, a request typed as the seed says is never answered with a 5xx (must);
 * each create accepted this way is then held to the create's whole contract (vms.every-create-task,
 * tasks.every-task-completes), as every other accepted create is.
 */
export const createOptionalFields: Check = {
  id: 'vms.create-optional-fields',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  why: {
    must: 'a create without one of its fields is typed as the seed says (which fields are required is not shown), so it is refused or accepted, never answered with a 5xx',
  },
  title:
    'A create-VM request without one of its fields never gets a 5xx; the fields the target accepts it without are learnt',
  async run(ctx) {
    const { body: valid } = ctx.objects.vmCreateBody('optional');
    const without = (fields: readonly string[]) =>
      Object.fromEntries(Object.entries(valid).filter(([k]) => !fields.includes(k)));
    const sent = await sendCreateCases(
      ctx,
      LEFT_OUT.map((f) => ({ label: `without ${f}`, body: without([f]) }))
    );
    const verdictOf = (s: SentCase) =>
      statusClass(s.ex) === '2xx'
        ? 'optional'
        : statusClass(s.ex) === '4xx' && !documentedRefusal(s.ex)
          ? 'required'
          : 'unknown';
    const optional = LEFT_OUT.filter((_, i) => verdictOf(sent[i]!) === 'optional');
    const required = LEFT_OUT.filter((_, i) => verdictOf(sent[i]!) === 'required');
    // The target's default VM: every optional field left out at once (its own shape, which a warm pool may serve).
    if (optional.length >= 2)
      sent.push(
        ...(await sendCreateCases(ctx, [{ label: `without ${optional.join(', ')}`, body: without(optional) }]))
      );
    ctx.observe('createOptionalFields', { optional: [...optional], required: [...required] });
    const broken = sent.filter((s) => statusClass(s.ex) === '5xx' || statusClass(s.ex) === 'other');
    const findings: Finding[] = broken.length
      ? [
          finding(
            'must',
            `${broken.length} of ${sent.length} creates without a field got a server error or no answer: ${broken.map(answerOf).join('; ')}`,
            broken.map((s) => s.ex)
          ),
        ]
      : [];
    const unknown = LEFT_OUT.filter((_, i) => verdictOf(sent[i]!) === 'unknown');
    if (findings.length === 0 && optional.length + required.length === 0)
      return skip(
        `no create without a field was answered for its content: ${sent.map(answerOf).join('; ')}`,
        'creates the target answers (quota and rate budget left)'
      );
    return judge(
      findings,
      `optional (accepted without): ${optional.join(', ') || 'none'}; required (refused without, the target's choice): ${required.join(', ') || 'none'}${unknown.length ? `; not learnt: ${unknown.join(', ')}` : ''}${optional.length >= 2 ? `; and a create without all ${optional.length} optional fields: ${answerOf(sent.at(-1)!)}` : ''}`
    );
  },
};
