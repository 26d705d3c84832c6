import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip } from '../../src/engine/check.ts';
import { describe, isSuccess } from '../support.ts';

const OVERSIZED_BYTES = 8 * 1024 * 1024;

/**
 * Unrestricted resource consumption (OWASP API4): an 8 MiB request body is answered promptly and without a server
 * error. A well-typed body (VM-CREATE), so a 5xx or no answer is a failure; a refusal (413 and the error object,
 * which errors.error-object checks) is what a careful target does.
 */
export const oversizedBody: Check = {
  id: 'security.oversized-body',
  group: 'security',
  clauses: ['VM-CREATE', 'SVC-JSON'],
  level: 'must',
  why: { must: "the request is well-typed, so the answer is never a 5xx or a hang" },
  title: 'An 8 MiB request body gets an answer, not a 5xx or a hang',
  async run(ctx) {
    if (ctx.config.readOnly) return skip('--read-only: the probe is a create request', 'a run without --read-only');
    const { body } = ctx.fixtures.vmCreateBody('big');
    const huge = { ...body, name: String(body['name']) + 'x'.repeat(OVERSIZED_BYTES) };
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: huge, lane: 'generated' });
    if (isSuccess(ex)) ctx.ledger.record({ kind: 'vm', createdBy: ctx.checkId, note: 'an 8 MiB name was accepted' });
    const status = ex.response?.status;
    if (status === undefined || status >= 500) return fail(`an ${OVERSIZED_BYTES / 1024 / 1024} MiB body answered ${describe(ex)}`, [ex]);
    ctx.observe('oversizedBodyStatus', status);
    return pass(`answered ${describe(ex)} in ${ex.durationMs} ms`);
  },
};
