import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Declarations, WebhookDeclaration } from '../spec/declarations.ts';
import type { RunConfig } from './config.ts';
import type { CallOptions } from './context.ts';
import type { Exchange } from './exchange.ts';
import { isSuccess, statusText } from './exchange.ts';
import type { Ledger } from './ledger.ts';
import type { Fixtures, TaskOutcome } from './fixtures.ts';
import { Unavailable } from './check.ts';
import { WebhookReceiver, type Delivery } from './webhook-receiver.ts';
import { randomBytes } from 'node:crypto';

type Call = (opts: CallOptions) => Promise<Exchange>;

/** Real ms a delivery may take at least, whatever the time scale (a loaded machine delays the target's scheduler). */
const MIN_DELIVERY_WAIT_MS = 5000;

export interface Registration {
  /** The receiver path this registration points at. */
  path: string;
  url: string;
  exchange: Exchange;
  id?: string;
  secret?: string;
}

export interface EventSession {
  decl: WebhookDeclaration;
  receiver: WebhookReceiver;
  main: Registration;
  /** Registered for backup events; the receiver fails its first delivery, so a retry must follow. */
  retry?: Registration;
  /** Registered, then deleted: must receive nothing afterwards. */
  deleted?: Registration & { deletedAt: number; deletion: Exchange };
}

/** The event type of a delivery: the declared header, else the declared body field. */
export function eventTypeOf(d: Delivery, decl: WebhookDeclaration): string | undefined {
  if (decl.typeHeader && d.headers[decl.typeHeader.toLowerCase()]) return d.headers[decl.typeHeader.toLowerCase()];
  const field = decl.typeField ?? 'type';
  const v = (d.json as Record<string, unknown> | undefined)?.[field];
  return typeof v === 'string' ? v : undefined;
}

/** Verifies a delivery's signature as declared (HMAC over the exact raw body). */
export function signatureValid(d: Delivery, decl: WebhookDeclaration, secret: string): boolean {
  const sig = decl.signature;
  if (!sig) return true;
  const got = d.headers[sig.header.toLowerCase()];
  if (!got || !got.startsWith(sig.prefix)) return false;
  const expected = createHmac('sha256', secret).update(d.raw).digest(sig.encoding);
  const a = Buffer.from(got.slice(sig.prefix.length));
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Webhook and alarm fixtures: a receiver run by the suite, registrations that point at it, and a backup and an
 * alarm triggered after registration. Made once per run, on first use; closed at the end of the run.
 */
export class EventFixtures {
  private receiver?: WebhookReceiver;
  private session?: Promise<EventSession>;
  private backup?: Promise<{ exchange: Exchange; outcome?: TaskOutcome; startedAt: number }>;
  private alarm?: Promise<{ exchange: Exchange; startedAt: number }>;

  constructor(
    private readonly call: Call,
    private readonly config: RunConfig,
    private readonly declarations: Declarations,
    private readonly ledger: Ledger,
    private readonly fixtures: Fixtures,
  ) {}

  /**
   * Real ms to wait for a delivery: the task timeout plus the declared retries, scaled, but never less than a few real
   * seconds, since a delivery crosses the network and the target's scheduler, which no time scale speeds up.
   */
  deliveryTimeoutMs(): number {
    const retry = this.declarations.webhooks?.retry;
    const seconds = this.config.taskTimeoutSeconds + (retry ? retry.attempts * retry.afterSeconds : 0) + 5;
    return Math.max((seconds * 1000) / this.config.timeScale, MIN_DELIVERY_WAIT_MS);
  }

  private async register(decl: WebhookDeclaration, base: string, name: string, events: string[]): Promise<Registration> {
    const path = `/cc-${this.config.runId}/${name}`;
    const url = base + path;
    const secret = decl.register.secretField ? randomBytes(16).toString('hex') : undefined;
    const body: Record<string, unknown> = { [decl.register.urlField]: url, [decl.register.eventsField]: events };
    if (secret && decl.register.secretField) body[decl.register.secretField] = secret;
    const exchange = await this.call({ method: decl.register.method, path: decl.register.path, json: body });
    const id = (exchange.response?.json as { id?: unknown } | undefined)?.id;
    if (isSuccess(exchange)) this.ledger.record({ kind: 'webhook', id: typeof id === 'string' ? id : undefined, name: url, createdBy: 'webhooks' });
    return { path, url, exchange, id: typeof id === 'string' ? id : undefined, secret };
  }

  readonly events = (): Promise<EventSession> =>
    (this.session ??= (async () => {
      const decl = this.declarations.webhooks;
      if (!decl) throw new Unavailable('the overlay declares no webhook registration (x-webhook-registration); see spec/README.md', 'declare the webhook registration (x-webhook-registration) in --overlay');
      this.receiver = new WebhookReceiver();
      const [host, port] = splitListen(this.config.webhookListen);
      const bound = await this.receiver.start(host, port);
      const base = (this.config.webhookUrl ?? `http://${bound.host}:${bound.port}`).replace(/\/+$/, '');
      const all = decl.events.map((e) => e.name);
      const backupEvents = decl.events.filter((e) => e.family === 'backup-job').map((e) => e.name);
      const main = await this.register(decl, base, 'main', all);
      if (!isSuccess(main.exchange)) return { decl, receiver: this.receiver, main };
      let retry: Registration | undefined;
      if (decl.retry && backupEvents.length) {
        this.receiver.failNext(`/cc-${this.config.runId}/retry`, 1);
        retry = await this.register(decl, base, 'retry', backupEvents);
      }
      let deleted: EventSession['deleted'];
      if (decl.remove) {
        const reg = await this.register(decl, base, 'deleted', all);
        if (reg.id) {
          const deletion = await this.call({ method: decl.remove.method, path: decl.remove.path.replace('{id}', encodeURIComponent(reg.id)) });
          deleted = { ...reg, deletion, deletedAt: Date.now() };
          const entry = this.ledger.entries.find((e) => e.kind === 'webhook' && e.id === reg.id);
          if (entry && isSuccess(deletion)) entry.cleanup = 'deleted';
        }
      }
      return { decl, receiver: this.receiver, main, retry, deleted };
    })());

  /** A backup of the run's VM started after the registrations, polled to its end. */
  readonly eventBackup = () =>
    (this.backup ??= (async () => {
      await this.events();
      const vmId = await this.fixtures.createdVmId();
      const startedAt = Date.now();
      const exchange = await this.call({ method: 'POST', path: `/v1/vms/${encodeURIComponent(vmId)}/backups`, json: { description: `cloud-conformance events ${this.config.runId}` } });
      if (!isSuccess(exchange)) throw new Unavailable(`the backup that should raise an event was refused (${statusText(exchange)})`, 'a backup the target starts (see backups.start)');
      this.ledger.record({ kind: 'backup', createdBy: 'webhooks', note: `of VM ${vmId}` });
      let outcome: TaskOutcome | undefined;
      try {
        const task = await this.fixtures.findTask(exchange, this.declarations.taskIdOnStartBackup);
        outcome = await this.fixtures.pollTask(task.id);
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
      }
      return { exchange, outcome, startedAt };
    })());

  /** An alarm made to fire with the overlay's firing example, on the run's VM. */
  readonly firedAlarm = () =>
    (this.alarm ??= (async () => {
      const decl = this.declarations.alarms;
      if (!decl) throw new Unavailable('the overlay declares no way to make a metric alarm fire (x-alarm-firing-example); see spec/README.md', 'declare x-alarm-firing-example in --overlay');
      await this.events();
      const vmId = await this.fixtures.createdVmId();
      const body = JSON.parse(JSON.stringify(decl.firingBody).split('{vm_id}').join(vmId)) as Record<string, unknown>;
      const startedAt = Date.now();
      const exchange = await this.call({ method: decl.create.method, path: decl.create.path, json: body });
      if (isSuccess(exchange)) this.ledger.record({ kind: 'alarm', createdBy: 'alarms', note: `on VM ${vmId}` });
      return { exchange, startedAt };
    })());

  async close(): Promise<void> {
    await this.receiver?.close();
  }
}

function splitListen(listen: string): [string, number] {
  const i = listen.lastIndexOf(':');
  return [listen.slice(0, i) || '127.0.0.1', Number(listen.slice(i + 1)) || 0];
}
