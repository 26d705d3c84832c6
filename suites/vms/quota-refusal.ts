import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { VM_ROOM } from '../shares.ts';
import { API_TARGET } from '../../src/engine/run/schedule.ts';
import { skip, finding, judge, Unavailable, type CheckOutcome, type Finding } from '../../src/engine/run/check.ts';
import { readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { QUOTA_PROBE_CREATES, QUOTA_SIZE_CREATES } from '../../src/engine/target/certify.ts';
import { describeExchange, isSuccess, observeErrorCase, pathOf, taskEnd, declaredTotalPointerOf } from '../support.ts';
import { bodyOf, makeRoom, shapeOf, type RoomMade } from '../room.ts';
import { waitsLong, type RunConfig } from '../../src/engine/config/config.ts';
import { WINDOW_SECONDS } from '../../src/engine/documented-limits/limits.js';

/** Statuses that say nothing about the organization's room: credentials, time, rate, the body's size or media type. */
const NOT_ABOUT_ROOM = new Set([401, 408, 413, 415, 429]);
/** Creates the run tries again after a delete, waiting for the delete to take effect between them. */
const RETRIES_AFTER_DELETE = 3;
/** Creates sent side by side once one VM's room is freed: at most one may be accepted. */
const RACE_CREATES = 3;
/** Creates outside certify that find the quota again when the run's own refusal is in the log (it may have room again). */
const RECONFIRM_CREATES = 3;

type Body = Record<string, unknown>;
type Refusal = { refused: Exchange; body: Body };

const errorCodeOf = (ex: Exchange): unknown =>
  (ex.response?.json as { error?: { code?: unknown } } | undefined)?.error?.code;

/**
 * A refusal of a valid create for want of room: the code the seed names for quotas, whatever the status; else a 4xx
 * that is not about credentials, time, rate, size or media type (a 429 is told apart by outlasting a window).
 */
function refusedForRoom(ex: Exchange): boolean {
  const status = ex.response?.status;
  if (status === undefined || status < 400 || status >= 500) return false;
  return errorCodeOf(ex) === 'quota_exceeded' || !NOT_ABOUT_ROOM.has(status);
}

/**
 * A valid create of the run refused for want of room: quota_exceeded, or a 4xx (not credentials, time or rate) to a
 * body whose shape (everything but name and tags) the target accepted earlier in the run. Validation cannot refuse a
 * body it took before.
 */
export function roomRefusal(log: readonly Exchange[], runId: string, ownCheck: string): Refusal | undefined {
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
    if (isSuccess(ex)) accepted.add(shapeOf(body));
    else if (refusedForRoom(ex) && (accepted.has(shapeOf(body)) || errorCodeOf(ex) === 'quota_exceeded'))
      return { refused: ex, body };
  }
  return undefined;
}

/** Creates this check may still make: --max-creates less what the run made, at most `most`. */
function createsLeft(ctx: CheckContext, most: number): number {
  const spent = ctx.ledger.entries.filter((e) => e.kind === 'vm').length;
  return Math.min(most, ctx.config.maxCreates === undefined ? most : Math.max(0, ctx.config.maxCreates - spent));
}

/**
 * Creates the run's standard valid VM until one is refused for want of room, within the create budget: up to
 * QUOTA_PROBE_CREATES in certify, `most` elsewhere (a quota the run's own creates brought within reach shows at once).
 */
async function reachQuota(
  ctx: CheckContext,
  most: number,
  like?: Body,
  sized?: { prefix: string; what: string }
): Promise<Reached> {
  const budget = createsLeft(ctx, most);
  const prefix = sized?.prefix ?? 'quota';
  if (budget > 1)
    ctx.announce(
      `creating up to ${budget} VMs (${ctx.objects.vmName(`${prefix}001`)}…${sized ? `, ${sized.what}` : ''}) to reach the organization's ${sized ? 'quota' : 'VM quota'} (ERROR-QUOTA-EXCEEDED); each is deleted at the end`
    );
  let sent = 0;
  let lastAccepted: Exchange | undefined;
  for (; sent < budget; sent++) {
    const { body: fresh } = ctx.objects.vmCreateBody(`${prefix}${String(sent + 1).padStart(3, '0')}`);
    const body = like ? { ...like, name: fresh['name'] } : fresh;
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
    if (isSuccess(ex)) {
      ctx.ledger.record(
        { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: 'reaching the VM quota' },
        ex
      );
      lastAccepted = ex;
      continue;
    }
    if (refusedForRoom(ex)) return { found: { refused: ex, body }, sent: sent + 1, why: '' };
    if (ex.response?.status !== 429)
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
    allAccepted: true,
    ...(lastAccepted ? { lastAccepted } : {}),
    ...(budget < most ? { cutByMaxCreates: { budget, most } } : {}),
  };
}

/** The sizes a VM create carries: what a quota of vCPUs, memory or disk counts. */
const SIZE_FIELDS = ['vcpus', 'memory_gb', 'system_disk_gb'] as const;

/**
 * The largest create the primary key had accepted in this run (its sizes against the standard VM's, summed), where it
 * is larger than the standard VM: integers in every size field, a name of the run's. Undefined: none is larger.
 */
export function largestAccepted(log: readonly Exchange[], runId: string, standard: Body): Body | undefined {
  const sizes = (b: Body) => SIZE_FIELDS.map((f) => b[f]);
  const base = sizes(standard);
  if (!base.every((n) => typeof n === 'number' && n > 0)) return undefined;
  const score = (b: Body) => sizes(b).reduce((sum: number, n, i) => sum + (n as number) / (base[i] as number), 0);
  let best: Body | undefined;
  let bestScore = score(standard);
  for (const ex of log) {
    if (ex.request.method !== 'POST' || pathOf(ex) !== '/v1/vms' || ex.caller !== 'primary' || !isSuccess(ex)) continue;
    const body = bodyOf(ex);
    if (!body || !String(body['name'] ?? '').startsWith(`cc-${runId}-`)) continue;
    if (!sizes(body).every((n) => Number.isInteger(n) && (n as number) > 0)) continue;
    if (score(body) > bestScore) [best, bestScore] = [body, score(body)];
  }
  if (!best) return undefined;
  const out: Body = { ...standard };
  for (const f of SIZE_FIELDS) out[f] = best[f];
  return out;
}

/** What reaching the quota came to: the refusal, or how many creates were accepted and why the probe stopped. */
interface Reached {
  found?: { refused: Exchange; body: Body };
  sent: number;
  why: string;
  /** Every create it could send was accepted: the count ran out, not an answer. */
  allAccepted?: true;
  /** The last create accepted, where every one was: its task ending says the others' have had their time too. */
  lastAccepted?: Exchange;
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
  return `an organization within ${QUOTA_PROBE_CREATES} VMs of its VM quota (certify's quota probe creates at most ${QUOTA_PROBE_CREATES}, and ${QUOTA_SIZE_CREATES} of the largest VM the run had accepted, whatever --max-creates allows), or its quota declared with x-quota`;
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
 * its code quota_exceeded; a refusal that says quota_exceeded is one by the target's own word. The refusal is met
 * again just before it is judged (the organization may have room again since the run's own was logged), one VM of the
 * refused shape is deleted, and creates are sent side by side: the quota refused a create at the count it held, so
 * only as many may be accepted as the delete made room for. A refusal that does not lift is not a quota (capacity, a
 * policy): not judged.
 */
export const quotaRefusal: Check = {
  id: 'vms.quota-refusal',
  group: 'vms',
  clauses: ['ERROR-QUOTA-EXCEEDED'],
  level: 'must',
  why: {
    must: 'the seed names the error code quota_exceeded for resource quotas: a create refused for want of room that a delete makes room for is a quota refusal and must say so, and a create past the quota the target itself enforced (creates sent side by side once one VM is deleted, more of them accepted than the delete made room for) is one that must have been refused so',
  },
  title: 'A create refused by the VM quota says quota_exceeded, and creates side by side do not overrun the quota',
  shares: [API_TARGET, VM_ROOM],
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

/**
 * A refusal for want of room as it stands now: the declared probe's (just met), else met again by creating the body of
 * the run's own refused create (the organization may have room again since), else reached by the standard VM.
 */
async function currentRefusal(
  ctx: CheckContext,
  declaredRefusal: Refusal | undefined
): Promise<{ found: Refusal; probed: string } | CheckOutcome> {
  if (declaredRefusal) return { found: declaredRefusal, probed: '' };
  const logged = roomRefusal(ctx.log, ctx.config.runId, ctx.checkId);
  const most = ctx.config.profile === 'certify' ? QUOTA_PROBE_CREATES : logged ? RECONFIRM_CREATES : 1;
  try {
    const reached = await reachQuota(ctx, most, logged?.body);
    const probed = ` after ${reached.sent} create${reached.sent === 1 ? '' : 's'}`;
    if (reached.found) return { found: reached.found, probed };
    const bySize = await reachSizeQuota(ctx, reached, logged !== undefined);
    if (bySize?.found)
      return {
        found: bySize.found,
        probed: `${probed} of the standard VM and ${bySize.sent} of the largest the run had accepted`,
      };
    return skip(
      `no quota reached: ${logged ? `the run's own create was refused (${describeExchange(logged.refused)}), but ` : ''}${reached.why}${bySize ? `; then ${sizedWhy(bySize)}` : ''}`,
      quotaHowToVerify(ctx.config.profile, reached)
    );
  } catch (err) {
    if (err instanceof Unavailable) return skip(err.message, err.howToVerify);
    throw err;
  }
}

/**
 * Certify, where every standard create was accepted: creates of the largest VM the run had accepted, up to
 * QUOTA_SIZE_CREATES, so a quota of vCPUs, memory or disk far past the count's reach is met. Undefined: not tried.
 */
async function reachSizeQuota(
  ctx: CheckContext,
  standard: Reached,
  logged: boolean
): Promise<(Reached & { what: string }) | undefined> {
  if (ctx.config.profile !== 'certify' || logged || !standard.allAccepted || standard.cutByMaxCreates) return undefined;
  const large = largestAccepted(ctx.log, ctx.config.runId, ctx.objects.vmCreateBody('quota-sized').body);
  if (!large) return undefined;
  const what = SIZE_FIELDS.map((f) => `${f} ${String(large[f])}`).join(', ');
  const sized = await reachQuota(ctx, QUOTA_SIZE_CREATES, large, { prefix: 'quotaL', what });
  if (sized.found || !sized.allAccepted || !sized.lastAccepted) return { ...sized, what };
  // A quota that counts only finished VMs lets creates still provisioning past it: once they have ended, one more shows it.
  await taskEnd(ctx, sized.lastAccepted);
  const after = await reachQuota(ctx, 1, large, { prefix: 'quotaE', what });
  return { ...after, sent: sized.sent + after.sent, what };
}

/** Why the creates of the largest VM reached no quota, in words after the standard VM's. */
const sizedWhy = (r: Reached & { what: string }): string =>
  r.allAccepted
    ? `${r.sent} of the largest VM the run had accepted (${r.what}) were accepted too (certify tries ${QUOTA_SIZE_CREATES}, and one more once they had ended)`
    : `the largest VM the run had accepted (${r.what}): ${r.why}`;

/** The MUST part: a refusal for want of room (the declared probe's, the run's own, or reached) says quota_exceeded. */
async function judgeRefusal(ctx: CheckContext, declaredRefusal: Refusal | undefined): Promise<CheckOutcome> {
  const current = await currentRefusal(ctx, declaredRefusal);
  if ('status' in current) return current;
  const { found, probed } = current;
  const { refused, body } = found;
  const lift = await liftByDeletes(ctx, body);
  if ('why' in lift)
    return skip(
      `a valid create was refused${probed} (${describeExchange(refused)}), but the run could not make room to tell a quota: ${lift.why}`,
      lift.noOperation
        ? 'a delete operation (declared with x-cleanup-for, or DELETE /v1/vms/{id})'
        : 'a VM of the run that the target deletes (a delete operation declared with x-cleanup-for, or DELETE /v1/vms/{id})'
    );
  if (!lift.again) {
    ctx.observe('createRefusal', {
      status: refused.response?.status,
      code: errorCodeOf(refused),
      liftsAfterDelete: false,
    });
    const last = lift.tried.at(-1);
    return skip(
      `a valid create was refused${probed} (${describeExchange(refused)}) and still is after ${lift.deletes} of the run's VMs ${lift.deletes === 1 ? 'was' : 'were'} deleted (${last ? describeExchange(last) : 'nothing sent: --max-creates is spent'}): not a quota (capacity or a policy), so quota_exceeded is not required`,
      last ? 'an organization whose VM quota the run reaches' : 'a larger --max-creates'
    );
  }
  ctx.observe('quotaRefusal', { status: refused.response?.status, code: errorCodeOf(refused) });
  // A refusal a delete lifted is the quota-exceeded case: schema.declared-choices compares it with a declared one.
  observeErrorCase(ctx, 'quota-exceeded', refused);
  const evidence = [refused, ...lift.attempts, lift.again];
  const race = await raceAtQuota(ctx, body);
  const findings = [...codeFindings(ctx, refused, probed, evidence), ...(await raceFindings(ctx, race))];
  const waited = lift.waited ? ` (a delete waited for ${lift.waited})` : '';
  return judge(
    findings,
    `a valid create refused${probed} with ${refused.response!.status} quota_exceeded was accepted once ${lift.deletes === 1 ? 'one' : lift.deletes} of the run's VMs ${lift.deletes === 1 ? 'was' : 'were'} deleted${waited}; ${race.note}`
  );
}

/** The run's VMs deleted at least, one at a time, before a refusal that does not lift is called no quota. */
const ROOM_ROUNDS = 8;

/**
 * The run's VMs deleted at most before a refusal that does not lift is called no quota: every VM the checks made (a
 * quota checked apart from the reservation lets the checks' creates side by side overrun it by as many as the timing
 * allows, and the refusal lifts only once they are all gone), at least ROOM_ROUNDS. Certify's population is left out:
 * it was filled until a refusal, so it holds no overrun of its own beyond what ROOM_ROUNDS covers.
 */
function roomRounds(ctx: CheckContext): number {
  const made = ctx.ledger.entries.filter(
    (e) => e.kind === 'vm' && e.cleanup === 'pending' && !e.owner && e.createdBy !== 'certify'
  ).length;
  return Math.max(ROOM_ROUNDS, made);
}

type Lift =
  | { why: string; noOperation?: boolean }
  | { again?: Exchange; deletes: number; attempts: Exchange[]; tried: Exchange[]; waited?: string };

/**
 * Deletes one of the run's VMs at a time and sends the refused create again, one at a time, until one is accepted: a
 * quota already overrun (by earlier creates side by side) lifts only once enough VMs are gone. The create accepted
 * then filled the room again: the organization is at its quota, which raceAtQuota starts from.
 */
async function liftByDeletes(ctx: CheckContext, body: Body): Promise<Lift> {
  const attempts: Exchange[] = [];
  const tried: Exchange[] = [];
  let waited: string | undefined;
  let deletes = 0;
  const lifted = (again: Exchange): Lift => ({ again, deletes, attempts, tried, ...(waited ? { waited } : {}) });
  const rounds = roomRounds(ctx);
  while (deletes < rounds) {
    const room = await makeRoom(ctx, body);
    attempts.push(...room.attempts);
    if (!('deleted' in room)) {
      if (deletes === 0) return { why: room.why, ...(room.noOperation ? { noOperation: true } : {}) };
      break;
    }
    deletes++;
    waited ??= room.waited;
    const again = await createAgain(ctx, body, `quota-again${deletes}`, 'accepted once the run deleted one of its VMs');
    if (!again) break;
    tried.push(again);
    if (isSuccess(again)) return lifted(again);
  }
  // The room a delete frees may show a little later: the create again, a few times, with pauses.
  for (let i = 0; i < RETRIES_AFTER_DELETE && deletes > 0; i++) {
    await ctx.sleepTarget(5 * (i + 1), 'waiting for a delete to make room');
    const again = await createAgain(ctx, body, `quota-later${i + 1}`, 'accepted a while after the run deleted its VMs');
    if (!again) break;
    tried.push(again);
    if (isSuccess(again)) return lifted(again);
  }
  return { deletes, attempts, tried, ...(waited ? { waited } : {}) };
}

/** The refused body once more under a new name, in the ledger if accepted; undefined when --max-creates is spent. */
async function createAgain(ctx: CheckContext, body: Body, suffix: string, note: string): Promise<Exchange | undefined> {
  if (createsLeft(ctx, 1) === 0) return undefined;
  const name = String(ctx.objects.vmCreateBody(suffix).body['name']);
  const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: { ...body, name } });
  if (isSuccess(ex)) ctx.ledger.record({ kind: 'vm', name, createdBy: ctx.checkId, note }, ex);
  return ex;
}

/** The refusal's error object, and its code: quota_exceeded (the seed's code for the quota). */
function codeFindings(ctx: CheckContext, refused: Exchange, probed: string, evidence: Exchange[]): Finding[] {
  const problems = ctx.schema.validateComponent('Error', refused.response?.json);
  if (problems.length)
    return [
      finding(
        'must',
        `a quota refusal${probed} (lifted by a delete) lacks the error object: ${describeExchange(refused)}: ${problems.join('; ')}`,
        evidence
      ),
    ];
  if (errorCodeOf(refused) !== 'quota_exceeded')
    return [
      finding(
        'must',
        `a quota refusal${probed} (lifted once one VM was deleted) says code ${JSON.stringify(errorCodeOf(refused))}, not quota_exceeded: ${describeExchange(refused)}`,
        evidence
      ),
    ];
  return [];
}

interface Race {
  answers: Exchange[];
  accepted: Exchange[];
  /** What was or was not judged of the creates side by side, for the message. */
  note: string;
  /** The delete that freed one create's room, and the organization's VM count just before it (at its quota). */
  room?: RoomMade;
  before?: { count?: number; ex: Exchange };
}

/**
 * The organization is at its quota (the create that lifted the refusal filled the room again): one VM at least as
 * large as the refused create is deleted, which frees one create's room, and RACE_CREATES creates of its body are
 * sent at once (within --max-creates). A quota checked and reserved under separate locks, or one that counts only
 * finished VMs, accepts more than one. The VM deleted is likely the one just made, still provisioning: makeRoom waits.
 */
async function raceAtQuota(ctx: CheckContext, body: Body): Promise<Race> {
  const none = (note: string): Race => ({ answers: [], accepted: [], note });
  const n = createsLeft(ctx, RACE_CREATES);
  if (n < 2) return none(`creates side by side not sent: --max-creates left room for ${n}`);
  const before = await organizationVmCount(ctx);
  const room = await makeRoom(ctx, body);
  if (!('deleted' in room)) return none(`creates side by side not sent: ${room.why}`);
  if (!room.freed)
    return none(
      "creates side by side not judged: the run held no VM at least as large as the refused create to delete, so the room freed is not one create's"
    );
  const sent = room.freed;
  const names = Array.from({ length: n }, (_, i) =>
    String(ctx.objects.vmCreateBody(`quota-race${i + 1}`).body['name'])
  );
  const answers = await ctx.callEach(
    names.map((name) => ({ method: 'POST', path: '/v1/vms', json: { ...sent, name } }))
  );
  const accepted = answers.filter((ex, i) => {
    if (!isSuccess(ex)) return false;
    ctx.ledger.record(
      { kind: 'vm', name: names[i]!, createdBy: ctx.checkId, note: 'sent side by side once one VM was deleted' },
      ex
    );
    return true;
  });
  const waited = room.waited ? ` (the delete waited for ${room.waited})` : '';
  return {
    answers,
    accepted,
    room,
    before,
    note: `at the quota again, one VM was deleted${waited} and ${n} creates sent side by side: ${accepted.length} ${accepted.length === 1 ? 'was' : 'were'} accepted`,
  };
}

/**
 * More creates accepted side by side than the delete made room for: the organization then holds more VMs than when it
 * was at its quota (counted by the list's total once their tasks ended, so a VM another user deleted meanwhile is not
 * blamed on the target).
 */
async function raceFindings(ctx: CheckContext, race: Race): Promise<Finding[]> {
  const { room, before } = race;
  if (race.accepted.length < 2 || !room || !before) return [];
  await Promise.all(race.accepted.map((ex) => taskEnd(ctx, ex)));
  const after = await organizationVmCount(ctx);
  if (before.count === undefined || after.count === undefined) {
    race.note += ' (not judged: the list shows no total to count the organization by)';
    return [];
  }
  if (after.count <= before.count) {
    race.note += ` (not judged: the organization holds ${after.count} VMs, no more than the ${before.count} it held at its quota: room freed elsewhere)`;
    return [];
  }
  return [
    finding(
      'must',
      `${race.accepted.length} of ${race.answers.length} creates sent side by side were accepted once one VM was deleted at the quota: the organization holds ${after.count} VMs, more than the ${before.count} it held at its quota (the quota checked and reserved apart, or counting only finished VMs)`,
      [room.deleted, ...race.answers, before.ex, after.ex],
      { before: before.count, after: after.count, accepted: race.accepted.length }
    ),
  ];
}
