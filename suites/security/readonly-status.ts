import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { READONLY_PROBES } from '../shares.ts';

/** HTTP convention (RFC 9110 §15.5.4): an authenticated caller without the permission gets 403, not 401 or 404. */
export const readonlyStatus: Check = {
  id: 'security.readonly-status',
  group: 'security',
  // It reads what security.readonly-write-refused observed: on that check's track, after it, whatever --only selects.
  shares: [READONLY_PROBES],
  clauses: ['KEY-INHERITS-ROLE'],
  level: 'should',
  why: { should: "the seed does not show the status: 403 for a missing permission is HTTP convention (RFC 9110)" },
  title: 'A write refused for lack of permission is answered 403',
  async run(ctx) {
    const seen = ctx.observations['errorCase.forbidden'];
    if (!seen) return skip('no write by the read-only key was refused in this run (see security.readonly-write-refused)');
    if (seen.status !== 403) return fail(`the read-only key's write was refused with ${seen.status}, not 403`, []);
    return pass('refused with 403');
  },
};
