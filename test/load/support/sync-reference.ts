// The reference target for the k6 glue (load/lib/flow.js), reached synchronously as k6 reaches a target: the glue
// runs on this thread and blocks on each request while a worker thread serves and fetches (reference-worker.mjs).
import { Worker, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { HttpAnswer, Io, RequestSpec } from '../../../load/lib/flow.js';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';

interface SyncReferenceOptions {
  faults?: string[];
  timeScale?: number;
  /** answer a successful token issuance with this status instead of 200 (a target the suite did not write) */
  issuanceStatus?: number;
}

/** What an Io recorded besides answering: the k6 metrics and checks the glue emitted. */
export interface Recorded {
  requests: Array<{
    method: string;
    url: string;
    tags: Record<string, string>;
    status: number;
    at: number;
    /** how long the answer took, as k6's http_req_duration */ ms: number;
  }>;
  counts: Array<{ metric: string; tags: Record<string, string> }>;
  checks: Array<{ name: string; ok: boolean }>;
  warnings: string[];
  aborted: string[];
}

export interface SyncReference {
  settings: ReferenceSettings;
  /** a fresh Io, as k6 would bind it, for an instance running the given execution segment */
  io(segment?: { segment: string | null; sequence: string | null }): { io: Io; recorded: Recorded };
  close(): Promise<void>;
}

const TIMEOUTS: Record<string, number> = { '10s': 10_000, '30s': 30_000 };

export async function startSyncReference(opts: SyncReferenceOptions = {}): Promise<SyncReference> {
  const flag = new SharedArrayBuffer(4);
  const signal = new Int32Array(flag);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./reference-worker.mjs', import.meta.url), {
    workerData: {
      serverModule: new URL('../../../fixtures/reference/server.ts', import.meta.url).href,
      faults: opts.faults ?? [],
      timeScale: opts.timeScale ?? 1,
      issuanceStatus: opts.issuanceStatus,
      flag,
      port: port2,
    },
    transferList: [port2],
  });
  const settings = await new Promise<ReferenceSettings>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { type: string; settings?: ReferenceSettings }) => {
      if (m.type === 'ready' && m.settings) resolve(m.settings);
    });
  });

  function request(req: RequestSpec): HttpAnswer {
    Atomics.store(signal, 0, 0);
    const timeoutMs = TIMEOUTS[req.timeout] ?? 30_000;
    worker.postMessage({
      type: 'request',
      req: {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: req.body,
        readBody: req.readBody,
        timeoutMs,
      },
    });
    if (Atomics.wait(signal, 0, 0, timeoutMs + 5_000) === 'timed-out')
      throw new Error(`no answer from the worker for ${req.method} ${req.url}`);
    const m = receiveMessageOnPort(port1);
    if (!m) throw new Error('the worker woke the caller without an answer');
    return m.message as HttpAnswer;
  }

  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    settings,
    io(segment = { segment: null, sequence: null }) {
      const recorded: Recorded = { requests: [], counts: [], checks: [], warnings: [], aborted: [] };
      const io: Io = {
        request(req) {
          const sent = performance.now();
          const answer = request(req);
          recorded.requests.push({
            method: req.method,
            url: req.url,
            tags: req.tags,
            status: answer.status,
            at: Date.now(),
            ms: performance.now() - sent,
          });
          return answer;
        },
        sleep: (seconds) => void Atomics.wait(pause, 0, 0, Math.max(0, seconds * 1000)),
        now: () => Date.now(),
        abort: (message) => void recorded.aborted.push(message),
        warn: (message) => void recorded.warnings.push(message),
        count: (metric, tags) => void recorded.counts.push({ metric, tags }),
        check: (name, ok) => void recorded.checks.push({ name, ok }),
        executionSegment: () => segment,
      };
      return { io, recorded };
    },
    async close() {
      const closed = new Promise<void>((resolve) =>
        worker.on('message', (m: { type: string }) => m.type === 'closed' && resolve())
      );
      worker.postMessage({ type: 'close' });
      await closed;
      port1.close();
      await worker.terminate();
    },
  };
}

/** Blocks this thread until a real-clock moment, as a k6 VU sleeps. */
export function sleepUntil(ms: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const wait = ms - Date.now();
  if (wait > 0) Atomics.wait(pause, 0, 0, wait);
}
