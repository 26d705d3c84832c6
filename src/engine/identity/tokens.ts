import type { HttpClient } from '../transport/http.ts';
import type { Redactor } from '../transport/redact.ts';
import type { Exchange } from '../transport/exchange.ts';
import { statusText } from '../transport/exchange.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Waits } from '../transport/waits.ts';
import { retryAfterSeconds, retryWaitMs } from '../transport/retry-after.ts';
import type { InputNames, KeyName, KeyVariables } from '../config/config.ts';
import { TOKEN_LIFETIME_SECONDS } from '../documented-limits/limits.js';

/** The token exchange gave no token for a key the user supplied (refused, or a broken answer: see startup-failure.ts). */
export class CredentialError extends Error {
  constructor(
    readonly key: KeyName,
    readonly exchange: Exchange,
    /** How the user gave the key ("--api-key-b"), for the message. */
    given: string
  ) {
    super(`the target issued no token for ${given} (${statusText(exchange)})`);
  }
}

/** How the user names each key: how it was given, for messages, and the variable it is read from, for the curl lines. */
interface KeyNaming {
  names: Pick<InputNames, KeyName>;
  keyVariables: KeyVariables;
}

/** The label a redacted key bears ("[REDACTED api key CONFORMANCE_API_KEY_B]"): its variable, which a curl line reads. */
export const keyLabel = (variable: string): string => `api key ${variable}`;

interface HeldToken {
  token: string;
  body: Record<string, unknown>;
  /** Real-time ms after which the suite renews it. */
  renewAt: number;
  /** Real-time ms at which its documented lifetime ends. */
  expiresAt: number;
  /** Real-time ms at which it was issued (or adopted). */
  issuedAt: number;
}

/**
 * Issues and renews bearer tokens per API key. Renews at 80% of the lifetime (scaled by the target's
 * time scale) so long runs never fail on expiry, and counts issuances so a run stays inside 10/min/key.
 */
export class TokenManager {
  private readonly held = new Map<string, HeldToken>();
  /** Issuances under way per lane, shared by the checks that ask meanwhile. */
  private readonly renewing = new Map<string, Promise<string>>();
  readonly issued: Record<KeyName, number> = { primary: 0, second: 0, readonly: 0, revocable: 0 };

  constructor(
    private readonly http: HttpClient,
    private readonly keys: Partial<Record<KeyName, string>>,
    private readonly timeScale: number,
    private readonly redactor: Redactor,
    private readonly waits: Waits | undefined,
    private readonly naming: KeyNaming
  ) {
    for (const [name, key] of Object.entries(keys)) redactor.add(key, keyLabel(naming.keyVariables[name as KeyName]));
  }

  /** The key each token the run was issued belongs to (whose subject a request carrying it is). */
  private readonly keyOfToken = new Map<string, KeyName>();

  /** The run's key a token was issued to; undefined for a value the run was not issued (altered, made up). */
  keyOf(token: string): KeyName | undefined {
    return this.keyOfToken.get(token);
  }

  has(key: KeyName): boolean {
    return typeof this.keys[key] === 'string' && this.keys[key] !== '';
  }

  secret(key: KeyName): string | undefined {
    return this.keys[key];
  }

  /** Exchanges an API key (by name or raw value) for a token; records the exchange, registers the token as a secret. */
  async exchange(apiKey: string, sentBy: string): Promise<Exchange> {
    const ex = await this.http.send({ method: 'POST', path: '/v1/auth/tokens', json: { api_key: apiKey }, sentBy });
    // The key's own exchange: its subject is the key (a clause's domain counts the keys whose tokens were issued).
    const name = (Object.keys(this.keys) as KeyName[]).find((k) => this.keys[k] === apiKey);
    if (name) ex.subject = name;
    const body = ex.response?.json as Record<string, unknown> | undefined;
    if (body && typeof body['token'] === 'string') {
      this.redactor.add(body['token'], 'token');
      if (name) this.keyOfToken.set(body['token'], name);
    }
    return ex;
  }

  /** Tokens issued up front (by the issuance probe) and not yet handed out, per key. */
  private readonly spares = new Map<
    KeyName,
    Array<{ token: string; body: Record<string, unknown>; exchange: Exchange; adoptedAt: number }>
  >();

  /** Takes a token issued elsewhere (the issuance probe) into a lane, or into the spares when no lane is named. */
  adopt(key: KeyName, token: string, body: Record<string, unknown>, exchange: Exchange, lane?: string): void {
    this.redactor.add(token, 'token');
    this.keyOfToken.set(token, key);
    if (lane === undefined) {
      this.spares.set(key, [...(this.spares.get(key) ?? []), { token, body, exchange, adoptedAt: Date.now() }]);
      return;
    }
    this.held.set(`${key}:${lane}`, this.holding(token, body, Date.now()));
  }

  private holding(token: string, body: Record<string, unknown>, issuedAt: number): HeldToken {
    const lifetimeMs = (this.lifetimeOf(body) * 1000) / this.timeScale;
    return { token, body, renewAt: issuedAt + lifetimeMs * 0.8, expiresAt: issuedAt + lifetimeMs, issuedAt };
  }

  private lifetimeOf(body: Record<string, unknown>): number {
    // Never trust a longer lifetime than the documented one: a wrong expires_in must not break the rest of the run.
    const stated =
      typeof body['expires_in'] === 'number' && body['expires_in'] > 0 ? body['expires_in'] : TOKEN_LIFETIME_SECONDS;
    return Math.min(stated, TOKEN_LIFETIME_SECONDS);
  }

  /**
   * A token for the key that no lane holds: a spare from the issuance probe if one is left, else a new one.
   * A 429 (the issuance budget is spent) is waited out as Retry-After says, not blamed on the caller.
   */
  async issue(
    key: KeyName,
    sentBy: string
  ): Promise<{ token: string; body: Record<string, unknown>; exchange: Exchange }> {
    // A spare is handed out only while at least half its lifetime is left (a long wait may have outlived it).
    const fresh = (s: { body: Record<string, unknown>; adoptedAt: number }) =>
      Date.now() - s.adoptedAt < (this.lifetimeOf(s.body) * 1000 * 0.5) / this.timeScale;
    const spares = (this.spares.get(key) ?? []).filter(fresh);
    const spare = spares.shift();
    this.spares.set(key, spares);
    if (spare) return { token: spare.token, body: spare.body, exchange: spare.exchange };
    const secret = this.keys[key];
    if (!secret) throw new Error(`no ${this.naming.names[key]} configured`);
    this.issued[key]++;
    let ex = await this.exchange(secret, sentBy);
    for (let attempt = 0; ex.response?.status === 429 && attempt < 3; attempt++) {
      const waitMs = retryWaitMs(retryAfterSeconds(ex, this.timeScale), attempt, this.timeScale, 65);
      if (this.waits)
        await this.waits.sleep(
          waitMs,
          `the Retry-After of a refused token issuance (${this.naming.names[key]})`,
          sentBy,
          'retry-after'
        );
      else await sleep(waitMs);
      ex = await this.exchange(secret, sentBy);
    }
    const body = ex.response?.json as Record<string, unknown> | undefined;
    if (!ex.response || ex.response.status >= 300 || !body || typeof body['token'] !== 'string')
      throw new CredentialError(key, ex, this.naming.names[key]);
    return { token: body['token'] as string, body, exchange: ex };
  }

  /**
   * The held token for a key, issued or renewed as needed. A lane is a separate token of the same key: the
   * limits are per token, so heavy phases (generated requests) get their own budget instead of eating the checks'.
   */
  async get(key: KeyName, sentBy = 'setup', lane = 'main'): Promise<string> {
    const slot = `${key}:${lane}`;
    const current = this.held.get(slot);
    if (current && Date.now() < current.renewAt) return current.token;
    // Checks running side by side that need the same lane's token wait for one issuance, not one each.
    const pending = this.renewing.get(slot);
    if (pending) return pending;
    const renewal = this.renew(key, sentBy, slot).finally(() => this.renewing.delete(slot));
    this.renewing.set(slot, renewal);
    return renewal;
  }

  private async renew(key: KeyName, sentBy: string, slot: string): Promise<string> {
    const current = this.held.get(slot);
    try {
      const { token, body } = await this.issue(key, sentBy);
      this.held.set(slot, this.holding(token, body, Date.now()));
      return token;
    } catch (err) {
      // Renewal refused (an issuance budget that does not come back): the held token serves while it still lives.
      if (err instanceof CredentialError && current && Date.now() < current.expiresAt) return current.token;
      throw err;
    }
  }

  /** Drops the cached token (after the target refused it) from whichever lane holds it, so the next call issues a new one. */
  forget(key: KeyName, token: string): void {
    for (const [slot, held] of this.held)
      if (slot.startsWith(`${key}:`) && held.token === token) this.held.delete(slot);
  }

  /** Each lane holding a token of the key that is not due for renewal, with that token. */
  private liveSlots(key: KeyName): Array<{ lane: string; token: string }> {
    const now = Date.now();
    return [...this.held]
      .filter(([slot, h]) => slot.startsWith(`${key}:`) && now < h.renewAt)
      .map(([slot, h]) => ({ lane: slot.slice(key.length + 1), token: h.token }));
  }

  /** The tokens the run holds for a key, every lane's, while they are not due for renewal. */
  heldTokens(key: KeyName): string[] {
    return this.liveSlots(key).map((s) => s.token);
  }

  /** The lanes that hold a live token for a key (at least `main`). */
  heldLanes(key: KeyName): string[] {
    const lanes = this.liveSlots(key).map((s) => s.lane);
    return lanes.includes('main') ? lanes : ['main', ...lanes];
  }

  /**
   * A genuine token with at least half its lifetime ahead, for a check that alters it or sends it elsewhere: the main
   * lane's while it is that fresh (no issuance spent), else a new one.
   */
  async fresh(key: KeyName, sentBy: string): Promise<string> {
    const token = await this.get(key, sentBy);
    const held = this.held.get(`${key}:main`);
    if (held && held.token === token && Date.now() < (held.issuedAt + held.expiresAt) / 2) return token;
    return (await this.issue(key, sentBy)).token;
  }

  /** The token response body the cached token came with. */
  async response(key: KeyName): Promise<Record<string, unknown>> {
    await this.get(key);
    return this.held.get(`${key}:main`)!.body;
  }
}
