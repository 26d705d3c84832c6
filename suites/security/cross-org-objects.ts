import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { pass, fail, skip, warn } from '../../src/engine/run/check.ts';
import { describeExchange, isSuccess, observeErrorCase, ownDescription } from '../support.ts';
import { documentOperations, requestFor, servedOperations, type DocumentOperation } from '../operations.ts';
import { templateKey } from '../../src/engine/target/served-operations.ts';

/** An item read, one id under a top-level collection: a nested read (a VM's metrics) may answer another's id emptily. */
const ITEM_READ = /^\/v1\/[a-z][a-z0-9_-]*\/\{[^}]+\}$/;

/**
 * Object-level authorization (OWASP API1): the second organization's key reaches none of the first organization's
 * resources by id, its refusals leak nothing of them, and its list never shows them. A token names the organization
 * that owns its key (AUTH-TOKEN-ORGANIZATION); a key inherits only its owner's permissions (KEY-INHERITS-ROLE).
 */
export const crossOrgObjects: Check = {
  id: 'security.cross-org-objects',
  group: 'security',
  clauses: ['AUTH-TOKEN-ORGANIZATION', 'KEY-INHERITS-ROLE'],
  level: 'must',
  why: {
    must: "the seed says a token names its key's organization and a key has its owner's permissions only: no access, no listing",
    should:
      "what a refusal may say is not shown: not naming another organization's objects is security convention (OWASP API1)",
  },
  title: "Another organization's key cannot reach this organization's VMs, tasks, backups or alarms",
  async run(ctx) {
    if (!ctx.tokens.has('second'))
      return skip(
        'needs --api-key-b (a key of a second organization)',
        '--api-key-b KEY (a key of a second organization)'
      );
    const vm = await ctx.objects.acceptedVm();
    const vmId = await ctx.objects.createdVmId();
    const task = await ctx.objects.vmTask();
    // Every probe is independent of the others: sent side by side, so a distant target costs one round trip for them.
    const asked: Array<{ what: string; request: CallOptions }> = [
      { what: 'its task', request: { as: 'second', method: 'GET', path: `/v1/tasks/${encodeURIComponent(task.id)}` } },
    ];
    if (!ctx.config.readOnly) {
      asked.push({
        what: 'a backup of its VM',
        request: {
          as: 'second',
          method: 'POST',
          path: `/v1/vms/${encodeURIComponent(vmId)}/backups`,
          json: { description: ownDescription(ctx, 'cross-organization probe') },
        },
      });
    }
    // The run's objects by id, read only: the declared VM path read with GET, every declared id-addressed read (a
    // backup, an alarm) where the run made one, and every item read the target served that the document lacks (an
    // Allow listed GET /v1/vms/{id}): object-level authorization ranges over the operations served, not the document's.
    const reads: Array<Pick<DocumentOperation, 'path'>> = [
      ...(ctx.declarations.deleteVm ? [ctx.declarations.deleteVm] : []),
      ...documentOperations(ctx).filter(
        (o) => o.method === 'GET' && !o.public && /\{[^}]+\}/.test(o.path) && !/^\/v1\/(vms|tasks)\//.test(o.path)
      ),
      ...(await servedOperations(ctx)).filter(
        (o) => o.method === 'GET' && !o.public && o.shown && ITEM_READ.test(o.path) && !o.path.startsWith('/v1/tasks/')
      ),
    ];
    const seen = new Set<string>();
    for (const op of reads) {
      if (seen.has(templateKey(op.path))) continue;
      seen.add(templateKey(op.path));
      // The run's VM for a VM path, an object of the run's for another, else an id that exists nowhere.
      const { path } = await requestFor(ctx, { method: 'GET', path: op.path, takesBody: false });
      if (path.includes(`cc-${ctx.config.runId}-absent-`)) continue;
      const collection = op.path.split('/')[2]!.replace(/s$/, '');
      asked.push({
        what:
          collection === 'vm' ? 'its VM record' : `its ${collection} ${decodeURIComponent(path.split('/')[3] ?? '')}`,
        request: { as: 'second', method: 'GET', path },
      });
    }
    const answers = await ctx.callEach(asked.map((a) => a.request));
    const probes: Array<{ what: string; ex: Exchange }> = asked.map((a, i) => ({ what: a.what, ex: answers[i]! }));
    const reached = probes.filter((p) => isSuccess(p.ex));
    if (reached.length) {
      for (const r of reached)
        if (r.ex.request.method === 'POST')
          ctx.ledger.record(
            { kind: 'backup', createdBy: ctx.checkId, note: `made by --api-key-b on VM ${vmId}` },
            r.ex
          );
      return fail(
        `--api-key-b reached the first organization's ${reached.map((r) => r.what).join(', ')}: ${reached.map((r) => describeExchange(r.ex)).join('; ')}`,
        reached.map((r) => r.ex)
      );
    }
    const walk = await ctx.objects.walkAs('second', 100);
    const shown = walk.items.filter((v) => v['id'] === vmId || v['name'] === vm.name);
    if (shown.length)
      return fail(`--api-key-b's VM list shows the first organization's VM ${vm.name}`, walk.pages.slice(0, 1));
    observeErrorCase(ctx, 'other-organization-object', probes[0]!.ex);
    const leaking = probes.filter((p) => p.ex.response?.body.includes(vm.name));
    if (leaking.length)
      return warn(
        `a refusal to --api-key-b names the first organization's VM (${vm.name})`,
        leaking.map((p) => p.ex)
      );
    return pass(
      `--api-key-b was refused ${probes.map((p) => `${p.what} (${p.ex.response?.status})`).join(', ')}, and its list of ${walk.items.length} VMs does not show it`
    );
  },
};
