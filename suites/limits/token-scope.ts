import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { refusedAcrossTokens } from './_verdict.ts';

/** The read and write budgets are per token: another token of the same key is served while the first is limited. */
export const tokenScope: Check = {
  id: 'limits.token-scope',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60'],
  level: 'must',
  why: { must: 'the seed states the read and write limits per token' },
  title: 'A second token of the same key has its own read and write budget',
  async run(ctx) {
    const read = ctx.limits?.read;
    const write = ctx.limits?.write;
    // The read and write probes got no token (a budget that never came back): an error of the run, never a skip.
    if (!read && ctx.limits?.error) throw ctx.limits.error;
    const probes = [read, write].filter((p) => p?.scope);
    if (probes.length === 0)
      return skip(
        'no budget was spent during the probes, so the scope could not be seen',
        'the read and write probes must meet a rejection (see limits.read-limit, limits.write-limit)'
      );
    const refused = probes.filter((p) => refusedAcrossTokens(p, p === write));
    if (refused.length) {
      return fail(
        `another token of the same key was refused while the first token's ${refused.map((p) => p!.what).join(' and ')} budget was spent: the limit is not per token`,
        refused.flatMap((p) => [p!.firstRejection!, p!.scope!])
      );
    }
    return pass(
      `another token of the same key was served right after the first was limited (${probes.map((p) => p!.what).join(', ')})`
    );
  },
};
