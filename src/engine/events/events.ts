import type { AlarmFiring, Declarations, WebhookDeclaration } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger } from '../target/ledger.ts';
import type { RunObjects, TaskOutcome } from '../target/run-objects.ts';
import { Unavailable } from '../outcome/outcome.ts';
import { WebhookReceiver, type Delivery } from './webhook-receiver.ts';
import type { Waits } from '../transport/waits.ts';
import { readLocation, readPointer } from '../target/discover.ts';
import { newSecret } from './signatures.ts';

type Call = (opts: CallOptions) => Promise<Exchange>;

/** Real ms a target may take to send and a receiver to record a delivery, whatever the time scale. */
export const DELIVERY_SLACK_MS = 2000;
/** Real ms a delivery may take at least, whatever the time scale (a loaded machine delays the target's scheduler). */
const MIN_DELIVERY_WAIT_MS = 5000;

interface Registration {
  /** The receiver path this registration points at. */
  path: string;
  url: string;
  /** What the events field subscribed to. */
  subscribed: string[];
  exchange: Exchange;
  id?: string;
  secret?: string;
}

interface EventSession {
  decl: WebhookDeclaration;
  receiver: WebhookReceiver;
  main: Registration;
  /**
   * Registered for the backup-job family only (the declared family subscription). With a declared retry schedule the
   * receiver fails the first attempts of each event here, one per declared delay, so every retry must follow.
   */
  family?: Registration;
  /** Registered, then deleted: must receive nothing afterwards. */
  deleted?: Registration & { deletedAt: number; deletion: Exchange };
  /** Registered to be deleted, but its id was not where the overlay says: it stays registered (not a stray). */
  undeletable?: Registration & { reason: string };
}

/** The event type of a delivery: the declared header, else the declared body field. */
export function eventTypeOf(d: Delivery, decl: WebhookDeclaration): string | undefined {
  if (decl.typeHeader && d.headers[decl.typeHeader.toLowerCase()]) return d.headers[decl.typeHeader.toLowerCase()];
  const v = readPointer(d.json, decl.typePointer);
  return typeof v === 'string' ? v : undefined;
}

/**
 * What tells the attempts of one event apart from other events: the declared header (x-webhook-retry
 * event-id-header), else a delivery id header, else the body's id.
 */
export function eventKeyOf(d: Pick<Delivery, 'headers' | 'json'>, declaredHeader?: string): string | undefined {
  const body = d.json as Record<string, unknown> | undefined;
  if (declaredHeader !== undefined) return d.headers[declaredHeader.toLowerCase()];
  const v = d.headers['webhook-id'] ?? d.headers['x-event-id'] ?? body?.['id'] ?? body?.['event_id'];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

/**
 * The target's clock when a delivery arrived, in ms: the Date header of the latest answer before it, carried
 * forward at the time scale; without one, this machine's clock at time scale 1 (undefined otherwise).
 */
export function targetClockAt(log: readonly Exchange[], receivedAt: number, timeScale: number): number | undefined {
  for (let i = log.length - 1; i >= 0; i--) {
    const ex = log[i]!;
    const date = Date.parse(ex.response?.headers['date'] ?? '');
    const answeredAt = Date.parse(ex.startedAt) + ex.durationMs;
    if (Number.isNaN(date) || answeredAt > receivedAt) continue;
    // A Date header has whole seconds: the middle of its second is the best guess.
    return date + 500 + (receivedAt - answeredAt) * timeScale;
  }
  return timeScale === 1 ? receivedAt : undefined;
}

/** The run's alarm: its create, and the request that then made it fire where the overlay declares one. */
interface FiredAlarm {
  exchange: Exchange;
  startedAt: number;
  firing?: Exchange;
}

/** A declared value with "{vm_id}" standing for the run's VM, filled in wherever it stands. */
const withVmId = <T>(value: T, vmId: string): T =>
  JSON.parse(JSON.stringify(value).split('{vm_id}').join(JSON.stringify(vmId).slice(1, -1))) as T;

/** The declared firing request of an alarm just created: its path parameters read from the create, "{vm_id}" the VM. */
function firingRequest(fire: AlarmFiring, body: Record<string, unknown>, created: Exchange, vmId: string): CallOptions {
  let path = fire.operation.path;
  for (const [name, p] of Object.entries(fire.parameters)) {
    const value =
      'literal' in p ? p.literal : readPointer(p.from === 'request' ? body : created.response?.json, p.pointer);
    path = path.replace(`{${name}}`, encodeURIComponent(withVmId(String(value ?? ''), vmId)));
  }
  return {
    method: fire.operation.method,
    path,
    ...(fire.body === undefined ? {} : { json: withVmId(fire.body, vmId) }),
  };
}

/**
 * The run's webhook and alarm objects: a receiver run by the suite, registrations that point at it, and a backup and an
 * alarm triggered after registration. Made once per run, on first use; closed at the end of the run.
 */
export class RunEvents {
  private receiver?: WebhookReceiver;
  /** The receiver's public origin (--webhook-url, else where it listens), once the session has started. */
  private base?: string;
  private session?: Promise<EventSession>;
  private backup?: Promise<{ exchange: Exchange; outcome?: TaskOutcome; startedAt: number }>;
  private readonly alarms: Array<Promise<FiredAlarm>> = [];
  private test?: Promise<{ exchange: Exchange; startedAt: number }>;

  constructor(
    private readonly call: Call,
    private readonly config: RunConfig,
    private readonly declarations: Declarations,
    private readonly ledger: Ledger,
    private readonly objects: RunObjects,
    private readonly waits?: Waits
  ) {}

  /**
   * Real ms to wait for a delivery: the task timeout plus every declared retry delay, scaled, plus transport slack, and
   * never less than a few real seconds: a delivery crosses the network and the target's scheduler, which no time scale
   * speeds up (a loaded machine delays them).
   */
  deliveryTimeoutMs(): number {
    const delays = this.declarations.webhooks?.retry?.delays ?? [];
    const seconds = this.config.taskTimeoutSeconds + delays.reduce((a, b) => a + b, 0) + 5;
    return Math.max((seconds * 1000) / this.config.timeScale + DELIVERY_SLACK_MS, MIN_DELIVERY_WAIT_MS);
  }

  /**
   * A registration body valid in every respect, for a check that tries the registration itself (a role, a key): the
   * suite's own receiver under a run path of its own, subscribed to the first declared event.
   */
  async probeRegistration(name: string): Promise<{ url: string; body: Record<string, unknown> }> {
    const decl = this.declarations.webhooks;
    if (!decl)
      throw new Unavailable(
        'the overlay declares no webhook registration (x-webhook-registration)',
        `declare the webhook registration (x-webhook-registration) in ${this.config.names.overlay}`,
        true
      );
    const url = `${new URL((await this.events()).main.url).origin}/cc-${this.config.runId}/${name}`;
    return {
      url,
      body: { [decl.register.urlField]: url, [decl.register.eventsField]: decl.events.slice(0, 1).map((e) => e.name) },
    };
  }

  /**
   * A registration of the backup-job events on a path of the check's own; holdFirst(holdMs, select) then makes the
   * receiver answer the first delivery there whose body `select` picks only after holdMs (a declared delivery timeout
   * should end it). Undefined without that family.
   */
  async registerSlow(
    name: string,
    createdBy: string
  ): Promise<(Registration & { holdFirst: (holdMs: number, select: (raw: Buffer) => boolean) => void }) | undefined> {
    const s = await this.events();
    const family = s.decl.subscriptions['backup-job'];
    if (!family?.length || !this.base) return undefined;
    const registration = await this.register(s.decl, this.base, name, family, createdBy);
    const holdFirst = (holdMs: number, select: (raw: Buffer) => boolean) =>
      s.receiver.answerLate(registration.path, holdMs, (d) => eventKeyOf(d, s.decl.retry?.eventIdHeader), select);
    return { ...registration, holdFirst };
  }

  private async register(
    decl: WebhookDeclaration,
    base: string,
    name: string,
    events: string[],
    createdBy = 'webhooks'
  ): Promise<Registration> {
    const path = `/cc-${this.config.runId}/${name}`;
    const url = base + path;
    const secret = decl.register.secretField ? newSecret(decl.signature) : undefined;
    const body: Record<string, unknown> = { [decl.register.urlField]: url, [decl.register.eventsField]: events };
    if (secret && decl.register.secretField) body[decl.register.secretField] = secret;
    const exchange = await this.call({ method: decl.register.method, path: decl.register.path, json: body });
    const idValue = readLocation(exchange, decl.register.id);
    const id = typeof idValue === 'string' && idValue !== '' ? idValue : undefined;
    if (isSuccess(exchange)) this.ledger.record({ kind: 'webhook', id, name: url, createdBy }, exchange);
    return { path, url, subscribed: events, exchange, id, secret };
  }

  readonly events = (): Promise<EventSession> =>
    (this.session ??= (async () => {
      const decl = this.declarations.webhooks;
      if (!decl)
        throw new Unavailable(
          'the overlay declares no webhook registration (x-webhook-registration); see spec/README.md',
          `declare the webhook registration (x-webhook-registration) in ${this.config.names.overlay}`,
          true
        );
      this.receiver = new WebhookReceiver(this.waits);
      const [host, port] = splitListen(this.config.webhookListen);
      const bound = await this.receiver.start(host, port);
      const base = (this.base = (this.config.webhookUrl ?? `http://${bound.host}:${bound.port}`).replace(/\/+$/, ''));
      const main = await this.register(decl, base, 'main', decl.subscriptions['all'] ?? []);
      if (!isSuccess(main.exchange)) return { decl, receiver: this.receiver, main };
      let family: Registration | undefined;
      const backupFamily = decl.subscriptions['backup-job'];
      if (backupFamily?.length) {
        if (decl.retry)
          this.receiver.failAttempts(`/cc-${this.config.runId}/family`, decl.retry.delays.length, (d) =>
            eventKeyOf(d, decl.retry?.eventIdHeader)
          );
        family = await this.register(decl, base, 'family', backupFamily);
      }
      let deleted: EventSession['deleted'];
      let undeletable: EventSession['undeletable'];
      if (decl.remove) {
        const reg = await this.register(decl, base, 'deleted', decl.subscriptions['all'] ?? []);
        if (reg.id) {
          const deletion = await this.call({
            method: decl.remove.method,
            path: decl.remove.path.replace('{id}', encodeURIComponent(reg.id)),
          });
          deleted = { ...reg, deletion, deletedAt: Date.now() };
          const entry = this.ledger.entries.find((e) => e.kind === 'webhook' && e.id === reg.id);
          if (entry && isSuccess(deletion)) entry.cleanup = 'deleted';
        } else if (isSuccess(reg.exchange)) {
          const at =
            decl.register.id.in === 'body' ? `body ${decl.register.id.pointer}` : `header ${decl.register.id.name}`;
          undeletable = { ...reg, reason: `the registration answered no id at ${at}` };
        }
      }
      return { decl, receiver: this.receiver, main, family, deleted, undeletable };
    })());

  /** A backup of the run's VM started after the registrations, polled to its end. */
  readonly eventBackup = () =>
    (this.backup ??= (async () => {
      await this.events();
      const vmId = await this.objects.createdVmId();
      const exchange = await this.objects.onVm(
        vmId,
        () =>
          this.call({
            method: 'POST',
            path: `/v1/vms/${encodeURIComponent(vmId)}/backups`,
            json: { description: `cc-${this.config.runId}-events` },
          }),
        this.declarations.taskIdOnStartBackup
      );
      // When it was sent, after the run's earlier operations on the VM had ended.
      const startedAt = Date.parse(exchange.startedAt);
      if (!isSuccess(exchange))
        throw new Unavailable(
          `the backup that should raise an event was refused (${statusText(exchange)})`,
          'a backup the target starts (see backups.start)'
        );
      this.ledger.record({ kind: 'backup', createdBy: 'webhooks', note: `of VM ${vmId}` }, exchange);
      let outcome: TaskOutcome | undefined;
      try {
        const task = await this.objects.findTask(exchange, this.declarations.taskIdOnStartBackup);
        outcome = await this.objects.pollTask(task.id);
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
      }
      return { exchange, outcome, startedAt };
    })());

  /** How many firing examples the overlay declares (x-alarm-firing-example: one body or a list). */
  readonly firingExamples = (): number => this.declarations.alarms?.firingBodies.length ?? 0;

  /**
   * An alarm made to fire with the overlay's firing example `index`, on the run's VM; where the overlay links a request
   * that then makes it fire (x-fires-alarm: a metric sample pushed, a state set), that request is sent once it is
   * created. Each example is made once, when first asked for, so a check can wait for one alarm's event before the next.
   */
  readonly firedAlarm = (index = 0) =>
    (this.alarms[index] ??= (async (): Promise<FiredAlarm> => {
      const decl = this.declarations.alarms;
      if (!decl)
        throw new Unavailable(
          'the overlay declares no way to make a metric alarm fire (x-alarm-firing-example); see spec/README.md',
          `declare x-alarm-firing-example in ${this.config.names.overlay}`,
          true
        );
      await this.events();
      const vmId = await this.objects.createdVmId();
      const body = withVmId(decl.firingBodies[index] ?? decl.firingBody, vmId);
      const startedAt = Date.now();
      const exchange = await this.call({ method: decl.create.method, path: decl.create.path, json: body });
      if (!isSuccess(exchange)) return { exchange, startedAt };
      this.ledger.record({ kind: 'alarm', createdBy: 'alarms', note: `on VM ${vmId}` }, exchange);
      if (!decl.fire) return { exchange, startedAt };
      return { exchange, startedAt, firing: await this.call(firingRequest(decl.fire, body, exchange, vmId)) };
    })());

  /** The declared test-event operation, called for the main registration. */
  readonly testEvent = () =>
    (this.test ??= (async () => {
      const s = await this.events();
      const op = s.decl.testEvent;
      if (!op)
        throw new Unavailable(
          'the overlay declares no operation that sends a test event (x-sends-test-event)',
          `declare the test-event operation (x-sends-test-event) in ${this.config.names.overlay}`,
          true
        );
      if (!s.main.id)
        throw new Unavailable(
          `the registration's id is not where the overlay says (${s.decl.register.id.in === 'body' ? s.decl.register.id.pointer : s.decl.register.id.name})`,
          "declare a link from the registration's response to the operations on its id"
        );
      const startedAt = Date.now();
      const exchange = await this.call({
        method: op.method,
        path: op.path.replace('{id}', encodeURIComponent(s.main.id)),
      });
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
