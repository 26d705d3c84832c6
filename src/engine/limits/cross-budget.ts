// Whether the read and write budgets are separate (fault model): once a probe has spent one class's budget on
// a token, the other class is sent on that same token, then one more of the spent class as a witness that the window
// has not reset in between. Called by the limit probes; judged by limits.budgets-separate.
import type { RunConfig } from '../config/config.ts';
import type { HttpClient } from '../transport/http.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess } from '../transport/exchange.ts';
import { burst, type Burst } from './probes.ts';
import { BURSTS, burstConcurrency } from './probe-knobs.ts';
import { LIMITS, TOKEN_LIFETIME_SECONDS, type RequestClass } from '../documented-limits/limits.js';

export interface CrossObservation {
  /** The class whose budget the probe spent on the token. */
  spent: RequestClass;
  /** The other class, sent on the same token afterwards. */
  sent: RequestClass;
  /** How many of the other class were sent at most (its whole budget for reads; one for writes). */
  planned: number;
  burst: Burst;
  /** One more of the spent class, after the burst: refused means the spent budget was still spent throughout. */
  witness: Exchange;
  witnessRefused: boolean;
}

/** Why nothing was sent after the spent budget (the observation could not tell anything). */
export interface CrossSkipped {
  skipped: string;
}

/** Real seconds a token must have left for the observation (300 reads and a witness) to run on it safely. */
const MIN_REAL_LIFETIME_SECONDS = 60;

/** The other class's whole budget for reads (a write charged to reads shows only near the end); one write is enough. */
const PLANNED: Record<RequestClass, number> = { reads: LIMITS.reads.limit, writes: 1 };

const send = (http: HttpClient, what: RequestClass, token: string, sentBy: string): Promise<Exchange> => {
  const headers = { authorization: `Bearer ${token}` };
  // The same requests as the probes: a one-item list, and a create that creates nothing.
  return what === 'reads'
    ? http.send({ method: 'GET', path: '/v1/vms', query: { per_page: 1 }, headers, sentBy })
    : http.send({ method: 'POST', path: '/v1/vms', json: {}, headers, sentBy });
};

/**
 * After `spent` was refused on `token` (its budget spent, `rejection` the refusal), sends the other class on the same
 * token, stopping at its first refusal, and then one more of the spent class. Nothing is sent that would write under
 * --read-only.
 */
export async function observeCrossCharge(
  d: { config: RunConfig; http: HttpClient },
  spent: RequestClass,
  token: string,
  rejection: Exchange,
  roundTripMs = 0
): Promise<CrossObservation | CrossSkipped> {
  const other: RequestClass = spent === 'reads' ? 'writes' : 'reads';
  if (d.config.readOnly) return { skipped: `${d.config.names.readOnly}: a write would be sent` };
  const limited = rejection.response?.status;
  // A 401 is the token, not a limit; and a token that lives a few real seconds (a high --time-scale) may expire midway.
  if (limited === 401) return { skipped: `the ${spent} were refused with 401, which is no rate limit` };
  const lifetime = TOKEN_LIFETIME_SECONDS / d.config.timeScale;
  if (lifetime < MIN_REAL_LIFETIME_SECONDS)
    return {
      skipped: `a token lives ${lifetime.toFixed(1)} real seconds at ${d.config.names.timeScale} ${d.config.timeScale}, too short to send ${PLANNED[other]} ${other} on it after the probe`,
    };
  const sentBy = 'limits.budgets-separate';
  // Refused by a limit: the status the spent class was refused with. Served: a read answered 2xx, a write anything else complete.
  const rejected = (ex: Exchange) => ex.response !== undefined && ex.response.status === limited;
  const served = (ex: Exchange) =>
    !rejected(ex) && ex.response !== undefined && (other === 'reads' ? isSuccess(ex) : ex.response.status < 500);
  const b = await burst(
    BURSTS.upTo(PLANNED[other], burstConcurrency(PLANNED[other], roundTripMs)),
    () => send(d.http, other, token, sentBy),
    { accepted: served, rejected }
  );
  const witness = await send(d.http, spent, token, sentBy);
  return { spent, sent: other, planned: PLANNED[other], burst: b, witness, witnessRefused: rejected(witness) };
}
