import fc from 'fast-check';
import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { describeExchange, absentId, GENERATED_LANE, ownDescription } from '../support.ts';
import { documentOperations } from '../operations.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** Ids that break careless routing, decoding and query building (RESTler's invalid dynamic objects, among others). */
function oddIds(base: string): string[] {
  return [
    `${base}?x=1`,
    `${base}/`,
    '../',
    '..%2F..',
    '%00',
    '{}',
    `${base}' OR '1'='1`,
    `${base}"`,
    ' ',
    '日本',
    '\u{1F680}',
    `${base}${'z'.repeat(2000)}`,
    '-1',
    '0',
  ];
}

/** What a request with an id that exists nowhere may be answered: a delete may be idempotent (2xx), never a 5xx. */
type Expectation = 'refused' | 'no-server-error';

/**
 * The document's other operations with an id in the path (the declared ones: a VM, backup or alarm read, the deletes,
 * the restore): reads with every unusual id; writes with only the plain id that exists nowhere, since an unusual id
 * on a careless target's delete could match what it should not.
 */
function declaredIdRequests(
  ctx: CheckContext,
  ids: readonly string[]
): Array<{ id: string; request: CallOptions; expect: Expectation }> {
  const done = /^\/v1\/(tasks\/\{[^}]+\}|vms\/\{[^}]+\}(\/backups)?)$/;
  const ops = documentOperations(ctx).filter(
    (o) =>
      !o.public &&
      /\{[^}]+\}/.test(o.path) &&
      !/api-keys/.test(o.path) &&
      !(done.test(o.path) && (o.method === 'GET' || o.path.endsWith('/backups')))
  );
  return ops.flatMap((op) => {
    const forIds = op.method === 'GET' ? ids : ctx.config.readOnly ? [] : [absentId(ctx, 'declared')];
    return forIds.map((id) => ({
      id,
      request: {
        method: op.method,
        path: op.path.replace(/\{[^}]+\}/g, encodeURIComponent(id)),
        lane: GENERATED_LANE,
        ...(op.takesBody ? { json: {} } : {}),
      },
      expect: op.method === 'DELETE' ? ('no-server-error' as const) : ('refused' as const),
    }));
  });
}

/**
 * Identifiers are opaque strings (ID-OPAQUE-STRING): any string in an id position is a well-typed request for
 * something that does not exist, answered with a 4xx, never served and never a 5xx. A few seeded random ids
 * (fast-check, --seed) join the fixed list.
 */
export const oddPathIds: Check = {
  id: 'errors.odd-path-ids',
  group: 'errors',
  shares: [REFUSAL_PROBES],
  clauses: ['ID-OPAQUE-STRING', 'TASK-POLL', 'BACKUP-CREATE'],
  level: 'must',
  why: { must: 'the seed says identifiers are opaque strings: any string in an id position is a well-formed request' },
  title: 'Unusual ids in the path get a 4xx, never a 5xx, on every operation with an id',
  async run(ctx) {
    const random = fc.sample(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), {
      seed: ctx.config.seed,
      numRuns: 5,
    });
    const ids = [...oddIds(absentId(ctx, 'odd')), ...random.map((r) => `${absentId(ctx, 'rnd')}${r}`)];
    // Writes are budgeted: the fixed list only, for the backup operation.
    const writes = ctx.config.readOnly ? [] : oddIds(absentId(ctx, 'odd')).slice(0, 8);
    // The VM record read too, where a target offers it as convention has it (the seed does not show it): its answer
    // for an id that exists nowhere is an error like any other (ERROR-OBJECT-EVERY, errors.error-object judges it).
    const records = [absentId(ctx, 'vm'), `${absentId(ctx, 'vm')}?x=1`];
    const declared = declaredIdRequests(ctx, oddIds(absentId(ctx, 'odd')));
    const answers = await ctx.callEach([
      ...ids.map((id) => ({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(id)}`, lane: GENERATED_LANE })),
      ...records.map((id) => ({ method: 'GET', path: `/v1/vms/${encodeURIComponent(id)}`, lane: GENERATED_LANE })),
      ...writes.map((id) => ({
        method: 'POST',
        path: `/v1/vms/${encodeURIComponent(id)}/backups`,
        json: { description: ownDescription(ctx, 'absent-vm') },
        lane: GENERATED_LANE,
      })),
      ...declared.map((d) => d.request),
    ]);
    const expectations: Expectation[] = [
      ...[...ids, ...records, ...writes].map((): Expectation => 'refused'),
      ...declared.map((d) => d.expect),
    ];
    const sent: Array<{ id: string; ex: Exchange; expect: Expectation }> = [
      ...ids,
      ...records,
      ...writes,
      ...declared.map((d) => d.id),
    ].map((id, i) => ({ id, ex: answers[i]!, expect: expectations[i]! }));
    // "0" and "-1" may be real ids on a target that numbers its objects (opaque strings of digits): never a 5xx, but
    // an answer with the object is no evidence. Every other id here is one no target can have issued.
    const mayExist = new Set(['0', '-1']);
    const wrong = sent.filter(
      ({ id, ex, expect }) =>
        !ex.response ||
        ex.response.status >= 500 ||
        (expect === 'refused' && ex.response.status < 400 && !mayExist.has(id))
    );
    if (wrong.length) {
      return fail(
        `${wrong.length} of ${sent.length} requests with unusual ids were not answered with a 4xx: ${wrong
          .slice(0, 3)
          .map((w) => `${w.ex.request.method} ${JSON.stringify(w.id.slice(0, 60))}: ${describeExchange(w.ex)}`)
          .join('; ')}`,
        wrong.map((w) => w.ex)
      );
    }
    const operations = new Set(
      sent.map((s) => `${s.ex.request.method} ${s.ex.request.url.split('/').slice(3, 5).join('/')}`)
    ).size;
    return pass(
      `all ${sent.length} requests with unusual ids, over ${operations} operations, got a 4xx (a delete may answer a 2xx: deleting what does not exist may be idempotent)`
    );
  },
};
