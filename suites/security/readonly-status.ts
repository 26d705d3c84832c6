import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange } from '../support.ts';
import { READONLY_PROBES } from '../shares.ts';

/**
 * HTTP convention (RFC 9110 §15.5.4): an authenticated caller without the permission gets 403, not 401 or 404. The
 * first refusal is the declared case's; every other write the read-only key was refused (a delete, a restore, a
 * registration) is held to it too: handlers often check the role each their own way.
 */
export const readonlyStatus: Check = {
  id: 'security.readonly-status',
  group: 'security',
  // It reads what security.readonly-write-refused observed: on that check's track, after it, whatever --only selects.
  shares: [READONLY_PROBES],
  clauses: ['KEY-INHERITS-ROLE'],
  level: 'should',
  why: { should: 'the seed does not show the status: 403 for a missing permission is HTTP convention (RFC 9110)' },
  title: 'A write refused for lack of permission is answered 403, on every write the read-only key tried',
  async run(ctx) {
    const seen = ctx.observations['errorCase.forbidden'];
    if (!seen)
      return skip('no write by the read-only key was refused in this run (see security.readonly-write-refused)');
    if (seen.status !== 403) return fail(`the read-only key's write was refused with ${seen.status}, not 403`, []);
    // The read-only key's other writes on objects its organization has: 401 says it is not authenticated, 404 that the
    // object is not there. A 409 (the object's state) or a 429 says something else; a 401 the run answered by renewing
    // its own token (aged under a time scale) says nothing of the role.
    const writes = ctx.log.filter(
      (ex) =>
        ex.sentBy === 'security.readonly-write-refused' &&
        ex.caller === 'readonly' &&
        !ex.superseded &&
        ex.request.method !== 'GET' &&
        ex.response !== undefined &&
        ex.response.status >= 400
    );
    const off = writes.filter((ex) => ex.response!.status === 401 || ex.response!.status === 404);
    if (off.length)
      return fail(
        `the read-only key's writes were refused otherwise than 403: ${off.map(describeExchange).join('; ')}`,
        off
      );
    return pass(`refused with 403 (${writes.length} writes of the read-only key refused, none with 401 or 404)`);
  },
};
