import type { Exchange, RecordedRequest } from './exchange.ts';
import { toCurl } from './exchange.ts';
import type { CheckContext } from './context.ts';

export type Level = 'must' | 'should' | 'declared';
export type Status = 'passed' | 'failed' | 'skipped' | 'warning';

export interface EvidenceExchange {
  request: RecordedRequest;
  response?: { status: number; headers: Record<string, string>; body: string };
  transportError?: string;
  curl: string;
}

export interface Evidence {
  exchanges: EvidenceExchange[];
  /** What the check expected and saw, beyond the raw exchanges (discovered fields, counts...). */
  details?: Record<string, unknown>;
}

export type CheckOutcome =
  | { status: 'passed'; message: string; evidence?: Evidence }
  | { status: 'failed'; message: string; evidence: Evidence }
  | { status: 'skipped'; message: string };

/** One conformance check: what it covers (clauses), how strongly (level), and how to run it. */
export interface Check {
  id: string;
  group: string;
  clauses: string[];
  level: Level;
  title: string;
  /** Reviews every exchange of the run, so it runs after all other checks. */
  reviewsLog?: true;
  run(ctx: CheckContext): Promise<CheckOutcome>;
}

const MAX_EVIDENCE_EXCHANGES = 5;

export function evidenceOf(exchanges: Exchange[], details?: Record<string, unknown>): Evidence {
  return {
    exchanges: exchanges.slice(0, MAX_EVIDENCE_EXCHANGES).map((ex) => ({
      request: ex.request,
      response: ex.response && { status: ex.response.status, headers: ex.response.headers, body: ex.response.body.slice(0, 2048) },
      transportError: ex.transportError,
      curl: toCurl(ex.request),
    })),
    details,
  };
}

export const pass = (message: string, exchanges: Exchange[] = [], details?: Record<string, unknown>): CheckOutcome => ({
  status: 'passed',
  message,
  evidence: exchanges.length || details ? evidenceOf(exchanges, details) : undefined,
});

export const fail = (message: string, exchanges: Exchange[], details?: Record<string, unknown>): CheckOutcome => ({
  status: 'failed',
  message,
  evidence: evidenceOf(exchanges, details),
});

export const skip = (message: string): CheckOutcome => ({ status: 'skipped', message });

/** A fixture a check depends on could not be set up; the check is skipped with this reason. */
export class Unavailable extends Error {}
