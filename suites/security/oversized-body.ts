import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { describeExchange, isSuccess, observeErrorCase, ownDescription } from '../support.ts';
import { documentOperations, pathWithAbsentIds } from '../operations.ts';
import type { StreamedBody } from '../../src/engine/transport/http.ts';
import { REFUSAL_PROBES } from '../shares.ts';

const OVERSIZED_BYTES = 8 * 1024 * 1024;

/** Bytes of the name's filler per chunk sent. */
const CHUNK_BYTES = 64 * 1024;

/** A body with `extra` more characters in one string field, produced as it is sent (never a string of 8 MiB). */
function paddedBody(body: Record<string, unknown>, field: string, extra: number): StreamedBody {
  const marker = 'CC_OVERSIZED_FIELD_ENDS_HERE';
  const [before, after] = JSON.stringify({ ...body, [field]: String(body[field] ?? '') + marker }).split(marker) as [
    string,
    string,
  ];
  const filler = Buffer.alloc(CHUNK_BYTES, 'x');
  return {
    bytes: Buffer.byteLength(before) + extra + Buffer.byteLength(after),
    contentType: 'application/json',
    preview: before + 'x'.repeat(64),
    async *chunks() {
      yield Buffer.from(before);
      for (let sent = 0; sent < extra; sent += CHUNK_BYTES)
        yield filler.subarray(0, Math.min(CHUNK_BYTES, extra - sent));
      yield Buffer.from(after);
    },
  };
}

/** How one oversized request was answered: closing the connection or a status below 500 is an answer. */
function answeredWell(ex: Exchange): boolean {
  if (ex.closedWhileSending) return true;
  const status = ex.response?.status;
  return status !== undefined && status < 500;
}

/**
 * Beyond the create, in full and certify: every other operation that takes a body (a parser is often per route), on
 * ids that exist nowhere (token issuance with a key nobody has, so no key's issuance budget is spent), the body's one
 * string field padded. Operations without an id to make absent (a webhook registration, an alarm) are left out: one
 * that took the body would register or create something.
 */
async function otherBodyOperations(ctx: CheckContext): Promise<Array<{ name: string; ex: Exchange }>> {
  const ops = documentOperations(ctx).filter(
    (o) => o.takesBody && !(o.method === 'POST' && o.path === '/v1/vms') && (o.public || /\{[^}]+\}/.test(o.path))
  );
  const out: Array<{ name: string; ex: Exchange }> = [];
  for (const op of ops) {
    const path = pathWithAbsentIds(ctx, op.path);
    const [body, field] = op.public
      ? [{ api_key: `cc-${ctx.config.runId}-no-such-key-` }, 'api_key']
      : [{ description: `${ownDescription(ctx, 'oversized')} ` }, 'description'];
    const ex = await ctx.call({
      method: op.method,
      path,
      streamedBody: paddedBody(body, field, OVERSIZED_BYTES),
      lane: 'generated',
      ...(op.public ? { as: 'anonymous' as const } : {}),
    });
    out.push({ name: `${op.method} ${op.path}`, ex });
  }
  return out;
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
  why: { must: 'the request is well-typed, so the answer is never a 5xx or a hang' },
  title: 'An 8 MiB request body gets an answer, not a 5xx or a hang, on every operation that takes one',
  async run(ctx) {
    if (ctx.config.readOnly) return skip('--read-only: the probe is a create request', 'a run without --read-only');
    const { body } = ctx.objects.vmCreateBody('big');
    const ex = await ctx.call({
      method: 'POST',
      path: '/v1/vms',
      streamedBody: paddedBody(body, 'name', OVERSIZED_BYTES),
      lane: 'generated',
    });
    // Its name starts with the run's prefix, so cleanup finds it in the list when its answer names no id.
    if (isSuccess(ex))
      ctx.ledger.record({ kind: 'vm', createdBy: ctx.checkId, note: 'an 8 MiB name was accepted' }, ex);
    if (!answeredWell(ex))
      return fail(`an ${OVERSIZED_BYTES / 1024 / 1024} MiB body answered ${describeExchange(ex)}`, [ex]);
    // Closing the connection on a body it will not read is how nginx, Go and Java servers refuse it: an answer.
    const closed = ex.closedWhileSending;
    const onCreate = closed
      ? `refused by closing the connection (${closed.sentBytes} of ${closed.bodyBytes} bytes handed over, ${closed.reason}) in ${ex.durationMs} ms`
      : `answered ${describeExchange(ex)} in ${ex.durationMs} ms`;
    if (!closed) {
      ctx.observe('oversizedBodyStatus', ex.response!.status);
      observeErrorCase(ctx, 'payload-too-large', ex);
    }
    if (ctx.config.profile === 'quick')
      return pass(`the create: ${onCreate} (the other operations that take a body are asked in full and certify)`);
    const others = await otherBodyOperations(ctx);
    const wrong = others.filter((o) => !answeredWell(o.ex));
    if (wrong.length)
      return fail(
        `an ${OVERSIZED_BYTES / 1024 / 1024} MiB body answered ${wrong.map((w) => describeExchange(w.ex)).join('; ')}`,
        wrong.map((w) => w.ex)
      );
    return pass(
      `the create: ${onCreate}; ${others.map((o) => `${o.name} → ${o.ex.closedWhileSending ? 'connection closed' : o.ex.response!.status}`).join(', ')}`
    );
  },
};
