import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { pass, skip, undeclared, judge, finding, Unavailable } from '../../src/engine/run/check.ts';
import { readLocation } from '../../src/engine/target/discover.ts';
import { alarmBodyFor, describeExchange, documentedRefusal, wasAccepted } from '../support.ts';
import { startOwnBackup } from '../own-backup.ts';
import { FRAMING_PROBES } from '../shares.ts';

/** A declared operation that takes a body, with a body valid in every respect, and what to record if it is acted on. */
interface FramedOperation {
  name: string;
  request: Pick<CallOptions, 'method' | 'path'>;
  body: Record<string, unknown>;
  /** Its path names an object the run holds: a malformed body reaches the route once the object is found. */
  namesObject?: true;
  /** How it is sent, where it is a long-running operation on the run's VM (RunObjects.onVm): else as any call. */
  through?: (send: () => Promise<Exchange>) => Promise<Exchange>;
  record(ex: Exchange, how: string): void;
}

/** A body cut off mid-value: JSON no parser accepts. */
const MALFORMED = '{"description": "cc-malformed", "at": ';

/** A finished backup of the run's VM, to restore (a running one may be refused for its state, which says nothing of the body). */
async function finishedBackup(ctx: CheckContext): Promise<string | { why: string }> {
  const backup = await startOwnBackup(ctx, {
    description: 'framing restore',
    note: 'to restore with an odd framing',
    what: 'the backup to restore',
  });
  if (!('id' in backup)) return { why: backup.why };
  try {
    await ctx.objects.pollTask((await ctx.objects.findTask(backup.started, ctx.declarations.taskIdOnStartBackup)).id);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return backup.id;
}

/** The declared operations that take a body, beyond the seed's three (each framed by a check of its own). */
async function framedOperations(ctx: CheckContext): Promise<{ ops: FramedOperation[]; untried: string[] }> {
  const ops: FramedOperation[] = [];
  const untried: string[] = [];
  const { restoreBackup: restore, webhooks: hooks, alarms } = ctx.declarations;
  if (restore) {
    const backupId = await finishedBackup(ctx);
    const vmId = await ctx.objects.createdVmId();
    if (typeof backupId === 'string')
      ops.push({
        name: 'restoreBackup',
        request: { method: restore.method, path: restore.path.replace('{id}', encodeURIComponent(backupId)) },
        body: {},
        namesObject: true,
        through: (send) => ctx.objects.onVm(vmId, send, restore.taskId),
        record: () => {},
      });
    else untried.push(`restoreBackup (${backupId.why})`);
  }
  if (hooks) {
    const probe = await ctx.events.probeRegistration('framing');
    ops.push({
      name: 'registerWebhook',
      request: { method: hooks.register.method, path: hooks.register.path },
      body: probe.body,
      record: (ex, how) => {
        const id = readLocation(ex, hooks.register.id);
        ctx.ledger.record(
          {
            kind: 'webhook',
            id: typeof id === 'string' && id !== '' ? id : undefined,
            name: probe.url,
            createdBy: ctx.checkId,
            note: `registered by ${how}`,
          },
          ex
        );
      },
    });
  }
  if (alarms) {
    const body = alarmBodyFor(alarms.firingBody, await ctx.objects.createdVmId());
    ops.push({
      name: 'createAlarm',
      request: { method: alarms.create.method, path: alarms.create.path },
      body,
      record: (ex, how) => {
        const id = (ex.response?.json as { id?: unknown } | undefined)?.id;
        ctx.ledger.record(
          {
            kind: 'alarm',
            id: typeof id === 'string' ? id : undefined,
            createdBy: ctx.checkId,
            note: `created by ${how}`,
          },
          ex
        );
      },
    });
  }
  return { ops, untried };
}

/**
 * Convention, not seed: what the create, the token and the backup start are asked of their framing is asked of every
 * declared operation that takes a body (a route often has a parser of its own): a valid request labelled text/plain,
 * and one followed by a second JSON value, are refused with a 4xx rather than acted on; so is a body that is not JSON,
 * sent to the restore of a finished backup of the run's (a route may read its body only once it has found the object).
 */
export const declaredBodyFraming: Check = {
  id: 'errors.declared-body-framing',
  group: 'errors',
  shares: [FRAMING_PROBES],
  clauses: ['SVC-JSON'],
  level: 'should',
  why: {
    should:
      "the seed says requests are JSON and shows no media-type rule: refusing a body labelled otherwise, or a JSON value followed by more, is convention (RFC 9110 §15.5.16, RFC 8259 §2); a body that is not JSON is judged here on an object that exists, at this check's level",
  },
  title:
    'A declared operation that takes a body refuses one labelled other than JSON, with data after its JSON value, or (on an object the run holds) that is not JSON',
  async run(ctx) {
    if (!ctx.declarations.restoreBackup && !ctx.declarations.webhooks && !ctx.declarations.alarms)
      return undeclared(
        "the overlay declares no operation that takes a body beyond the seed's",
        'declare the restore, the webhook registration or the alarms in --overlay'
      );
    const { ops, untried } = await framedOperations(ctx);
    const sent: Array<{ name: string; ex: Exchange }> = [];
    const broken: Array<{ name: string; ex: Exchange }> = [];
    for (const op of ops) {
      const valid = JSON.stringify(op.body);
      const cases = [
        { name: `${op.name} labelled text/plain`, rawBody: valid, type: 'text/plain' },
        {
          name: `${op.name} followed by a second JSON value`,
          rawBody: `${valid} {"second": "value"}`,
          type: 'application/json',
        },
      ];
      for (const c of cases) {
        const send = () => ctx.call({ ...op.request, rawBody: c.rawBody, headers: { 'content-type': c.type } });
        const ex = await (op.through ? op.through(send) : send());
        if (wasAccepted(ex)) op.record(ex, c.name);
        sent.push({ name: c.name, ex });
      }
      // errors.malformed-json asks this operation on an id that exists nowhere, where a 404 may come before the body is read.
      if (op.namesObject) {
        const send = () =>
          ctx.call({ ...op.request, rawBody: MALFORMED, headers: { 'content-type': 'application/json' } });
        const ex = await (op.through ? op.through(send) : send());
        // No answer or a 5xx, or acting on it: warned (errors.malformed-json holds the must, on an id that exists nowhere).
        if (ex.response === undefined || ex.response.status >= 500)
          broken.push({ name: `${op.name} with a body that is not JSON`, ex });
        else sent.push({ name: `${op.name} with a body that is not JSON`, ex });
      }
    }
    // A refusal for the object's state (409) or a documented one (a quota, a rate limit) says nothing of the body.
    const judged = sent.filter((s) => s.ex.response?.status !== 409 && documentedRefusal(s.ex) === undefined);
    const wrong = judged.filter((s) => wasAccepted(s.ex));
    const notTried = untried.length ? ` (not tried: ${untried.join('; ')})` : '';
    const findings = [
      ...(broken.length
        ? [
            finding(
              'should',
              `a body that is not JSON, on an object the run holds, got no answer or a server error: ${broken.map((b) => `${b.name} → ${describeExchange(b.ex)}`).join('; ')}; expected a 4xx`,
              broken.map((b) => b.ex)
            ),
          ]
        : []),
      ...(wrong.length
        ? [
            finding(
              'should',
              `acted on ${wrong.map((w) => `${w.name} → ${describeExchange(w.ex)}`).join('; ')}${notTried}`,
              wrong.map((w) => w.ex)
            ),
          ]
        : []),
    ];
    if (findings.length) return judge(findings, '');
    if (judged.length === 0)
      return skip(
        `no request could be judged${notTried}${sent.length ? `: ${sent.map((s) => `${s.name} → ${describeExchange(s.ex)}`).join('; ')}` : ''}`,
        'the declared operations with a body the target accepts (see backups.restore-task, webhooks.registration, alarms.fires)'
      );
    return pass(`${judged.map((s) => `${s.name} → ${s.ex.response?.status ?? 'no answer'}`).join('; ')}${notTried}`);
  },
};
