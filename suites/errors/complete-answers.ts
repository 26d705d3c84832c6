import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';

/**
 * Every request gets a complete HTTP answer within --request-timeout: no reset, no hang, no drip (the API is
 * served over HTTP, SVC-JSON). Bodies larger than the suite accepts are errors.json-responses' to report.
 */
export const completeAnswers: Check = {
  id: 'errors.complete-answers',
  group: 'errors',
  clauses: ['SVC-JSON'],
  level: 'must',
  why: { must: 'the seed says every action is an API call over HTTP: an answer must arrive' },
  title: 'Every request gets a complete answer in time',
  reviewsLog: true,
  async run(ctx) {
    const broken = ctx.log.filter(
      (ex) => ex.transportError !== undefined && !ex.transportError.includes('ECONNREFUSED')
    );
    if (broken.length) {
      const kinds = [...new Set(broken.map((ex) => ex.transportError))];
      return fail(
        `${broken.length} of ${ctx.log.length} requests got no complete answer (${kinds.slice(0, 3).join('; ')}), e.g. ${broken[0]!.request.method} ${new URL(broken[0]!.request.url).pathname}`,
        broken
      );
    }
    return pass(`all ${ctx.log.length} requests got a complete answer`);
  },
};
