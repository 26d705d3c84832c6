import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, undeclared, Unavailable } from '../../src/engine/run/check.ts';
import { readLocation } from '../../src/engine/target/discover.ts';
import { kindCreatedAt } from '../../src/engine/target/ledger.ts';
import { alarmBodyFor, describeExchange, isSuccess } from '../support.ts';
import { documentOperations, requestFor, type DocumentOperation } from '../operations.ts';

/** The run's keys whose role the check tries: every key it holds but the one it may revoke. */
const KEYS = ['primary', 'readonly', 'second'] as const;
type RoleKey = (typeof KEYS)[number];

/** A refusal on authorization grounds, whatever the target's order of checks. */
function refusedForRole(ex: Exchange): boolean {
  return ex.response?.status === 401 || ex.response?.status === 403;
}

/** The role each of the run's keys carries (the token response's role), for the keys the run holds. */
async function rolesOfKeys(ctx: CheckContext): Promise<Array<{ key: RoleKey; role: string }>> {
  const out: Array<{ key: RoleKey; role: string }> = [];
  for (const key of KEYS.filter((k) => ctx.tokens.has(k))) {
    const role = (await ctx.tokens.response(key))['role'];
    if (typeof role === 'string' && role !== '') out.push({ key, role });
  }
  return out;
}

/**
 * A create valid in every respect but the role, for a key whose role may not call it: an empty body would be refused
 * as invalid first by a target that validates before it authorizes, and the call would decide nothing.
 */
async function validCreateBody(
  ctx: CheckContext,
  op: DocumentOperation,
  key: RoleKey
): Promise<Record<string, unknown> | undefined> {
  try {
    if (op.operationId === 'createVm') {
      const { body } = ctx.objects.vmCreateBody('role');
      if (key === 'second') return ctx.config.subnetIdB ? { ...body, subnet_id: ctx.config.subnetIdB } : undefined;
      return body;
    }
    const alarms = ctx.declarations.alarms;
    if (alarms && op.method === alarms.create.method && op.path === alarms.create.path && key !== 'second')
      return alarmBodyFor(alarms.firingBody, await ctx.objects.createdVmId());
    const hooks = ctx.declarations.webhooks;
    if (hooks && op.method === hooks.register.method && op.path === hooks.register.path) {
      return (await ctx.events.probeRegistration('role-probe')).body;
    }
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return undefined;
}

/** Sends one operation as one key; whatever a create made (a role let through, a lenient target) the ledger deletes. */
async function sendAs(ctx: CheckContext, op: DocumentOperation, key: RoleKey, allowed: boolean): Promise<Exchange> {
  const request = await requestFor(ctx, op, key === 'second' ? 'absent' : 'own');
  const kind = op.method === 'POST' ? kindCreatedAt(op.path) : undefined;
  const body = kind && !allowed ? await validCreateBody(ctx, op, key) : undefined;
  const ex = await ctx.call({ ...request, ...(body ? { json: body } : {}), as: key });
  if (kind && isSuccess(ex)) {
    const id =
      kind === 'webhook' && ctx.declarations.webhooks
        ? readLocation(ex, ctx.declarations.webhooks.register.id)
        : undefined;
    ctx.ledger.record(
      {
        kind,
        ...(typeof id === 'string' && id !== '' ? { id } : {}),
        createdBy: ctx.checkId,
        note: `made with the ${key} key's role${body ? '' : ' by an empty body'}`,
        ...(key === 'second' ? { owner: 'second' as const } : {}),
      },
      ex
    );
  }
  return ex;
}

/**
 * Function-level authorization as the overlay declares it: an operation's Security Requirement
 * lists the roles that may call it (OpenAPI 3.1: "a list of role names which are required for the execution"; a key
 * has one role, so any of them). Every key the run holds, with the role its token names, is served every declared
 * operation its role is listed for, and refused every one it is not. Reads go to the run's own objects (another
 * organization's key reads ids that exist nowhere: its refusal of the run's objects is isolation), writes to ids
 * that exist nowhere, so nothing of the run's changes whatever the target does; a create has an empty body where the
 * role may call it, and a valid one where it may not (what a target lets through, the ledger deletes).
 */
export const declaredRoles: Check = {
  id: 'security.declared-roles',
  group: 'security',
  clauses: ['KEY-INHERITS-ROLE'],
  level: 'declared',
  why: {
    declared:
      "the overlay lists the roles that may call each operation (security: [{bearer: [role, …]}]); a key inherits its owner's role, which its token names",
  },
  title: 'Every key is served the operations its role is declared for, and refused those it is not',
  async run(ctx) {
    const ops = documentOperations(ctx).filter(
      (o) => o.roles && !o.public && !o.revokesKey && !(ctx.config.readOnly && o.method !== 'GET')
    );
    if (ops.length === 0)
      return undeclared(
        'no operation declares the roles that may call it',
        "an overlay whose operations' security requirements list role names (security: [{bearer: [operator]}])"
      );
    const keys = await rolesOfKeys(ctx);
    const findings: Finding[] = [];
    let served = 0;
    let refused = 0;
    const undecided: string[] = [];
    const sent: Array<{ key: RoleKey; role: string; op: DocumentOperation; allowed: boolean; ex: Exchange }> = [];
    for (const { key, role } of keys)
      for (const op of ops) {
        const allowed = op.roles!.includes(role);
        sent.push({ key, role, op, allowed, ex: await sendAs(ctx, op, key, allowed) });
      }
    const onAbsentId = (op: DocumentOperation, key: RoleKey) =>
      /\{/.test(op.path) && (op.method !== 'GET' || key === 'second');
    for (const { key, role, op, allowed, ex } of sent) {
      // An id that exists nowhere may be refused 403 to hide what exists (as S3 does), or as not the caller's: a
      // refusal of a listed role there counts only where another listed role got past it on an id that exists nowhere too.
      const passedOther = sent.some(
        (s) => s.op === op && s.allowed && onAbsentId(s.op, s.key) && !refusedForRole(s.ex)
      );
      if (allowed && refusedForRole(ex) && onAbsentId(op, key) && !passedOther)
        undecided.push(
          `${op.operationId} as ${key} (${ex.response?.status}, and every listed role was refused on an id that exists nowhere)`
        );
      else if (allowed && refusedForRole(ex))
        findings.push(
          finding(
            'declared',
            `${op.operationId} refused the ${key} key, whose role ${JSON.stringify(role)} the overlay lists for it: ${describeExchange(ex)}`,
            [ex],
            { role, declared: op.roles }
          )
        );
      else if (!allowed && isSuccess(ex))
        findings.push(
          finding(
            'declared',
            `${op.operationId} served the ${key} key, whose role ${JSON.stringify(role)} the overlay does not list for it (${op.roles!.join(', ')}): ${describeExchange(ex)}`,
            [ex],
            { role, declared: op.roles }
          )
        );
      else if (allowed) served++;
      else if (refusedForRole(ex)) refused++;
      // A 404 or 422 for a role that may not call: the target may look the object up, or validate, first.
      else undecided.push(`${op.operationId} as ${key} (${ex.response?.status ?? ex.transportError})`);
    }
    const notDecided = undecided.length
      ? `; not decided (another refusal came first, which the seed allows): ${undecided.slice(0, 6).join(', ')}${undecided.length > 6 ? ` and ${undecided.length - 6} more` : ''}`
      : '';
    return judge(
      findings,
      `${keys.map((k) => `${k.key} key (${k.role})`).join(', ')} over ${ops.length} operations: ${served} calls of a listed role not refused, ${refused} of an unlisted role refused${notDecided}`
    );
  },
};

/** The roles the overlay lists for the operation a request went to; undefined where none are declared. */
export function declaredRolesOf(ctx: CheckContext, ex: Exchange): string[] | undefined {
  const opId = ctx.schema.operationFor('merged', ex.request.method, new URL(ex.request.url).pathname)?.op.operationId;
  return documentOperations(ctx).find((o) => o.operationId === opId)?.roles;
}
