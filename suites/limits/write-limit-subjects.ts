import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/**
 * LIMIT-WRITE-60 over its subjects: "60 writes per minute per token" holds for every token, so the write
 * probe runs again on the second organization's key (--api-key-b), with the same writes that create nothing, once the
 * primary key's probe showed those counted at exactly 60. A budget that differs by key or organization fails.
 */
export const writeLimitSubjects: Check = {
  id: 'limits.write-limit-subjects',
  group: 'limits',
  clauses: ['LIMIT-WRITE-60'],
  level: 'must',
  why: {
    must: `the seed states ${LIMITS.writes.limit} write requests per minute per token: every token, whatever its key or organization`,
  },
  title: `Writes: ${LIMITS.writes.limit} per minute on every writing key's tokens, not only the primary key's`,
  async run(ctx) {
    if (!ctx.limits) return limitOutcome(undefined, '', undefined, undefined);
    if (ctx.config.readOnly) return skip('--read-only: the write probe sends writes', 'a run without --read-only');
    if (!ctx.tokens.has('second'))
      return skip('the run holds no key of a second organization', '--api-key-b KEY (a key of another organization)');
    const subjects = ctx.limits.writeBySubject;
    if (!subjects?.length)
      return skip(
        `the primary key's write probe did not show exactly ${LIMITS.writes.limit} writes with requests that create nothing (${ctx.limits.write ? limitOutcome(ctx.limits.write).message : 'not run'}), so another key's budget cannot be compared with it`,
        'limits.write-limit decided exact (a lower --time-scale, or --allow-writes N)'
      );
    const outcomes = subjects.map((s) => ({
      key: s.key,
      outcome: limitOutcome(s.probe),
      exchanges: [s.probe.firstRejection, ...s.probe.bursts.flatMap((b) => b.exchanges.slice(-1))].filter(
        (x) => x !== undefined
      ),
    }));
    const failed = outcomes.find((o) => o.outcome.status === 'failed');
    if (failed)
      return fail(`on the ${failed.key} key's tokens: ${failed.outcome.message}`, failed.exchanges, {
        subjects: outcomes.map((x) => ({ key: x.key, status: x.outcome.status, message: x.outcome.message })),
      });
    const open = outcomes.filter((o) => o.outcome.status !== 'passed');
    if (open.length)
      return skip(
        `not decided on ${open.map((o) => `the ${o.key} key (${o.outcome.message})`).join('; ')}`,
        'a burst that fits in half a window (a lower --time-scale, or --profile full)'
      );
    return pass(
      `${LIMITS.writes.limit} writes a minute on the tokens of every writing key the run holds (${outcomes.map((o) => o.key).join(', ')}, beside the primary)`,
      [],
      { subjects: outcomes.map((x) => ({ key: x.key, message: x.outcome.message })) }
    );
  },
};
