import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { describe, observeErrorCase } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** Requests are JSON: a body that does not parse is the client's error (4xx), never accepted and never a 5xx. */
export const malformedJson: Check = {
  id: 'errors.malformed-json',
  group: 'errors',
  shares: [REFUSAL_PROBES],
  clauses: ['SVC-JSON'],
  level: 'must',
  why: { must: "the seed says requests are JSON: a body that does not parse is the client's error" },
  title: 'A request body that is not valid JSON is refused with a 4xx',
  async run(ctx) {
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', rawBody: '{"name": "cc-malformed", "vcpus": ', headers: { 'content-type': 'application/json' } });
    const status = ex.response?.status;
    if (status === undefined || status < 400 || status >= 500) return fail(`malformed JSON answered ${describe(ex)}; expected a 4xx`, [ex]);
    observeErrorCase(ctx, 'invalid-request', ex);
    return pass(`malformed JSON was refused: ${describe(ex)}`);
  },
};
