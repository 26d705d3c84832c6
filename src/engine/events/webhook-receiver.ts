import http from 'node:http';
import type { Waits } from '../transport/waits.ts';
import type { AddressInfo } from 'node:net';

/** One POST the target delivered to the suite's receiver. */
export interface Delivery {
  /** The receiver path it was posted to (each registration gets its own path). */
  path: string;
  headers: Record<string, string>;
  /** The raw body, exactly as sent (signatures are computed over it). */
  raw: Buffer;
  json?: unknown;
  receivedAt: number;
  /** The status the receiver answered with. */
  answered: number;
  /** Real ms the receiver held its answer back (answerLate): a target that times out never saw it. */
  heldMs?: number;
}

const MAX_BODY = 1024 * 1024;

/**
 * The suite's webhook endpoint. Each registration the run makes points at a path of its own, so deliveries can be
 * told apart; a path can be told to fail its first N deliveries (to see a retry). Bodies are capped at 1 MiB.
 */
export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private readonly failFirst = new Map<string, number>();
  private readonly failPerEvent = new Map<
    string,
    {
      attempts: number;
      keyOf: (d: Pick<Delivery, 'headers' | 'json'>) => string | undefined;
      seen: Map<string, number>;
    }
  >();
  private readonly late = new Map<
    string,
    {
      holdMs: number;
      keyOf: (d: Pick<Delivery, 'headers' | 'json'>) => string | undefined;
      select: (raw: Buffer) => boolean;
      held?: string;
    }
  >();
  private readonly held = new Set<NodeJS.Timeout>();
  private server?: http.Server;
  private waiters: Array<() => void> = [];

  constructor(private readonly waits?: Waits) {}

  /** Starts listening on host:port (port 0: ephemeral). */
  async start(host: string, port: number): Promise<{ host: string; port: number }> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const raw = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const remaining = this.failFirst.get(path) ?? 0;
        if (remaining > 0) this.failFirst.set(path, remaining - 1);
        const perEvent = this.failPerEvent.get(path);
        const key = perEvent?.keyOf({ headers, json });
        const failedBefore = key !== undefined ? (perEvent!.seen.get(key) ?? 0) : 0;
        const failThis =
          remaining > 0 || (perEvent !== undefined && key !== undefined && failedBefore < perEvent.attempts);
        if (failThis && key !== undefined) perEvent!.seen.set(key, failedBefore + 1);
        const answered = failThis ? 503 : size > MAX_BODY ? 413 : 204;
        // answerLate: the first attempt of each event on the path is answered only after holdMs.
        // Only the first attempt of one event (the first the selector picks) is held: a sender that delivers one
        // event at a time to an endpoint would otherwise queue the retry behind other held answers.
        const late = this.late.get(path);
        const lateKey = late?.keyOf({ headers, json });
        const hold = late && lateKey !== undefined && late.held === undefined && late.select(raw) ? late.holdMs : 0;
        if (hold) late!.held = lateKey!;
        this.deliveries.push({
          path,
          headers,
          raw,
          json,
          receivedAt: Date.now(),
          answered,
          ...(hold ? { heldMs: hold } : {}),
        });
        if (hold) {
          const timer = setTimeout(() => {
            this.held.delete(timer);
            if (!res.destroyed) res.writeHead(answered).end();
          }, hold);
          this.held.add(timer);
        } else res.writeHead(answered).end();
        const waiters = this.waiters;
        this.waiters = [];
        waiters.forEach((w) => w());
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const addr = this.server.address() as AddressInfo;
    return { host: addr.address, port: addr.port };
  }

  /** Makes the receiver answer 503 to the next n deliveries on a path. */
  failNext(path: string, n: number): void {
    this.failFirst.set(path, n);
  }

  /** Makes the receiver answer 503 to the first n attempts of each event on a path (events told apart by keyOf). */
  failAttempts(
    path: string,
    attempts: number,
    keyOf: (d: Pick<Delivery, 'headers' | 'json'>) => string | undefined
  ): void {
    this.failPerEvent.set(path, { attempts, keyOf, seen: new Map() });
  }

  /**
   * Makes the receiver hold its answer to one delivery on a path for holdMs real ms (to see a declared delivery
   * timeout end it): the first whose body `select` picks; every other delivery, its retries included, is answered at once.
   */
  answerLate(
    path: string,
    holdMs: number,
    keyOf: (d: Pick<Delivery, 'headers' | 'json'>) => string | undefined,
    select: (raw: Buffer) => boolean
  ): void {
    this.late.set(path, { holdMs, keyOf, select });
  }

  /** Waits until a delivery satisfies the predicate, or the deadline (real ms) passes. */
  async waitFor(
    pred: (d: Delivery) => boolean,
    timeoutMs: number,
    what = 'a webhook delivery',
    by = 'webhooks'
  ): Promise<Delivery | undefined> {
    if (this.deliveries.some(pred)) return this.deliveries.find(pred);
    const work = this.poll(pred, Date.now() + timeoutMs);
    return this.waits ? this.waits.upTo(work, timeoutMs, what, by, 'delivery') : work;
  }

  private async poll(pred: (d: Delivery) => boolean, deadline: number): Promise<Delivery | undefined> {
    for (;;) {
      const found = this.deliveries.find(pred);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    for (const t of this.held) clearTimeout(t);
    this.held.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
