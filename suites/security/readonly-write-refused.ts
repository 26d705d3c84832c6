import type { Check } from '../../src/engine/run/check.ts';
import { READONLY_PROBES } from '../shares.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import {
  describeExchange,
  wasAccepted,
  observeErrorCase,
  isSuccess,
  alarmBodyFor,
  ownDescription,
} from '../support.ts';
import { startOwnBackup } from '../own-backup.ts';
import { documentOperations } from '../operations.ts';
import { readLocation } from '../../src/engine/target/discover.ts';
import { createdId } from '../../src/engine/target/cleanup.ts';
import { declaredRolesOf } from './declared-roles.ts';
import { deleteNotOffered, tryDelete, vmToDelete } from '../vm-to-delete.ts';

interface Probe {
  what: string;
  ex: Exchange;
}

/** A backup of the run's VM that the primary key started and that has finished, to restore (undefined: why not). */
async function availableBackup(ctx: CheckContext): Promise<{ id: string } | { why: string }> {
  const backup = await startOwnBackup(ctx, {
    description: 'readonly restore probe',
    note: 'for the read-only key to try to restore',
    what: "the primary key's backup",
  });
  if (!('id' in backup)) return { why: backup.why };
  const { started, id } = backup;
  try {
    await ctx.objects.pollTask((await ctx.objects.findTask(started, ctx.declarations.taskIdOnStartBackup)).id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return { id };
}

/** A promise held for later without an unhandled rejection in the meantime; unsettle gives its outcome back. */
type Settled<T> = { value: T } | { error: unknown };
const settled = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error })
  );
function unsettle<T>(s: Settled<T>): T {
  if ('error' in s) throw s.error;
  return s.value;
}

/**
 * A key inherits its owner's permissions: a read-only owner's key makes no write, whichever it tries on its
 * organization's own objects: a VM create, a backup of the run's VM, and (where declared) a restore and a webhook.
 */
export const readonlyWriteRefused: Check = {
  id: 'security.readonly-write-refused',
  group: 'security',
  clauses: ['KEY-INHERITS-ROLE'],
  level: 'must',
  why: { must: "the seed says a key inherits its owner's role permissions; a read-only owner's key makes no write" },
  title:
    'A read-only key cannot create or delete a VM, start, restore or delete a backup, register or delete a webhook, or create or delete an alarm',
  shares: [READONLY_PROBES],
  async run(ctx) {
    if (!ctx.tokens.has('readonly'))
      return skip(
        'needs --api-key-readonly (a key whose owner may only read)',
        '--api-key-readonly KEY (a key whose owner may only read)'
      );
    // The primary key's backup and VM for the role probes are made side by side: each waits for its own task.
    const restore = ctx.declarations.restoreBackup;
    const backupReady = restore ? settled(availableBackup(ctx)) : undefined;
    const vmReady = settled(vmToDelete(ctx));
    const { body } = ctx.objects.vmCreateBody('readonly');
    const probes: Probe[] = [
      { what: 'a VM create', ex: await ctx.call({ as: 'readonly', method: 'POST', path: '/v1/vms', json: body }) },
    ];
    if (wasAccepted(probes[0]!.ex))
      ctx.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: ctx.checkId }, probes[0]!.ex);
    const notTried: string[] = [];
    // Writes on objects of the organization: a check of the role on one handler says nothing of the others.
    try {
      const vmId = await ctx.objects.createdVmId();
      const ex = await ctx.call({
        as: 'readonly',
        method: 'POST',
        path: `/v1/vms/${encodeURIComponent(vmId)}/backups`,
        json: { description: ownDescription(ctx, 'read-only key probe') },
      });
      if (wasAccepted(ex))
        ctx.ledger.record(
          { kind: 'backup', createdBy: ctx.checkId, note: `made by --api-key-readonly on VM ${vmId}` },
          ex
        );
      probes.push({ what: "a backup of the organization's VM", ex });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      notTried.push(`a backup (${err.message})`);
    }
    if (restore && backupReady) {
      try {
        const backup = await backupReady.then(unsettle);
        if ('id' in backup) {
          probes.push({
            what: "a restore of the organization's backup",
            ex: await ctx.call({
              as: 'readonly',
              method: restore.method,
              path: restore.path.replace('{id}', encodeURIComponent(backup.id)),
              json: {},
            }),
          });
          // The same backup deleted, where the document has a delete for it: the backup is this check's own.
          const remove = documentOperations(ctx).find(
            (o) => o.method === 'DELETE' && /\/backups\/\{[^}/]+\}$/.test(o.path)
          );
          if (remove)
            probes.push({
              what: "a delete of the organization's backup",
              ex: await ctx.call({
                as: 'readonly',
                method: 'DELETE',
                path: remove.path.replace(/\{[^}]+\}/, encodeURIComponent(backup.id)),
              }),
            });
        } else notTried.push(`a restore (${backup.why})`);
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        notTried.push(`a restore (${err.message})`);
      }
    } else notTried.push('a restore (not declared)');
    // The VM delete the registry knows (declared, listed by an Allow, else the conventional one cleanup relies on): a
    // conventional one answered 404 or 405 may not exist, which says nothing of roles; a VM deleted is a write made.
    try {
      const vm = await vmReady.then(unsettle);
      const deleteVm = await ctx.operations.vmDelete();
      if (!deleteVm) notTried.push('a VM delete (the overlay declares it elsewhere)');
      else if ('id' in vm) {
        const tried = await tryDelete(ctx, vm, deleteVm, { as: 'readonly' }, '--api-key-readonly');
        if ('why' in tried) notTried.push(`a VM delete (${tried.why})`);
        else if (deleteNotOffered(deleteVm, tried.ex))
          notTried.push(
            `a VM delete (${deleteVm.method} ${deleteVm.path} is not offered: ${describeExchange(tried.ex)})`
          );
        else probes.push({ what: "a delete of the organization's VM", ex: tried.ex });
      } else notTried.push(`a VM delete (${vm.why})`);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      notTried.push(`a VM delete (${err.message})`);
    }
    const alarms = ctx.declarations.alarms;
    if (alarms) {
      try {
        const body = alarmBodyFor(alarms.firingBody, await ctx.objects.createdVmId());
        const ex = await ctx.call({
          as: 'readonly',
          method: alarms.create.method,
          path: alarms.create.path,
          json: body,
        });
        if (wasAccepted(ex)) {
          const id = (ex.response?.json as { id?: unknown } | undefined)?.id;
          ctx.ledger.record(
            {
              kind: 'alarm',
              id: typeof id === 'string' ? id : undefined,
              createdBy: ctx.checkId,
              note: 'created by --api-key-readonly',
            },
            ex
          );
        }
        probes.push({ what: "an alarm on the organization's VM", ex });
        // The primary key's alarm, which the read-only key then tries to delete; the primary deletes it at once after.
        const remove = ctx.declarations.cleanup.alarm;
        if (remove) {
          const own = await ctx.call({ method: alarms.create.method, path: alarms.create.path, json: body });
          const id = isSuccess(own) ? createdId(ctx.declarations, 'alarm', own) : undefined;
          const entry = isSuccess(own)
            ? ctx.ledger.record(
                { kind: 'alarm', id, createdBy: ctx.checkId, note: 'for the read-only key to try to delete' },
                own
              )
            : undefined;
          if (entry?.id) {
            const path = remove.path.replace('{id}', encodeURIComponent(entry.id));
            probes.push({
              what: "a delete of the organization's alarm",
              ex: await ctx.call({ as: 'readonly', method: remove.method, path }),
            });
            if (isSuccess(await ctx.call({ method: remove.method, path }))) entry.cleanup = 'deleted';
          } else
            notTried.push(
              `an alarm delete (the primary key's alarm answered ${describeExchange(own)}${isSuccess(own) ? ', its id not where the overlay says' : ''})`
            );
        }
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        notTried.push(`an alarm (${err.message})`);
      }
    } else notTried.push('an alarm (not declared)');
    const hooks = ctx.declarations.webhooks;
    if (hooks) {
      try {
        // The suite's own receiver, so the request is valid in every respect but the role.
        const { url, body } = await ctx.events.probeRegistration('readonly-probe');
        const ex = await ctx.call({
          as: 'readonly',
          method: hooks.register.method,
          path: hooks.register.path,
          json: body,
        });
        if (wasAccepted(ex)) {
          const id = readLocation(ex, hooks.register.id);
          const entry = ctx.ledger.record(
            {
              kind: 'webhook',
              id: typeof id === 'string' && id !== '' ? id : undefined,
              name: url,
              createdBy: ctx.checkId,
              note: 'registered by --api-key-readonly',
            },
            ex
          );
          // Gone at once, so no delivery reaches the receiver under a path the webhook checks do not expect.
          if (hooks.remove && entry.id) {
            const removed = await ctx.call({
              method: hooks.remove.method,
              path: hooks.remove.path.replace('{id}', encodeURIComponent(entry.id)),
            });
            if (isSuccess(removed)) entry.cleanup = 'deleted';
          }
        }
        probes.push({ what: 'a webhook registration', ex });
        if (hooks.remove) {
          // The primary key's registration, which the read-only key then tries to delete; the primary deletes it after.
          const own = await ctx.call({
            method: hooks.register.method,
            path: hooks.register.path,
            json: (await ctx.events.probeRegistration('readonly-probe-primary')).body,
          });
          const id = readLocation(own, hooks.register.id);
          const entry = isSuccess(own)
            ? ctx.ledger.record(
                {
                  kind: 'webhook',
                  id: typeof id === 'string' && id !== '' ? id : undefined,
                  name: `${url}-primary`,
                  createdBy: ctx.checkId,
                  note: 'for the read-only key to try to delete',
                },
                own
              )
            : undefined;
          if (entry?.id) {
            const path = hooks.remove.path.replace('{id}', encodeURIComponent(entry.id));
            probes.push({
              what: "a delete of the organization's webhook",
              ex: await ctx.call({ as: 'readonly', method: hooks.remove.method, path }),
            });
            if (isSuccess(await ctx.call({ method: hooks.remove.method, path }))) entry.cleanup = 'deleted';
          } else notTried.push(`a webhook delete (the primary key's registration answered ${describeExchange(own)})`);
        }
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        notTried.push(`a webhook registration (${err.message})`);
      }
    } else notTried.push('a webhook registration (not declared)');
    // A write the overlay lists for the read-only key's own role is its to make (security.declared-roles judges it).
    const role = (await ctx.tokens.response('readonly'))['role'];
    const declaredForRole = probes.filter(
      (p) => typeof role === 'string' && declaredRolesOf(ctx, p.ex)?.includes(role)
    );
    const accepted = probes.filter((p) => wasAccepted(p.ex) && !declaredForRole.includes(p));
    if (accepted.length)
      return fail(
        `the read-only key made ${accepted.map((a) => `${a.what} (${describeExchange(a.ex)})`).join(', ')}`,
        accepted.map((a) => a.ex)
      );
    observeErrorCase(ctx, 'forbidden', probes[0]!.ex);
    const untried = `${notTried.length ? `; not tried: ${notTried.join(', ')}` : ''}${declaredForRole.length ? `; declared for its role ${JSON.stringify(role)}, so not judged here: ${declaredForRole.map((p) => p.what).join(', ')}` : ''}`;
    return pass(
      `refused ${probes.map((p) => `${p.what} (${p.ex.response?.status ?? p.ex.transportError})`).join(', ')}${untried}`
    );
  },
};
