// What k6 hands handleSummary, built from requests the glue made: the root metrics http_reqs and http_req_duration,
// and a submetric only where a threshold names it (k6 reports no other), each with the values k6 computes (count for
// a counter; for a trend the statistics of summaryTrendStats, percentiles interpolated as k6's TrendSink does), and
// the group tree with the checks made in setup() under the group "setup" (k6 runs setup() in that group).
import type { K6Group, SummaryMetric } from '../../../load/lib/decisions.js';

export interface K6Sample {
  /** every tag k6 puts on the sample: the request's own, its scenario, its status */
  tags: Record<string, string>;
  ms: number;
}

/** `metric{a:1,b:2}` → its metric and tag filter. */
function parseName(name: string): { metric: string; tags: Record<string, string> } {
  const m = /^([^{]+)(?:\{(.*)\})?$/.exec(name)!;
  const tags: Record<string, string> = {};
  for (const pair of (m[2] ?? '').split(',').filter(Boolean)) {
    const at = pair.indexOf(':');
    tags[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { metric: m[1]!, tags };
}

/** k6's TrendSink.P: linear interpolation between the sorted values around pct × (count − 1). */
function percentile(sorted: number[], pct: number): number {
  if (sorted.length === 0) return 0;
  const i = pct * (sorted.length - 1);
  const lower = Math.floor(i);
  const upper = Math.min(lower + 1, sorted.length - 1);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (i - lower);
}

function trendValues(values: number[], stats: readonly string[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const out: Record<string, number> = {};
  for (const stat of stats) {
    const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
    if (p) out[stat] = percentile(sorted, Number(p[1]) / 100);
    else if (stat === 'avg') out[stat] = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
    else if (stat === 'min') out[stat] = sorted[0] ?? 0;
    else if (stat === 'max') out[stat] = sorted[sorted.length - 1] ?? 0;
    else if (stat === 'med') out[stat] = percentile(sorted, 0.5);
  }
  return out;
}

/**
 * data.metrics as k6 builds it from the HTTP samples of a run, under the script's options. Metrics without samples
 * are left out, as k6 leaves out what it never observed.
 */
export function k6SummaryMetrics(
  samples: K6Sample[],
  options: { thresholds?: Record<string, string[]>; summaryTrendStats?: string[] }
): Record<string, SummaryMetric> {
  const stats = options.summaryTrendStats ?? ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
  const out: Record<string, SummaryMetric> = {};
  const names = ['http_reqs', 'http_req_duration', ...Object.keys(options.thresholds ?? {})];
  for (const name of names) {
    const { metric, tags } = parseName(name);
    if (metric !== 'http_reqs' && metric !== 'http_req_duration') continue;
    const matching = samples.filter((s) => Object.entries(tags).every(([k, v]) => s.tags[k] === v));
    if (matching.length === 0) continue;
    out[name] =
      metric === 'http_reqs'
        ? { type: 'counter', values: { count: matching.length, rate: 0 } }
        : {
            type: 'trend',
            values: trendValues(
              matching.map((s) => s.ms),
              stats
            ),
          };
  }
  return out;
}

/** The group tree k6 hands handleSummary: the group "setup" (k6 makes it for setup()) with its checks, the scenarios' checks in the root group. */
export function k6RootGroup(
  setupChecks: Array<{ name: string; ok: boolean }>,
  vuChecks: Array<{ name: string; ok: boolean }> = []
): K6Group {
  const tally = (list: Array<{ name: string; ok: boolean }>) => {
    const byName = new Map<string, { name: string; passes: number; fails: number }>();
    for (const c of list) {
      const t = byName.get(c.name) ?? { name: c.name, passes: 0, fails: 0 };
      if (c.ok) t.passes++;
      else t.fails++;
      byName.set(c.name, t);
    }
    return [...byName.values()];
  };
  return { name: '', checks: tally(vuChecks), groups: [{ name: 'setup', checks: tally(setupChecks), groups: [] }] };
}
