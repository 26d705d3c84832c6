import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { sendCreateCases, statusClass } from './_create-cases.ts';
import { GENERATED_LANE, observeErrorCase } from '../support.ts';

/**
 * Convention, not seed: sizes are positive and a name is not empty. The seed types these fields but shows no
 * range, so a target that accepts them is warned, never failed.
 */
export const createConventions: Check = {
  id: 'vms.create-conventions',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS'],
  level: 'should',
  why: {
    should:
      'the seed shows no ranges: positive sizes, a non-empty name, an image that exists, a JSON content type and a body that is one JSON value (RFC 8259) are convention',
  },
  title:
    'A create-VM request with zero or negative sizes, an empty name, an image that does not exist, a non-JSON content type or data after its JSON value is refused with a 4xx',
  async run(ctx) {
    const { body } = ctx.objects.vmCreateBody('conv');
    const sent = await sendCreateCases(ctx, [
      { label: 'vcpus 0', body: { ...body, vcpus: 0 } },
      { label: 'vcpus -1', body: { ...body, vcpus: -1 } },
      { label: 'memory_gb 0', body: { ...body, memory_gb: 0 } },
      { label: 'system_disk_gb 0', body: { ...body, system_disk_gb: 0 } },
      { label: 'empty name', body: { ...body, name: '' } },
      // A reference to nothing: an image no target holds.
      { label: 'an image that does not exist', body: { ...body, image: `cc-${ctx.config.runId}-absent-image` } },
    ]);
    // Requests are JSON: a body labelled as something else is not a JSON request.
    const labelled = await ctx.call({
      method: 'POST',
      path: '/v1/vms',
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'text/plain' },
      lane: GENERATED_LANE,
    });
    if (statusClass(labelled) === '2xx')
      ctx.ledger.record(
        {
          kind: 'vm',
          name: String(body['name']),
          createdBy: ctx.checkId,
          note: 'accepted with content type text/plain',
        },
        labelled
      );
    sent.push({ label: 'content type text/plain', body, ex: labelled });
    observeErrorCase(ctx, 'unsupported-media-type', labelled);
    // A JSON text is one value (RFC 8259 §2): a valid create followed by more is not one, though a streaming decoder
    // that stops after the first value would take it.
    const { body: trailed } = ctx.objects.vmCreateBody('trailing');
    const trailing = await ctx.call({
      method: 'POST',
      path: '/v1/vms',
      rawBody: `${JSON.stringify(trailed)} {"name": "second value"}`,
      headers: { 'content-type': 'application/json' },
      lane: GENERATED_LANE,
    });
    if (statusClass(trailing) === '2xx')
      ctx.ledger.record(
        {
          kind: 'vm',
          name: String(trailed['name']),
          createdBy: ctx.checkId,
          note: 'accepted with data after the JSON value',
        },
        trailing
      );
    sent.push({ label: 'a second JSON value after the body', body: trailed, ex: trailing });
    const wrong = sent.filter((s) => statusClass(s.ex) !== '4xx');
    if (wrong.length) {
      return fail(
        `not refused with a 4xx: ${wrong.map((w) => `${w.label} → ${w.ex.response?.status ?? w.ex.transportError}`).join('; ')}`,
        wrong.map((w) => w.ex)
      );
    }
    return pass(`all ${sent.length} convention-invalid requests were refused with a 4xx`);
  },
};
