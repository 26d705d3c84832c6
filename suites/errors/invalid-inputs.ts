import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { COLLECTION_KINDS } from '../../src/engine/target/ledger.ts';
import { finding, judge, skip, Unavailable } from '../../src/engine/run/check.ts';
import { inputOperations, invalidCases, type InputOperation } from '../../src/engine/generate/invalid-inputs.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { ledgerId } from '../operations.ts';
import { BACKUPS, REFUSAL_PROBES } from '../shares.ts';

/** Cases per operation: a few in quick, more where the run has time. */
const CASES = { quick: 4, full: 8, certify: 8 } as const;

/** The collection a path addresses: the segment before its last parameter, or its last segment. */
const collectionOf = (path: string) =>
  path
    .split('/')
    .filter((s) => s && !s.startsWith('{'))
    .at(-1) ?? '';

/** The concrete path: a VM the run created for a VM id, an object of the run's ledger for another; undefined when the run holds none. */
async function concretePath(ctx: CheckContext, op: InputOperation): Promise<string | undefined> {
  let path = op.path;
  for (const m of op.path.matchAll(/([^/]+)\/\{([^}]+)\}/g)) {
    const [whole, collection] = [m[0], m[1]!];
    let id: string | undefined;
    if (collection === 'vms')
      id = await ctx.objects
        .createdVmId()
        .catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
    else id = ledgerId(ctx, COLLECTION_KINDS[collection]);
    if (!id) return undefined;
    path = path.replace(whole, `${collection}/${encodeURIComponent(id)}`);
  }
  return path;
}

/**
 * Sends the cases: one by one through RunObjects.onVm where the operation writes to the run's VM (a backup of it, a
 * restore onto it: an invalid body a lenient target accepts starts an operation there), else a few at a time.
 */
async function sendCases(ctx: CheckContext, op: InputOperation, requests: CallOptions[]): Promise<Exchange[]> {
  const restore = ctx.declarations.restoreBackup;
  const isRestore = restore !== undefined && op.method === restore.method && op.path === restore.path;
  const onRunVm = op.method !== 'GET' && (isRestore || /^\/v1\/vms\/\{[^}]+\}\//.test(op.path));
  if (!onRunVm) return ctx.callEach(requests);
  const vmId = await ctx.objects.createdVmId();
  const isBackup = /^\/v1\/vms\/\{[^}]+\}\/backups$/.test(op.path);
  const taskAt = isRestore ? restore.taskId : isBackup ? ctx.declarations.taskIdOnStartBackup : undefined;
  const sent: Exchange[] = [];
  for (const r of requests) sent.push(await ctx.objects.onVm(vmId, () => ctx.call(r), taskAt));
  return sent;
}

/**
 * ERROR-OBJECT-EVERY over every operation: invalid bodies and parameters, derived from the document (the
 * overlay's declared operations included), go to every operation that takes input. Never a 5xx (must), the error object
 * on every error answer (must), and an input no target can read as valid refused (should).
 */
export const invalidInputs: Check = {
  id: 'errors.invalid-inputs',
  group: 'errors',
  shares: [REFUSAL_PROBES, BACKUPS],
  clauses: ['ERROR-OBJECT-EVERY', 'SVC-JSON'],
  level: 'must',
  why: {
    must: "the seed says every error response carries the error object, for every operation; a 5xx for a client's mistake is no answer to it",
    should:
      'which inputs an operation refuses is not shown: refusing a body that is not an object, or an object where a scalar belongs, is convention',
  },
  title: 'Every operation that takes input answers invalid input with an error object, never a 5xx',
  async run(ctx) {
    if (ctx.config.readOnly)
      return skip('--read-only: invalid inputs go to operations that write', 'a run without --read-only');
    const ops = inputOperations(ctx.spec.merged as OpenAPIV3_1.Document);
    const max = CASES[ctx.config.profile];
    const supplied: Record<string, unknown> = {
      name: ctx.objects.vmName('invalid'),
      ...(ctx.config.image ? { image: ctx.config.image } : {}),
      ...(ctx.config.subnetId ? { subnet_id: ctx.config.subnetId } : {}),
    };
    const findings: Finding[] = [];
    const crashed: Exchange[] = [];
    const unwrapped: Exchange[] = [];
    const accepted: Array<{ what: string; ex: Exchange }> = [];
    const exercised: Record<string, number> = {};
    const notExercised: Record<string, string> = {};
    for (const op of ops) {
      const name = `${op.method} ${op.path}`;
      const path = await concretePath(ctx, op);
      if (!path) {
        notExercised[name] = `needs an object the run does not hold (${op.pathParams.join(', ')})`;
        continue;
      }
      const cases = invalidCases(op, ctx.config.seed, max, supplied);
      const sent = await sendCases(
        ctx,
        op,
        cases.map((c) => ({
          method: op.method,
          path,
          ...(c.body !== undefined ? { json: c.body } : {}),
          ...(c.query ? { query: c.query } : {}),
          ...(op.public ? { as: 'anonymous' as const } : {}),
        }))
      );
      exercised[name] = cases.length;
      for (const [i, ex] of sent.entries()) {
        const c = cases[i]!;
        const status = ex.response?.status;
        if (status === undefined || status >= 500) crashed.push(ex);
        else if (status >= 400 && ctx.schema.validateComponent('Error', ex.response?.json).length) unwrapped.push(ex);
        else if (isSuccess(ex)) {
          if (c.unambiguous) accepted.push({ what: `${name} with ${c.what}`, ex });
          const kind = COLLECTION_KINDS[collectionOf(op.path)];
          if (op.method !== 'GET' && kind)
            ctx.ledger.record(
              {
                kind,
                createdBy: ctx.checkId,
                ...(kind === 'vm' ? { name: String(supplied['name']) } : {}),
                note: `an invalid input accepted (${c.what})`,
              },
              ex
            );
        }
      }
    }
    const total = Object.values(exercised).reduce((a, b) => a + b, 0);
    if (total === 0)
      return skip(
        `no operation that takes input could be exercised (${
          Object.entries(notExercised)
            .map(([k, v]) => `${k}: ${v}`)
            .join('; ') || 'the document has none'
        })`,
        "objects of the run for the operations' path parameters"
      );
    if (crashed.length)
      findings.push(
        finding(
          'must',
          `${crashed.length} invalid inputs got no answer or a 5xx: ${describeExchange(crashed[0]!)}`,
          crashed.slice(0, 10)
        )
      );
    if (unwrapped.length)
      findings.push(
        finding(
          'must',
          `${unwrapped.length} error answers to invalid inputs lack the error object: ${describeExchange(unwrapped[0]!)}: ${(unwrapped[0]!.response?.body ?? '').slice(0, 200)}`,
          unwrapped.slice(0, 10)
        )
      );
    if (accepted.length)
      findings.push(
        finding(
          'should',
          `${accepted.length} inputs no target can read as valid were accepted: ${accepted
            .slice(0, 3)
            .map((a) => `${a.what} → ${a.ex.response!.status}`)
            .join('; ')}`,
          accepted.slice(0, 10).map((a) => a.ex)
        )
      );
    const skipped = Object.keys(notExercised).length
      ? `; not exercised: ${Object.entries(notExercised)
          .map(([k, v]) => `${k} (${v})`)
          .join(', ')}`
      : '';
    return judge(
      findings,
      `${total} invalid inputs to ${Object.keys(exercised).length} operations (${Object.entries(exercised)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}) were refused with the error object${skipped}`,
      [],
      { exercised, notExercised }
    );
  },
};
