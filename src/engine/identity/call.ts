import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpClient, SendOptions } from '../transport/http.ts';
import type { TokenManager } from './tokens.ts';
import type { Exchange } from '../transport/exchange.ts';
import type { Pacer } from '../transport/pacer.ts';
import { classOfMethod } from '../documented-limits/limits.js';
import type { Waits } from '../transport/waits.ts';
import { retryAfterSeconds, retryWaitMs } from '../transport/retry-after.ts';
import { Unavailable } from '../outcome/outcome.ts';
import type { InputNames, KeyName } from '../config/config.ts';

const MAX_429_RETRIES = 3;
const MAX_RETRY_WAIT_SECONDS = 65;

/** How a check asks for one API call: whose token, which lane, and whether a 429 is waited out. */
export interface CallOptions extends Omit<SendOptions, 'sentBy'> {
  /** Whose token to send: a configured key, nobody, or an explicit bearer value. Default: primary. */
  as?: KeyName | 'anonymous';
  bearer?: string;
  /** A separate token of the same key with its own per-token budget (generated traffic uses 'generated'). */
  lane?: string;
  /** Outside the limit probes a 429 is honoured and retried, not blamed on the check. Default true. */
  retryOn429?: boolean;
  /**
   * How the Authorization header is written from the token (another spelling of the scheme, another spacing), sent
   * as is. Default `Bearer <token>`. A refusal of it is the answer judged: the token is not renewed on a 401.
   */
  authorizationAs?: (token: string) => string;
}

/** What every API call of the run shares: the client, the tokens, the pacer and the run's restrictions. */
export interface ApiDeps {
  http: HttpClient;
  tokens: TokenManager;
  pacer: Pacer;
  timeScale: number;
  readOnly: boolean;
  /** Most VMs the run may create, and how many it has created so far (the ledger). */
  maxCreates?: number;
  createdVms(): number;
  /** How the user gives the restrictions, for the reason a call is not sent. */
  names: Pick<InputNames, 'readOnly' | 'maxCreates'>;
  /** Long waits (a 429's Retry-After), announced to whoever watches the run. */
  waits?: Waits;
}

/** Sends an authenticated API call on behalf of a check. */
export async function callApi(deps: ApiDeps, sentBy: string, opts: CallOptions): Promise<Exchange> {
  const { http, tokens, pacer, timeScale, readOnly, names } = deps;
  const { as = 'primary', bearer, retryOn429 = true, lane = 'main', authorizationAs, ...send } = opts;
  const written = authorizationAs ?? ((token: string) => `Bearer ${token}`);
  // Exchanging a key for a token changes nothing on the target, so a read-only run allows it.
  // OPTIONS is safe (RFC 9110 §9.2.1): paced as a write, yet allowed in a read-only run.
  if (
    readOnly &&
    classOfMethod(send.method) === 'writes' &&
    send.method !== 'OPTIONS' &&
    send.path !== '/v1/auth/tokens'
  )
    throw new Unavailable(
      `${names.readOnly}: this check needs a write (${send.method} ${send.path})`,
      `a run without ${names.readOnly}`
    );
  // The create budget: once the run has created as many VMs as it may, nothing more is sent that could create one.
  if (
    deps.maxCreates !== undefined &&
    send.method === 'POST' &&
    send.path === '/v1/vms' &&
    deps.createdVms() >= deps.maxCreates
  ) {
    throw new Unavailable(
      `the create budget is spent (${names.maxCreates} ${deps.maxCreates})`,
      `a larger ${names.maxCreates} (this run created ${deps.createdVms()} VMs)`
    );
  }
  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { ...(send.headers ?? {}) };
    const own = bearer === undefined && as !== 'anonymous' ? await tokens.get(as, sentBy, lane) : undefined;
    // The limits are per token: a lane whose budget is spent borrows another token of the same key that has room,
    // so the run's requests spread over the tokens it holds instead of waiting for one window to pass.
    const cls = classOfMethod(send.method);
    const cached =
      own !== undefined && as !== 'anonymous' && !pacer.hasRoom(own, cls)
        ? (tokens.heldTokens(as).find((t) => pacer.hasRoom(t, cls)) ?? own)
        : own;
    if (bearer !== undefined) headers['authorization'] = written(bearer);
    else if (cached !== undefined) headers['authorization'] = written(cached);
    // Only the suite's own tokens are paced; explicit bearer values belong to checks that judge them.
    if (cached !== undefined) await pacer.acquire(cached, cls, sentBy);
    const ex = await http.send({ ...send, headers, sentBy });
    ex.caller = bearer !== undefined ? 'explicit' : as;
    // Whose token it carried, also when a check passed it explicitly (a limit probe's own token).
    const subject = bearer !== undefined ? tokens.keyOf(bearer) : as !== 'anonymous' ? as : undefined;
    if (subject) ex.subject = subject;
    // A suite-held token refused mid-run (expired early, clock skew) is renewed once, not blamed on the check.
    if (ex.response?.status === 401 && cached !== undefined && as !== 'anonymous' && !renewed && !authorizationAs) {
      renewed = true;
      ex.superseded = true;
      tokens.forget(as, cached);
      continue;
    }
    if (!retryOn429 || ex.response?.status !== 429 || attempt >= MAX_429_RETRIES) return ex;
    const waitMs = retryWaitMs(retryAfterSeconds(ex, timeScale), attempt, timeScale, MAX_RETRY_WAIT_SECONDS);
    if (deps.waits)
      await deps.waits.sleep(waitMs, `the Retry-After of a 429 (${send.method} ${send.path})`, sentBy, 'retry-after');
    else await sleep(waitMs);
  }
}
