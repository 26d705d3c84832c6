import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { backupOnVm, describeExchange, documentedRefusal, wasAccepted, ownDescription } from '../support.ts';

/**
 * Convention, not seed: a backup request is JSON like every other (RFC 8259 §2: one value). A route may have a parser
 * of its own, so the create's media-type and trailing-data conventions are asked of the backup start too: a valid
 * request labelled text/plain, and one followed by a second JSON value, are refused with a 4xx rather than started.
 */
export const startFraming: Check = {
  id: 'backups.start-framing',
  group: 'backups',
  clauses: ['SVC-JSON', 'BACKUP-CREATE'],
  level: 'should',
  why: {
    should:
      'the seed says requests are JSON and shows no media-type rule: refusing a body labelled otherwise, or a JSON value followed by more, is convention (RFC 9110 §15.5.16, RFC 8259 §2)',
  },
  title: 'A backup request labelled other than JSON, or with data after its JSON value, does not start a backup',
  async run(ctx) {
    // Only a VM this run created: the suite never writes to resources it did not make.
    const vmId = await ctx.objects.createdVmId();
    const valid = JSON.stringify({ description: ownDescription(ctx, 'framing') });
    const cases = [
      { name: 'a valid backup request labelled text/plain', rawBody: valid, type: 'text/plain' },
      {
        name: 'a valid backup request followed by a second JSON value',
        rawBody: `${valid} {"description": "second value"}`,
        type: 'application/json',
      },
    ];
    const sent: Array<{ name: string; ex: Exchange }> = [];
    for (const c of cases) {
      const ex = await backupOnVm(ctx, vmId, { rawBody: c.rawBody, headers: { 'content-type': c.type } });
      if (wasAccepted(ex))
        ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}, started by ${c.name}` }, ex);
      sent.push({ name: c.name, ex });
    }
    // A refusal for the VM's state (409) or a documented one (a quota, a rate limit) says nothing of the body.
    const unjudged = sent.filter((s) => s.ex.response?.status === 409 || documentedRefusal(s.ex) !== undefined);
    const judged = sent.filter((s) => !unjudged.includes(s));
    // Started is this convention's failure; a 5xx on a body that does not parse is errors.malformed-json's.
    const wrong = judged.filter((s) => wasAccepted(s.ex));
    if (wrong.length)
      return fail(
        `a backup was started by ${wrong.map((w) => `${w.name} → ${describeExchange(w.ex)}`).join('; ')}`,
        wrong.map((w) => w.ex)
      );
    if (judged.length === 0)
      return skip(
        `both backup requests were refused for a reason that is not the body (${unjudged.map((s) => describeExchange(s.ex)).join('; ')})`,
        'a run VM the target backs up (see backups.start)'
      );
    return pass(
      `${judged.map((s) => `${s.name} → ${s.ex.response?.status ?? 'no answer'}`).join('; ')}${unjudged.length ? ` (not judged: ${unjudged.map((s) => s.name).join(', ')}, ${unjudged.map((s) => describeExchange(s.ex)).join('; ')})` : ''}`
    );
  },
};
