// What an operator learns from a limit probe, computed once here and rendered by every format: requests sent, the share
// answered 429, latency percentiles, the Retry-After values received and the waits after which the budget was back.
// Every duration is in target seconds (real seconds times the time scale), and says so.
import type { Exchange } from '../transport/exchange.ts';
import { parseRetryAfter } from '../transport/retry-after.ts';
import type { LimitProbe, ResetObservation } from './limit-probes.ts';

/** A wait after a refusal, in target seconds from the refusal's answer to the retry's send, and whether it was served. */
export interface ProbeWait {
  after: 'Retry-After' | 'Retry-After read as real seconds' | 'a whole window';
  targetSeconds: number;
  /** The budget was back: the probe's own classifier counted the retry as served. */
  served: boolean;
}

export interface LimitProbeStats {
  /** Every request the probe sent: its bursts, and the retries that watched its budget come back. */
  requests: number;
  answered429: number;
  /** answered429 / requests (0 to 1, four decimals). */
  share429: number;
  /** From send to the whole answer, in target seconds (nearest-rank percentiles). */
  latencyTargetSeconds: { p50: number; p95: number; max: number };
  /** Each Retry-After value the probe received (target seconds), with how many answers carried it. */
  retryAfterTargetSeconds: Array<{ seconds: number; answers: number }>;
  waits: ProbeWait[];
  /** Target seconds per real second: what the seconds above are measured in. */
  timeScale: number;
  /** The above as labelled values (each label names its unit), as the HTML tabulates them. */
  parts: Array<[string, string]>;
  /** The above in one line, as the terminal and the JSON say it. */
  words: string;
}

/** Nearest-rank percentile of sorted values (0 for none). */
const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0;

/** Target seconds, to the millisecond of target time. */
const targetSeconds = (realMs: number, timeScale: number) => Math.round(realMs * timeScale) / 1000;

const answeredAt = (ex: Exchange) => Date.parse(ex.startedAt) + ex.durationMs;

function waitsOf(reset: ResetObservation | undefined, timeScale: number): ProbeWait[] {
  if (!reset) return [];
  const from = answeredAt(reset.rejection);
  const tried: Array<[ProbeWait['after'], Exchange | undefined, NonNullable<ResetObservation['backAfter']>]> = [
    ['Retry-After', reset.afterRetryAfter, 'retry-after'],
    ['Retry-After read as real seconds', reset.afterRetryAfterReal, 'retry-after-real'],
    ['a whole window', reset.afterWindow, 'window'],
  ];
  return tried
    .filter(([, ex]) => ex)
    .map(([after, ex, key]) => ({
      after,
      targetSeconds: targetSeconds(Date.parse(ex!.startedAt) - from, timeScale),
      served: reset.backAfter === key,
    }));
}

export function probeStats(probe: LimitProbe, timeScale: number): LimitProbeStats {
  return trafficStats(probe.what, [...probe.bursts.flatMap((b) => b.exchanges), ...resetRetries(probe)], timeScale, {
    waits: waitsOf(probe.reset, timeScale),
  });
}

/** The requests a probe sent after a refusal to watch its budget come back, in the order they were tried. */
export function resetRetries(probe: LimitProbe): Exchange[] {
  const r = probe.reset;
  return [r?.afterRetryAfter, r?.afterRetryAfterReal, r?.afterWindow].filter((x): x is Exchange => !!x);
}

/**
 * The same numbers for any set of requests (a limit check's own, read from the run's log by who sent them); `waits`
 * only where a probe watched its budget come back ("none watched" otherwise).
 */
export function trafficStats(
  what: string,
  sent: readonly Exchange[],
  timeScale: number,
  o: { waits?: ProbeWait[] } = {}
): LimitProbeStats {
  const answered429 = sent.filter((ex) => ex.response?.status === 429).length;
  const latencies = sent.map((ex) => targetSeconds(ex.durationMs, timeScale)).sort((a, b) => a - b);
  const received = new Map<number, number>();
  for (const ex of sent) {
    const s = parseRetryAfter(ex, timeScale);
    if (s !== undefined) received.set(s, (received.get(s) ?? 0) + 1);
  }
  const stats = {
    requests: sent.length,
    answered429,
    share429: sent.length ? Math.round((answered429 / sent.length) * 10000) / 10000 : 0,
    latencyTargetSeconds: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: latencies.at(-1) ?? 0,
    },
    retryAfterTargetSeconds: [...received]
      .sort(([a], [b]) => a - b)
      .map(([seconds, answers]) => ({ seconds, answers })),
    waits: o.waits ?? [],
    timeScale,
  };
  return { ...stats, ...statsWords(what, stats) };
}

/** The numbers as labelled lines (every label says its unit) and as one line, for every format alike. */
function statsWords(
  what: string,
  s: Omit<LimitProbeStats, 'words' | 'parts'>
): Pick<LimitProbeStats, 'words' | 'parts'> {
  const l = s.latencyTargetSeconds;
  const parts: Array<[string, string]> = [
    ['requests sent', String(s.requests)],
    ['answered 429', `${s.answered429} (${Math.round(s.share429 * 1000) / 10}%)`],
    ['latency, target s', `p50 ${l.p50}, p95 ${l.p95}, max ${l.max}`],
    [
      'Retry-After received, target s',
      s.retryAfterTargetSeconds
        .map((x) => `${x.seconds} (${x.answers} answer${x.answers === 1 ? '' : 's'})`)
        .join(', ') || 'none',
    ],
    [
      'waits after a refusal, target s',
      s.waits.map((w) => `${w.targetSeconds} after ${w.after}: ${w.served ? 'served' : 'still refused'}`).join('; ') ||
        'none watched',
    ],
  ];
  return {
    parts,
    words: `${what}: ${parts.map(([k, v]) => `${k} ${v}`).join('; ')} (time scale ${s.timeScale})`,
  };
}
