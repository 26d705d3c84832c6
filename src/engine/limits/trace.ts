// A limit probe's requests over time, for the report's chart (the JSON report's limitProbes).
import type { LimitsReport, LimitProbe } from './limit-probes.ts';
import { describeVerdict } from '../documented-limits/verdicts.js';
import { probeStats, resetRetries, type LimitProbeStats } from './stats.ts';
import type { Exchange } from '../transport/exchange.ts';

export interface LimitProbeTrace {
  what: string;
  limit: number;
  /** exact, stricter, looser or inconclusive. */
  verdict: string;
  /** The verdict in words. */
  detail?: string;
  /**
   * Send time (ms since the probe's first request), outcome, burst (0 first, 1 the confirming burst on a fresh budget)
   * and number within the burst; `retry` marks a request sent after a refusal to watch the budget come back (numbered
   * on after the last burst), so the chart holds every request the stats count.
   */
  points: Array<{ tMs: number; outcome: 'accepted' | 'rejected' | 'other'; burst?: number; n?: number; retry?: true }>;
  /** Requests, the share answered 429, latency, Retry-After received and the waits that worked, in target seconds. */
  stats?: LimitProbeStats;
}

const MAX_POINTS = 1000;

/** A probe's requests over time for the report's chart: send time since the probe's first request, and how each was classified. */
function traceProbe(probe: LimitProbe, timeScale: number): LimitProbeTrace {
  // Each request: when it was sent, how it was classified, which burst it belongs to and its number in that burst.
  const all = probe.bursts.flatMap((b, burst) =>
    [...b.exchanges]
      .sort((x, y) => Date.parse(x.startedAt) - Date.parse(y.startedAt))
      .map((ex, i) => ({
        at: Date.parse(ex.startedAt),
        outcome: b.rejections.includes(ex)
          ? ('rejected' as const)
          : b.others.includes(ex)
            ? ('other' as const)
            : ('accepted' as const),
        burst,
        n: i + 1,
      }))
  );
  const last = probe.bursts.length - 1;
  const lastCount = probe.bursts[last]?.exchanges.length ?? 0;
  // A retry is refused as the probe's budget refused it (its status), served otherwise: a served write is a 400.
  const refusedWith = probe.reset?.rejection.response?.status;
  const outcomeOf = (ex: Exchange) =>
    !ex.response
      ? ('other' as const)
      : ex.response.status === refusedWith
        ? ('rejected' as const)
        : ('accepted' as const);
  const retries = resetRetries(probe).map((ex, i) => ({
    at: Date.parse(ex.startedAt),
    outcome: outcomeOf(ex),
    burst: Math.max(0, last),
    n: lastCount + i + 1,
    retry: true as const,
  }));
  all.push(...retries);
  all.sort((a, b) => a.at - b.at || a.burst - b.burst || a.n - b.n);
  const t0 = all[0]?.at ?? 0;
  // Keep it compact: every n-th point, but never drop a rejection or an "other" (they are what the chart is for).
  const stride = Math.ceil(all.length / MAX_POINTS) || 1;
  const kept = all.filter((p, i) => i % stride === 0 || p.outcome !== 'accepted' || 'retry' in p);
  return {
    what: probe.what,
    limit: probe.limit,
    verdict: probe.verdict.kind,
    detail: describeVerdict(probe.limit, probe.what, probe.verdict),
    points: kept.map((p) => ({
      tMs: p.at - t0,
      outcome: p.outcome,
      burst: p.burst,
      n: p.n,
      ...('retry' in p ? { retry: true as const } : {}),
    })),
    stats: probeStats(probe, timeScale),
  };
}

export function limitTraces(limits: LimitsReport | undefined, timeScale: number): LimitProbeTrace[] | undefined {
  if (!limits) return undefined;
  return [limits.token, limits.read, limits.write]
    .filter((p): p is LimitProbe => !!p)
    .map((p) => traceProbe(p, timeScale));
}
