import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { describeExchange, wasAccepted } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** The version lives in the path prefix: a version the API does not have, or no version at all, is not served as v1. */
export const unknownVersion: Check = {
  id: 'versioning.unknown-version',
  group: 'versioning',
  shares: [REFUSAL_PROBES],
  clauses: ['VERSION-PATH-PREFIX'],
  level: 'must',
  why: { must: 'the seed says the version is carried in the path prefix' },
  title: 'A path under an unknown version prefix, or without one, answers with an error',
  async run(ctx) {
    const sent = [
      await ctx.call({ method: 'GET', path: '/v999/vms' }),
      await ctx.call({ method: 'GET', path: '/v0/vms' }),
      // No prefix at all: every API path carries /v1, so an unversioned alias is not the API.
      await ctx.call({ method: 'GET', path: '/vms' }),
    ];
    const served = sent.filter(wasAccepted);
    if (served.length)
      return fail(
        `a path under an unknown version prefix, or none, was served: ${served.map(describeExchange).join('; ')}`,
        served
      );
    return pass(`unknown and missing version prefixes answered errors (${sent.map(describeExchange).join('; ')})`);
  },
};
