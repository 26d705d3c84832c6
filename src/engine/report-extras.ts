import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseShippedYaml } from '../spec/yaml.ts';
import { SPEC_DIR } from '../spec/load.ts';
import type { LimitsReport, LimitProbe } from './limit-session.ts';
import { describeVerdict } from './probes.ts';
import type { LimitProbeTrace, RunReport } from './report.ts';

const MAX_POINTS = 1000;

/** A probe's requests over time for the report's chart: send time since the probe's first request, and how each was classified. */
export function traceProbe(probe: LimitProbe): LimitProbeTrace {
  // Each request: when it was sent, how it was classified, which burst it belongs to and its number in that burst.
  const all = probe.bursts.flatMap((b, burst) =>
    [...b.exchanges]
      .sort((x, y) => Date.parse(x.startedAt) - Date.parse(y.startedAt))
      .map((ex, i) => ({ at: Date.parse(ex.startedAt), outcome: b.rejections.includes(ex) ? ('rejected' as const) : b.others.includes(ex) ? ('other' as const) : ('accepted' as const), burst, n: i + 1 })),
  );
  all.sort((a, b) => a.at - b.at || a.burst - b.burst || a.n - b.n);
  const t0 = all[0]?.at ?? 0;
  // Keep it compact: every n-th point, but never drop a rejection or an "other" (they are what the chart is for).
  const stride = Math.ceil(all.length / MAX_POINTS) || 1;
  const kept = all.filter((p, i) => i % stride === 0 || p.outcome !== 'accepted');
  return {
    what: probe.what,
    limit: probe.limit,
    verdict: probe.verdict.kind,
    detail: describeVerdict(probe.limit, probe.what, probe.verdict),
    points: kept.map((p) => ({ tMs: p.at - t0, outcome: p.outcome, burst: p.burst, n: p.n })),
  };
}

export function limitTraces(limits: LimitsReport | undefined): LimitProbeTrace[] | undefined {
  if (!limits) return undefined;
  return [limits.token, limits.read, limits.write].filter((p): p is LimitProbe => !!p).map(traceProbe);
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Digests of what the run was judged against: spec/clauses.yaml and spec/openapi.yaml ship with the tool and are
 * always there; the seed document (named in clauses.yaml, relative to the workspace that holds this repository)
 * is digested only where it is present, e.g. in the project's own checkout.
 */
export function specDigests(): NonNullable<RunReport['digests']> {
  const clausesFile = path.join(SPEC_DIR, 'clauses.yaml');
  const digests: NonNullable<RunReport['digests']> = { clauses: sha256(clausesFile), openapi: sha256(path.join(SPEC_DIR, 'openapi.yaml')) };
  try {
    const seedRel = (parseShippedYaml(clausesFile, readFileSync(clausesFile, 'utf8')) as { seed?: string }).seed;
    if (seedRel) {
      const repo = path.dirname(SPEC_DIR);
      const found = [path.resolve(repo, seedRel), path.resolve(repo, '..', seedRel)].find((p) => existsSync(p));
      if (found) digests.seed = { path: seedRel, sha256: sha256(found) };
    }
  } catch {
    // No seed digest: the clause list's digest still pins the statements the run checked.
  }
  return digests;
}
