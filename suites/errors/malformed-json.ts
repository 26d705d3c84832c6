import type { Check } from '../../src/engine/run/check.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { pass, fail, Unavailable } from '../../src/engine/run/check.ts';
import { describeExchange, observeErrorCase } from '../support.ts';
import { documentOperations, pathWithAbsentIds } from '../operations.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** A body cut off mid-value: JSON no parser accepts. */
const MALFORMED = '{"name": "cc-malformed", "vcpus": ';

/**
 * Requests are JSON: a body that does not parse is the client's error (4xx), never accepted and never a 5xx, on every
 * operation of the document that takes a body (token issuance and the declared ones included): a parser is often
 * per route. Path ids are the run's VM where the path is under one (so the body is what is judged, not the id),
 * else ids that exist nowhere (a 404 is a 4xx too). The error object on each refusal is errors.error-object's.
 */
export const malformedJson: Check = {
  id: 'errors.malformed-json',
  group: 'errors',
  shares: [REFUSAL_PROBES],
  clauses: ['SVC-JSON'],
  level: 'must',
  why: { must: "the seed says requests are JSON: a body that does not parse is the client's error" },
  title: 'A request body that is not valid JSON is refused with a 4xx, on every operation that takes one',
  async run(ctx) {
    const vmId = await ctx.objects
      .createdVmId()
      .catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
    const ops = documentOperations(ctx).filter((o) => o.takesBody && ['POST', 'PUT', 'PATCH'].includes(o.method));
    const requests: CallOptions[] = ops.map((op) => {
      const path = pathWithAbsentIds(ctx, op.path, vmId ? { vms: vmId } : {});
      return {
        method: op.method,
        path,
        rawBody: MALFORMED,
        headers: { 'content-type': 'application/json' },
        ...(op.public ? { as: 'anonymous' as const } : {}),
      };
    });
    const answers = await ctx.callEach(requests);
    const wrong = answers.filter(
      (ex) => ex.response === undefined || ex.response.status < 400 || ex.response.status >= 500
    );
    if (wrong.length)
      return fail(`malformed JSON answered ${wrong.map(describeExchange).join('; ')}; expected a 4xx`, wrong);
    const onCreate = answers.find(
      (ex) => ex.request.method === 'POST' && new URL(ex.request.url).pathname === '/v1/vms'
    );
    if (onCreate) observeErrorCase(ctx, 'invalid-request', onCreate);
    return pass(
      `malformed JSON was refused on all ${answers.length} operations that take a body: ${answers.map((ex) => `${ex.request.method} ${new URL(ex.request.url).pathname} ${ex.response!.status}`).join(', ')}`
    );
  },
};
