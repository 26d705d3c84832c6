import type { Check } from '../../src/engine/run/check.ts';
import { UNAUTHENTICATED_PROBES } from '../shares.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, Unavailable } from '../../src/engine/run/check.ts';
import { wasAccepted, describeExchange, absentId, observeErrorCase, ownDescription } from '../support.ts';
import { operationsSent, requestFor, servedOperations } from '../operations.ts';
import { deleteNotOffered, tryDelete, vmToDelete } from '../vm-to-delete.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';

/**
 * The VM delete without a token, on a VM the primary key made for it once its create has finished: a route that looks
 * the VM up before it asks for credentials deletes it. Why it was not sent, otherwise.
 */
async function anonymousVmDelete(ctx: CheckContext): Promise<{ ex: Exchange } | { why: string }> {
  const del = await ctx.operations.vmDelete();
  if (!del) return { why: 'a VM delete (none is known)' };
  const vm = await vmToDelete(ctx);
  if (!('id' in vm)) return { why: `a VM delete (${vm.why})` };
  const tried = await tryDelete(ctx, vm, del, { as: 'anonymous' }, 'a request without a token');
  if ('why' in tried) return { why: `a VM delete (${tried.why})` };
  if (deleteNotOffered(del, tried.ex))
    return { why: `a VM delete (${del.method} ${del.path} is not offered: ${describeExchange(tried.ex)})` };
  return tried;
}

/**
 * Every operation but token issuance refuses a request that carries no Authorization header, on objects that do not
 * exist and on the run's own that do (its VM's task, a backup of its VM), and on the list; then every other operation
 * of the document once (declared ones included: reads on the run's objects, writes on ids that exist nowhere).
 */
export const bearerRequired: Check = {
  id: 'auth.bearer-required',
  group: 'auth',
  clauses: ['AUTH-BEARER-REQUIRED'],
  level: 'must',
  why: { must: 'the seed says every endpoint but token issuance requires the bearer token' },
  title: 'Every endpoint except token issuance refuses a request without a bearer token',
  shares: [UNAUTHENTICATED_PROBES],
  async run(ctx) {
    // The VM made for the delete is made while the other requests go out (its create has to finish first).
    const vmDeletion = ctx.config.readOnly ? undefined : anonymousVmDelete(ctx);
    // Awaited below: its error is this check's then, not an unhandled rejection meanwhile.
    vmDeletion?.catch(() => {});
    let createBody: Record<string, unknown> = {};
    try {
      // A valid body, so that only the missing token can be the reason for a refusal.
      createBody = ctx.objects.vmCreateBody('noauth').body;
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
    const sent: Exchange[] = await ctx.callEach([
      { as: 'anonymous', method: 'GET', path: '/v1/vms' },
      { as: 'anonymous', method: 'GET', path: '/v1/vms', query: { page: 1, per_page: 1 } },
      { as: 'anonymous', method: 'GET', path: `/v1/tasks/${absentId(ctx, 'task')}` },
      // Without a token nothing should be created, but a faulty target might: under --read-only the writes stay unsent.
      ...(ctx.config.readOnly
        ? []
        : [
            {
              as: 'anonymous' as const,
              method: 'POST',
              path: `/v1/vms/${absentId(ctx, 'vm')}/backups`,
              json: { description: ownDescription(ctx, 'absent-vm') },
            },
            { as: 'anonymous' as const, method: 'POST', path: '/v1/vms', json: createBody },
          ]),
    ]);
    // Objects that exist, too: a target that looks the object up before it asks for credentials refuses only absent ones.
    const notTried: string[] = [];
    try {
      const task = await ctx.objects.vmTask();
      sent.push(await ctx.call({ as: 'anonymous', method: 'GET', path: `/v1/tasks/${encodeURIComponent(task.id)}` }));
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      notTried.push(`the run's task (${err.message})`);
    }
    if (!ctx.config.readOnly) {
      try {
        const vmId = await ctx.objects.createdVmId();
        sent.push(
          await ctx.call({
            as: 'anonymous',
            method: 'POST',
            path: `/v1/vms/${encodeURIComponent(vmId)}/backups`,
            json: { description: 'conformance: no token' },
          })
        );
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        notTried.push(`a backup of the run's VM (${err.message})`);
      }
    }
    const deletion = await vmDeletion;
    if (deletion && 'ex' in deletion) sent.push(deletion.ex);
    else if (deletion) notTried.push(deletion.why);
    // Every other operation the target serves (declared and discovered ones), once each: the clause is about every
    // endpoint. A conventional one no answer listed is left to the VM delete above.
    const covered = operationsSent(ctx, sent);
    const rest = (await servedOperations(ctx)).filter(
      (op) => !op.public && op.shown && !covered.has(op.operationId) && (op.method === 'GET' || !ctx.config.readOnly)
    );
    sent.push(
      ...(await ctx.callEach(
        await Promise.all(rest.map(async (op) => ({ as: 'anonymous' as const, ...(await requestFor(ctx, op)) })))
      ))
    );
    const accepted = sent.filter(wasAccepted);
    for (const ex of accepted) {
      if (ex.request.method === 'POST' && new URL(ex.request.url).pathname === '/v1/vms') {
        ctx.ledger.record({ kind: 'vm', name: String(createBody['name']), createdBy: ctx.checkId }, ex);
      } else if (ex.request.method === 'POST') {
        ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: 'started without a token' }, ex);
      }
    }
    if (accepted.length) {
      return fail(`served without a token: ${accepted.map(describeExchange).join('; ')}`, accepted);
    }
    observeErrorCase(ctx, 'unauthenticated', sent[0]!);
    const untried = notTried.length ? `; not tried on ${notTried.join(' nor on ')}` : '';
    return pass(
      `all ${sent.length} requests without a token were refused, on ${operationsSent(ctx, sent).size} operations, on objects that exist and on objects that do not${untried}`,
      [],
      { statuses: sent.map(describeExchange) }
    );
  },
};
