import type { Evidence, Level, Status } from './check.ts';
import type { LedgerEntry } from './ledger.ts';
import type { Profile } from './config.ts';

/** One check's result, as the JSON report carries it (field names are a public contract). */
export interface CheckReport {
  id: string;
  group: string;
  clauses: string[];
  level: Level;
  status: Status;
  message: string;
  evidence?: Evidence;
  title: string;
  durationMs: number;
  /** Requests the run had sent when this check ended (how much it took to get this far). */
  requestsAtEnd: number;
}

export type Verdict = 'conformant' | 'nonconformant' | 'error';

export interface RunReport {
  tool: { name: string; version: string };
  target: { baseUrl: string; embedded: boolean };
  profile: Profile;
  startedAt: string;
  finishedAt: string;
  verdict: Verdict;
  summary: { passed: number; failed: number; skipped: number; warnings: number };
  checks: CheckReport[];
  seed: number;
  timeScale: number;
  overlay?: string;
  /** What the run discovered about choices the seed leaves open. */
  observations: Record<string, unknown>;
  ledger: LedgerEntry[];
  /** What the run sent: requests in all, writes among them, tokens issued per key. */
  traffic: { requests: number; writes: number; tokensIssued: Record<string, number>; pacedWaitMs: number; byEndpoint?: Record<string, number> };
  /** How the run was restricted: no writes (--read-only), TLS not verified (--insecure). */
  safety: { readOnly: boolean; insecure: boolean };
  /** How to rerun this exact run (secrets left out). */
  reproduce: string;
  /** S3 operations the s3 group tried: supported (true), not supported (false) or not determined, with evidence. */
  s3Capabilities?: S3Capability[];
  /** Buckets the s3 group created (named cc-<run id>-…) and whether they were removed at the end. */
  s3Cleanup?: { buckets: string[]; removed: string[]; failed: Array<{ bucket: string; error: string }> };
  /** Each limit probe's requests over time (ms since the probe's first request), for the report's chart; at most ~1000 points each. */
  limitProbes?: LimitProbeTrace[];
  /** sha256 of the documents the run was judged against: the clause list, the OpenAPI document, and the seed where it is present. */
  digests?: { clauses: string; openapi: string; seed?: { path: string; sha256: string } };
}

export interface LimitProbeTrace {
  what: string;
  limit: number;
  /** exact, stricter, looser or inconclusive. */
  verdict: string;
  /** The verdict in words. */
  detail?: string;
  /** Send time (ms since the probe's first request), outcome, burst (0 first, 1 the confirming burst on a fresh budget) and number within the burst. */
  points: Array<{ tMs: number; outcome: 'accepted' | 'rejected' | 'other'; burst?: number; n?: number }>;
}

export interface S3Capability {
  operation: string;
  supported: boolean | 'unknown';
  evidence: string;
}

/** nonconformant exactly when a must or declared check failed; a failed should check is a warning. */
export function verdictOf(checks: CheckReport[], internalError: boolean): Verdict {
  if (internalError) return 'error';
  return checks.some((c) => c.status === 'failed') ? 'nonconformant' : 'conformant';
}

export function summarize(checks: CheckReport[]): RunReport['summary'] {
  const count = (s: Status) => checks.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), warnings: count('warning') };
}
