import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import {
  pass,
  fail,
  skip,
  finding,
  judge,
  Unavailable,
  type CheckOutcome,
  type Finding,
} from '../../src/engine/run/check.ts';
import { readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { QUOTA_PROBE_CREATES } from '../../src/engine/target/certify.ts';
import { describeExchange, isSuccess, observeErrorCase, pathOf, taskEnd, declaredTotalPointerOf } from '../support.ts';
import { waitsLong, type RunConfig } from '../../src/engine/config/config.ts';
import { WINDOW_SECONDS } from '../../src/engine/documented-limits/limits.js';

/** Statuses that say nothing about the organization's room: credentials, time, rate, the body's size or media type. */
const NOT_ABOUT_ROOM = new Set([401, 408, 413, 415, 429]);
/** Creates the run tries again after a delete, waiting for the delete to take effect between them. */
const RETRIES_AFTER_DELETE = 3;

type Body = Record<string, unknown>;

const bodyOf = (ex: Exchange): Body | undefined => {
  try {
    const v = ex.request.body ? (JSON.parse(ex.request.body) as unknown) : undefined;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : undefined;
  } catch {
    return undefined;
  }
};

/** The create body without what differs from one valid create to the next (its name, its tags). */
const shapeOf = (body: Body) =>
  JSON.stringify(
    Object.entries(body)
      .filter(([k]) => k !== 'name' && !/tags|labels/i.test(k))
      .sort(([a], [b]) => a.localeCompare(b))
  );

const errorCodeOf = (ex: Exchange): unknown =>
  (ex.response?.json as { error?: { code?: unknown } } | undefined)?.error?.code;

/**
 * A valid create of the run refused for want of room: a 4xx (not credentials, time or rate) to a body whose shape
 * (everything but name and tags) the target accepted earlier in the run. Validation cannot refuse a body it took before.
 */
export function roomRefusal(
  log: readonly Exchange[],
  runId: string,
  ownCheck: string
): { refused: Exchange; body: Body } | undefined {
  // The run's standard valid body only (the run's shared objects, certify's population, this check): other checks vary it on purpose.
  const standard = new Set(['setup', 'certify', ownCheck]);
  const accepted = new Set<string>();
  for (const ex of log) {
    // The primary key's creates only: another key's refusal may be its role's (a read-only key's 403).
    if (
      ex.request.method !== 'POST' ||
      pathOf(ex) !== '/v1/vms' ||
      !ex.response ||
      ex.caller !== 'primary' ||
      !standard.has(ex.sentBy)
    )
      continue;
    // A JSON body like one the target took: a create that differs in media type or framing is another question.
    if (!/json/i.test(ex.request.headers['content-type'] ?? '')) continue;
    const body = bodyOf(ex);
    if (!body || !String(body['name'] ?? '').startsWith(`cc-${runId}-`)) continue;
    const status = ex.response.status;
    if (isSuccess(ex)) accepted.add(shapeOf(body));
    else if (status >= 400 && status < 500 && !NOT_ABOUT_ROOM.has(status) && accepted.has(shapeOf(body)))
      return { refused: ex, body };
  }
  return undefined;
}

/**
 * Creates the run's standard valid VM until one is refused for want of room, within the create budget: up to
 * QUOTA_PROBE_CREATES in certify, one elsewhere (a quota the run's own creates brought within reach shows at once).
 */
async function reachQuota(ctx: CheckContext): Promise<Reached> {
  const spent = ctx.ledger.entries.filter((e) => e.kind === 'vm').length;
  const most = ctx.config.profile === 'certify' ? QUOTA_PROBE_CREATES : 1;
  const budget = Math.min(
    most,
    ctx.config.maxCreates === undefined ? most : Math.max(0, ctx.config.maxCreates - spent)
  );
  if (budget > 1)
    ctx.announce(
      `creating up to ${budget} VMs (${ctx.objects.vmName('quota001')}…) to reach the organization's VM quota (ERROR-QUOTA-EXCEEDED); each is deleted at the end`
    );
  let sent = 0;
  for (; sent < budget; sent++) {
    const { body } = ctx.objects.vmCreateBody(`quota${String(sent + 1).padStart(3, '0')}`);
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
    if (isSuccess(ex)) {
      ctx.ledger.record(
        { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'reaching the VM quota' },
        ex
      );
      continue;
    }
    const status = ex.response?.status;
    if (status !== undefined && status >= 400 && status < 500 && !NOT_ABOUT_ROOM.has(status))
      return { found: { refused: ex, body }, sent: sent + 1, why: '' };
    if (status !== 429)
      return { sent: sent + 1, why: `a valid create answered ${describeExchange(ex)} before any quota` };
    const told = await outlastsRateWindow(ctx, ex, body);
    if ('refused' in told) return { found: { refused: told.refused, body }, sent: sent + 2, why: '' };
    if ('why' in told) return { sent: sent + 1, why: told.why };
    sent++;
  }
  const bound =
    budget < most
      ? `--max-creates left room for ${budget}`
      : ctx.config.profile === 'certify'
        ? `certify tries ${most}`
        : `this profile tries ${most}`;
  return {
    sent,
    why: `${sent} more valid create${sent === 1 ? ' was' : 's were'} accepted (${bound})`,
    ...(budget < most ? { cutByMaxCreates: { budget, most } } : {}),
  };
}

/** What reaching the quota came to: the refusal, or how many creates were accepted and why the probe stopped. */
interface Reached {
  found?: { refused: Exchange; body: Body };
  sent: number;
  why: string;
  /** --max-creates left fewer creates than the probe makes (its `most`): only then would a larger one help. */
  cutByMaxCreates?: { budget: number; most: number };
}

/**
 * What would verify the quota refusal when the probe reached none. A larger --max-creates only where the flag cut the
 * probe short: certify's probe makes at most QUOTA_PROBE_CREATES creates whatever the flag allows.
 */
export function quotaHowToVerify(
  profile: RunConfig['profile'],
  reached: Pick<Reached, 'cutByMaxCreates' | 'sent'>
): string {
  const closer = 'or an organization closer to its quota';
  if (profile !== 'certify')
    return `--profile certify (which creates up to ${QUOTA_PROBE_CREATES} VMs to reach it, within --max-creates), ${closer}`;
  const cut = reached.cutByMaxCreates;
  if (cut)
    return `a larger --max-creates (it left room for ${cut.budget} of the ${cut.most} creates certify's quota probe makes), ${closer}`;
  // Stopped by an answer, not by the count: the reason says which; only an organization nearer its quota changes it.
  if (reached.sent < QUOTA_PROBE_CREATES) return 'an organization closer to its quota';
  return `an organization within ${QUOTA_PROBE_CREATES} VMs of its VM quota (certify's quota probe creates at most ${QUOTA_PROBE_CREATES}, whatever --max-creates allows), or its quota declared with x-quota`;
}

/**
 * A 429 to a valid create is a rate limit or a quota (Google answers quotas 429 resource_exhausted): the status does not
 * tell, persistence does. The run paces its writes inside LIMIT-WRITE-60, so a refusal that outlasts a whole rate window
 * is no rate limit; it is then a refusal for want of room, which the delete in judgeRefusal tells a quota by.
 */
async function outlastsRateWindow(
  ctx: CheckContext,
  first: Exchange,
  body: Body
): Promise<{ refused: Exchange } | { served: Exchange } | { why: string }> {
  if (!waitsLong(ctx.config))
    return {
      why: `a valid create answered ${describeExchange(first)}: a rate limit, or a quota answered 429; --profile full or certify waits out a rate window to tell them apart`,
    };
  await ctx.sleepTarget(WINDOW_SECONDS + 1, 'a rate window to pass: a 429 that outlasts it is no rate limit');
  const { body: fresh } = ctx.objects.vmCreateBody('quota-outlast');
  const again = await ctx.call({
    method: 'POST',
    path: '/v1/vms',
    json: { ...body, name: fresh['name'] },
    retryOn429: false,
  });
  if (isSuccess(again)) {
    ctx.ledger.record(
      {
        kind: 'vm',
        name: String(fresh['name']),
        createdBy: ctx.checkId,
        note: 'accepted a rate window after a 429 (a rate limit, not a quota)',
      },
      again
    );
    return { served: again };
  }
  if (again.response?.status === 429) return { refused: again };
  return {
    why: `a valid create answered ${describeExchange(first)}, and a rate window later ${describeExchange(again)}`,
  };
}

/** Deletes one VM the run made (not the shared fixture VM), declared or conventional DELETE, and waits for its task. */
async function deleteOneOfOurs(ctx: CheckContext): Promise<{ deleted?: Exchange; why?: string }> {
  const fixtureName = (await ctx.objects.vm().catch(() => undefined))?.name;
  const ours = ctx.ledger.entries
    .filter((e) => e.kind === 'vm' && e.cleanup === 'pending' && !e.owner && e.name !== fixtureName)
    .reverse();
  if (ours.length === 0) return { why: 'the run holds no VM of its own besides the shared one' };
  if (!ours.some((e) => e.id)) {
    // Ids are learnt by name, for the newest few (the list's filter or ends find them on a long list too).
    const few = ours.slice(0, 20);
    const { matches } = await ctx.objects.findInList(few.flatMap((e) => (e.name ? [e.name] : [])));
    for (const m of matches) {
      const entry = few.find((e) => e.name === m['name']);
      if (entry && typeof m['id'] === 'string') entry.id = m['id'];
    }
  }
  const entry = ours.find((e) => e.id);
  if (!entry) return { why: "none of the run's VMs could be found in the list to delete" };
  const del = ctx.declarations.cleanup.vm ?? { method: 'DELETE', path: '/v1/vms/{id}' };
  const ex = await ctx.call({ method: del.method, path: del.path.replace('{id}', encodeURIComponent(entry.id!)) });
  if (!isSuccess(ex))
    return {
      why: `deleting ${entry.name} answered ${describeExchange(ex)} (the seed shows no delete operation; declare one with x-cleanup-for)`,
    };
  entry.cleanup = 'deleted';
  entry.note = `deleted by ${ctx.checkId}, to see whether a refused create is then accepted`;
  try {
    const task = await ctx.objects.findTask(ex, undefined);
    await ctx.objects.pollTask(task.id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return { deleted: ex };
}

/** Creates the declared-quota probe may make beyond the run's own: certify's probe budget, a few elsewhere. */
const DECLARED_QUOTA_CREATES = { quick: 5, full: 5, certify: QUOTA_PROBE_CREATES } as const;

/** How many VMs the organization holds now: the list's total (declared, discovered, or a count that fits one page). */
async function organizationVmCount(ctx: CheckContext): Promise<{ count?: number; ex: Exchange }> {
  const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: 100 } });
  const declared = declaredTotalPointerOf(ctx);
  const items = Array.isArray((ex.response?.json as { vms?: unknown } | undefined)?.vms)
    ? (ex.response!.json as { vms: unknown[] }).vms.length
    : undefined;
  const total = declared
    ? readTotal(ex, declared)
    : totalCandidatesOf(ex).find((c) => Number.isInteger(c.value) && (items === undefined || Number(c.value) >= items))
        ?.value;
  const count =
    typeof total === 'number' && Number.isInteger(total)
      ? total
      : items !== undefined && items < 100
        ? items
        : undefined;
  return { ...(count !== undefined ? { count } : {}), ex };
}

/**
 * The declared quota (x-quota on the create): the organization never holds more VMs than it
 * says, a create below it is accepted, and the create that would pass it is refused. Reached by creating the run's
 * standard VM up to the declared size, where that is within the create budget; the refusal met is then the MUST part's.
 */
async function probeDeclaredQuota(
  ctx: CheckContext,
  quota: number
): Promise<{ findings: Finding[]; note: string; refusal?: { refused: Exchange; body: Body } }> {
  const { count, ex } = await organizationVmCount(ctx);
  if (count === undefined)
    return {
      findings: [],
      note: `the declared quota of ${quota} VMs is not verified: the list shows no total to count the organization's VMs by`,
    };
  if (count > quota) {
    // Held above the quota before the run (a quota lowered since) is not a refusal the run can judge; the run's own
    // creates accepted past it are.
    const held = ctx.ledger.entries.filter((e) => e.kind === 'vm' && e.cleanup === 'pending' && !e.owner).length;
    if (count - held <= quota)
      return {
        findings: [
          finding(
            'declared',
            `the organization holds ${count} VMs, ${held} of them the run's: its creates were accepted past the declared quota of ${quota}`,
            [ex],
            { count, held, quota }
          ),
        ],
        note: '',
      };
    return {
      findings: [],
      note: `the declared quota of ${quota} VMs is not verified: the organization held ${count - held} before this run's creates (a quota lowered since?)`,
    };
  }
  const spent = ctx.ledger.entries.filter((e) => e.kind === 'vm').length;
  const most = DECLARED_QUOTA_CREATES[ctx.config.profile];
  const budget = Math.min(
    most,
    ctx.config.maxCreates === undefined ? most : Math.max(0, ctx.config.maxCreates - spent)
  );
  if (quota - count + 1 > budget)
    return {
      findings: [],
      note: `the declared quota of ${quota} VMs is not verified: the organization holds ${count}, ${quota - count + 1} creates from a refusal (this run may make ${budget})`,
    };
  if (quota - count + 1 > 1)
    ctx.announce(
      `creating up to ${quota - count + 1} VMs (${ctx.objects.vmName('quota-declared001')}…) to reach the declared quota of ${quota} (the organization holds ${count}); each is deleted at the end`
    );
  for (let n = count; n <= quota; n++) {
    const { body } = ctx.objects.vmCreateBody(`quota-declared${String(n - count + 1).padStart(3, '0')}`);
    const created = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
    if (isSuccess(created)) {
      ctx.ledger.record(
        { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'reaching the declared VM quota' },
        created
      );
      if (n === quota) {
        // A quota may be enforced in the create's task, which then ends failed.
        if ((await taskEnd(ctx, created)) === 'failed')
          return {
            findings: [],
            note: `the create past the declared quota of ${quota} VMs was accepted and its task ended failed (refused in the task)`,
          };
        return {
          findings: [
            finding(
              'declared',
              `a create was accepted with the organization at its declared quota of ${quota} VMs`,
              [ex, created],
              { count, quota }
            ),
          ],
          note: '',
        };
      }
      continue;
    }
    const status = created.response?.status;
    if (status === undefined || status < 400 || status >= 500 || NOT_ABOUT_ROOM.has(status))
      return {
        findings: [],
        note: `the declared quota of ${quota} VMs is not verified: a create answered ${describeExchange(created)}`,
      };
    // Refused below the quota: another limit may come first (vCPUs, memory, addresses), which the declaration does not cover.
    if (n < quota)
      return {
        findings: [],
        note: `the declared quota of ${quota} VMs is not verified: a create was refused with the organization at ${n} (${describeExchange(created)}; another limit may come first)`,
        refusal: { refused: created, body },
      };
    return {
      findings: [],
      note: `the create past the declared quota of ${quota} VMs was refused`,
      refusal: { refused: created, body },
    };
  }
  return { findings: [], note: '' };
}

/**
 * ERROR-QUOTA-EXCEEDED: a refusal that lifts once the organization holds one VM fewer is a quota, and the seed names
 * its code quota_exceeded. The refusal is the run's own (any profile) or, in certify, reached by creating the smallest
 * valid VM within --max-creates. A refusal that does not lift is not a quota (capacity, a policy): not judged.
 */
export const quotaRefusal: Check = {
  id: 'vms.quota-refusal',
  group: 'vms',
  clauses: ['ERROR-QUOTA-EXCEEDED'],
  level: 'must',
  why: {
    must: 'the seed names the error code quota_exceeded for resource quotas: a create refused for want of room that a delete makes room for is a quota refusal and must say so',
  },
  title: 'A create refused by the VM quota says quota_exceeded',
  reviewsLog: true,
  async run(ctx) {
    const quota = ctx.declarations.vmQuota;
    const declared = quota !== undefined && !ctx.config.readOnly ? await probeDeclaredQuota(ctx, quota) : undefined;
    const outcome = await judgeRefusal(ctx, declared?.refusal);
    if (!declared || outcome.status === 'failed') return outcome;
    if (declared.findings.length) return judge(declared.findings, '');
    return declared.note ? { ...outcome, message: `${outcome.message}; ${declared.note}` } : outcome;
  },
};

/** The MUST part: a refusal for want of room (the declared probe's, the run's own, or reached) says quota_exceeded. */
async function judgeRefusal(
  ctx: CheckContext,
  declaredRefusal: { refused: Exchange; body: Body } | undefined
): Promise<CheckOutcome> {
  let found = declaredRefusal ?? roomRefusal(ctx.log, ctx.config.runId, ctx.checkId);
  let probed = '';
  if (!found) {
    try {
      const reached = await reachQuota(ctx);
      if (!reached.found)
        return skip(`no quota reached: ${reached.why}`, quotaHowToVerify(ctx.config.profile, reached));
      found = reached.found;
      probed = ` after ${reached.sent} creates`;
    } catch (err) {
      if (err instanceof Unavailable) return skip(err.message, err.howToVerify);
      throw err;
    }
  }
  const { refused, body } = found;
  const deletion = await deleteOneOfOurs(ctx);
  if (!deletion.deleted)
    return skip(
      `a valid create was refused${probed} (${describeExchange(refused)}), but the run could not make room to tell a quota: ${deletion.why}`,
      'a delete operation (declared with x-cleanup-for, or DELETE /v1/vms/{id})'
    );
  let again: Exchange | undefined;
  for (let i = 0; i < RETRIES_AFTER_DELETE; i++) {
    const { body: fresh } = ctx.objects.vmCreateBody(`quota-again${i + 1}`);
    again = await ctx.call({ method: 'POST', path: '/v1/vms', json: { ...body, name: fresh['name'] } });
    if (isSuccess(again)) {
      ctx.ledger.record(
        {
          kind: 'vm',
          name: String(fresh['name']),
          createdBy: ctx.checkId,
          note: 'accepted once the run deleted one of its VMs',
        },
        again
      );
      break;
    }
    await ctx.sleepTarget(5 * (i + 1), 'waiting for a delete to make room');
  }
  if (!again || !isSuccess(again)) {
    ctx.observe('createRefusal', {
      status: refused.response?.status,
      code: errorCodeOf(refused),
      liftsAfterDelete: false,
    });
    return skip(
      `a valid create was refused${probed} (${describeExchange(refused)}) and still is after one of the run's VMs was deleted (${again ? describeExchange(again) : 'nothing sent'}): not a quota (capacity or a policy), so quota_exceeded is not required`,
      'an organization whose VM quota the run reaches'
    );
  }
  ctx.observe('quotaRefusal', { status: refused.response?.status, code: errorCodeOf(refused) });
  // A refusal a delete lifted is the quota-exceeded case: schema.declared-choices compares it with a declared one.
  observeErrorCase(ctx, 'quota-exceeded', refused);
  const evidence = [refused, deletion.deleted, again];
  const problems = ctx.schema.validateComponent('Error', refused.response?.json);
  if (problems.length)
    return fail(
      `a quota refusal${probed} (lifted by a delete) lacks the error object: ${describeExchange(refused)}: ${problems.join('; ')}`,
      evidence
    );
  if (errorCodeOf(refused) !== 'quota_exceeded')
    return fail(
      `a quota refusal${probed} (lifted once one VM was deleted) says code ${JSON.stringify(errorCodeOf(refused))}, not quota_exceeded: ${describeExchange(refused)}`,
      evidence
    );
  return pass(
    `a valid create refused${probed} with ${refused.response!.status} quota_exceeded was accepted once one of the run's VMs was deleted`
  );
}
