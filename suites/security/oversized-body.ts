import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess, observeErrorCase } from '../support.ts';
import type { StreamedBody } from '../../src/engine/transport/http.ts';
import { REFUSAL_PROBES } from '../shares.ts';

const OVERSIZED_BYTES = 8 * 1024 * 1024;

/** Bytes of the name's filler per chunk sent. */
const CHUNK_BYTES = 64 * 1024;

/** The create body with `extra` more characters in its name, produced as it is sent (never a string of 8 MiB). */
function longNameBody(body: Record<string, unknown>, extra: number): StreamedBody {
  const marker = 'CC_OVERSIZED_NAME_ENDS_HERE';
  const [before, after] = JSON.stringify({ ...body, name: String(body['name']) + marker }).split(marker) as [string, string];
  const filler = Buffer.alloc(CHUNK_BYTES, 'x');
  return {
    bytes: Buffer.byteLength(before) + extra + Buffer.byteLength(after),
    contentType: 'application/json',
    preview: before + 'x'.repeat(64),
    async *chunks() {
      yield Buffer.from(before);
      for (let sent = 0; sent < extra; sent += CHUNK_BYTES) yield filler.subarray(0, Math.min(CHUNK_BYTES, extra - sent));
      yield Buffer.from(after);
    },
  };
}

/**
 * Unrestricted resource consumption (OWASP API4): an 8 MiB request body is answered promptly and without a server
 * error. A well-typed body (VM-CREATE), so a 5xx or no answer is a failure; a refusal (413 and the error object,
 * which errors.error-object checks), or closing the connection on it (any answer written before may be lost to the reset), is what a careful
 * target does.
 */
export const oversizedBody: Check = {
  id: 'security.oversized-body',
  group: 'security',
  shares: [REFUSAL_PROBES],
  clauses: ['VM-CREATE', 'SVC-JSON'],
  level: 'must',
  why: { must: "the request is well-typed, so the answer is never a 5xx or a hang" },
  title: 'An 8 MiB request body gets an answer, not a 5xx or a hang',
  async run(ctx) {
    if (ctx.config.readOnly) return skip('--read-only: the probe is a create request', 'a run without --read-only');
    const { body } = ctx.objects.vmCreateBody('big');
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', streamedBody: longNameBody(body, OVERSIZED_BYTES), lane: 'generated' });
    if (isSuccess(ex)) ctx.ledger.record({ kind: 'vm', createdBy: ctx.checkId, note: 'an 8 MiB name was accepted' });
    // Closing the connection on a body it will not read is how nginx, Go and Java servers refuse it: an answer.
    const closed = ex.closedWhileSending;
    if (closed) return pass(`refused by closing the connection (${closed.sentBytes} of ${closed.bodyBytes} bytes handed over, ${closed.reason}) in ${ex.durationMs} ms`);
    const status = ex.response?.status;
    if (status === undefined || status >= 500) return fail(`an ${OVERSIZED_BYTES / 1024 / 1024} MiB body answered ${describeExchange(ex)}`, [ex]);
    ctx.observe('oversizedBodyStatus', status);
    observeErrorCase(ctx, 'payload-too-large', ex);
    return pass(`answered ${describeExchange(ex)} in ${ex.durationMs} ms`);
  },
};
