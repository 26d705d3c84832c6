import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { GENERATED_LANE, isSuccess } from '../support.ts';

/** The random phase (fuzzing, stateful sequences) has a token of its own too: shrinking may spend extra writes. */
export const RANDOM_LANE = 'random';

interface CreateCase {
  label: string;
  body: unknown;
}

export interface SentCase extends CreateCase {
  ex: Exchange;
}

/** Sends create-VM variants, each under a name of its own; one the target accepts goes into the ledger. */
export async function sendCreateCases(
  ctx: CheckContext,
  cases: CreateCase[],
  lane = GENERATED_LANE
): Promise<SentCase[]> {
  const named = cases.map((c) => ({ ...c, body: ctx.objects.withOwnName(c.body) }));
  const answers = await ctx.callEach(named.map((c) => ({ method: 'POST', path: '/v1/vms', json: c.body, lane })));
  return named.map((c, i) => {
    const ex = answers[i]!;
    if (isSuccess(ex)) {
      const name = (c.body as { name?: unknown })?.name;
      ctx.ledger.record(
        {
          kind: 'vm',
          name: typeof name === 'string' ? name : undefined,
          createdBy: ctx.checkId,
          note: `accepted: ${c.label}`,
        },
        ex
      );
    }
    return { ...c, ex };
  });
}

export const statusClass = (ex: Exchange): '2xx' | '4xx' | '5xx' | 'other' =>
  !ex.response
    ? 'other'
    : ex.response.status >= 500
      ? '5xx'
      : ex.response.status >= 400
        ? '4xx'
        : isSuccess(ex)
          ? '2xx'
          : 'other';
