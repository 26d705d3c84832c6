import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { limitOutcome } from './_verdict.ts';
import { LIMITS } from '../../src/engine/documented-limits/limits.js';

/**
 * LIMIT-READ-300 over its subjects: "300 reads per minute per token" holds for every token, so the read probe
 * runs again on the tokens of each other key the run holds (--api-key-b, --api-key-readonly; reads only, since a key
 * may not be allowed to write). A budget that differs by the token's role or key fails.
 */
export const readLimitSubjects: Check = {
  id: 'limits.read-limit-subjects',
  group: 'limits',
  clauses: ['LIMIT-READ-300'],
  level: 'must',
  why: {
    must: `the seed states ${LIMITS.reads.limit} read requests per minute per token: every token, whatever its key or role`,
  },
  title: `Reads: ${LIMITS.reads.limit} per minute on every key's tokens, not only the primary key's`,
  async run(ctx) {
    if (!ctx.limits) return limitOutcome(undefined, '', undefined, undefined);
    const subjects = ctx.limits?.readBySubject ?? [];
    if (subjects.length === 0)
      return skip(
        'the run holds no key but the primary one',
        '--api-key-b and --api-key-readonly (keys of another organization and of a read-only role)'
      );
    const outcomes = subjects.map((s) => ({
      key: s.key,
      outcome: limitOutcome(s.probe),
      exchanges: [s.probe.firstRejection, ...s.probe.bursts.flatMap((b) => b.exchanges.slice(-1))].filter(
        (x) => x !== undefined
      ),
    }));
    const failed = outcomes.filter((o) => o.outcome.status === 'failed');
    if (failed.length) {
      const o = failed[0]!;
      return fail(`on the ${o.key} key's tokens: ${o.outcome.message}`, o.exchanges, {
        subjects: outcomes.map((x) => ({ key: x.key, status: x.outcome.status, message: x.outcome.message })),
      });
    }
    const open = outcomes.filter((o) => o.outcome.status !== 'passed');
    if (open.length)
      return skip(
        `not decided on ${open.map((o) => `the ${o.key} key (${o.outcome.message})`).join('; ')}; ${
          outcomes
            .filter((o) => o.outcome.status === 'passed')
            .map((o) => o.key)
            .join(', ') || 'no key'
        } exact`,
        'a burst that fits in half a window on every key (a lower --time-scale, or --profile full)'
      );
    return pass(
      `${LIMITS.reads.limit} reads a minute on the tokens of every key the run holds (${outcomes.map((o) => o.key).join(', ')}, beside the primary)`,
      [],
      { subjects: outcomes.map((x) => ({ key: x.key, message: x.outcome.message })) }
    );
  },
};
