// What a check concludes (levels, statuses, findings and their evidence) and Unavailable, which any layer below the
// run may throw when a fixture a check needs cannot be had.
import type { Exchange, IncompleteResponse, RecordedRequest } from '../transport/exchange.ts';
import { toCurl } from '../transport/exchange.ts';

export type Level = 'must' | 'should' | 'declared';
/** error: the check could not run because of the suite or the target's refusal to let it (never a silent skip). */
export type Status = 'passed' | 'failed' | 'skipped' | 'warning' | 'error';

export const LEVEL_RANK: Record<Level, number> = { should: 0, declared: 1, must: 2 };

export interface EvidenceExchange {
  request: RecordedRequest;
  /** The body's first 2 KiB; bodyBytes, the size of the whole body. */
  response?: { status: number; headers: Record<string, string>; body: string; bodyBytes?: number };
  transportError?: string;
  incompleteResponse?: IncompleteResponse;
  curl: string;
}

export interface Evidence {
  exchanges: EvidenceExchange[];
  /** What the check expected and saw, beyond the raw exchanges (discovered fields, counts...). */
  details?: Record<string, unknown>;
}

/** One assertion of a check that did not hold, at its own level (a check may mix must, should and declared). */
export interface Finding {
  level: Level;
  message: string;
  evidence?: Evidence;
}

export type CheckOutcome =
  | { status: 'passed'; message: string; evidence?: Evidence }
  | {
      status: 'failed';
      message: string;
      evidence: Evidence;
      /** The level of the assertion that failed; the check's own level when absent. */
      level?: Level;
      /** Further failed assertions (at their own levels) beside the main one. */
      findings?: Finding[];
    }
  | {
      status: 'skipped';
      message: string;
      /** The flag, profile or declaration that would let the check decide ("--api-key-b KEY"). */
      howToVerify?: string;
      /** The overlay does not declare the optional design this check holds a target to: nothing to verify for it. */
      undeclared?: true;
    };

const MAX_EVIDENCE_EXCHANGES = 5;

/** Characters of a body a passed check's evidence keeps: what it saw, in short. A failure keeps what was recorded (64 KiB). */
const PASSED_BODY_CHARS = 2048;

/** The evidence of an outcome: its first exchanges, each body as recorded (a pass's cut to PASSED_BODY_CHARS). */
export function evidenceOf(
  exchanges: Exchange[],
  details?: Record<string, unknown>,
  bodyChars = Number.POSITIVE_INFINITY
): Evidence {
  return {
    exchanges: exchanges.slice(0, MAX_EVIDENCE_EXCHANGES).map((ex) => ({
      request: ex.request,
      response: ex.response && {
        status: ex.response.status,
        headers: ex.response.headers,
        body: ex.response.body.length > bodyChars ? `${ex.response.body.slice(0, bodyChars)}…` : ex.response.body,
        ...(ex.response.bodyBytes !== undefined ? { bodyBytes: ex.response.bodyBytes } : {}),
      },
      transportError: ex.transportError,
      incompleteResponse: ex.incompleteResponse,
      curl: toCurl(ex.request),
    })),
    details,
  };
}

export const pass = (message: string, exchanges: Exchange[] = [], details?: Record<string, unknown>): CheckOutcome => ({
  status: 'passed',
  message,
  evidence: exchanges.length || details ? evidenceOf(exchanges, details, PASSED_BODY_CHARS) : undefined,
});

/** A failed assertion at the check's own level. */
export const fail = (message: string, exchanges: Exchange[], details?: Record<string, unknown>): CheckOutcome => ({
  status: 'failed',
  message,
  evidence: evidenceOf(exchanges, details),
});

/** A failed assertion at an explicit level (a must check's convention-only assertion fails at should). */
export const failAt = (
  level: Level,
  message: string,
  exchanges: Exchange[],
  details?: Record<string, unknown>
): CheckOutcome => ({
  status: 'failed',
  level,
  message,
  evidence: evidenceOf(exchanges, details),
});

/** A convention the seed does not state did not hold: a warning, never a failed verdict. */
export const warn = (message: string, exchanges: Exchange[], details?: Record<string, unknown>): CheckOutcome =>
  failAt('should', message, exchanges, details);

/** The check could not decide: "not verified", with what would let it decide. */
export const skip = (message: string, howToVerify?: string): CheckOutcome => ({
  status: 'skipped',
  message,
  ...(howToVerify ? { howToVerify } : {}),
});

/**
 * A declared check whose optional design the overlay does not declare (a test event, a retry schedule): for the
 * unshown item it is not a requirement, so it is not "not verified" either; a MUST clause it observes stays open.
 */
export const undeclared = (message: string, howToVerify: string): CheckOutcome => ({
  status: 'skipped',
  message,
  howToVerify,
  undeclared: true,
});

export function finding(
  level: Level,
  message: string,
  exchanges: Exchange[] = [],
  details?: Record<string, unknown>
): Finding {
  return { level, message, evidence: evidenceOf(exchanges, details) };
}

/**
 * The outcome of a check that asserts at several levels: the most severe failed assertion leads (must and declared
 * before should), the others travel with it; no failed assertion is a pass.
 */
export function judge(
  findings: Finding[],
  passMessage: string,
  passExchanges: Exchange[] = [],
  passDetails?: Record<string, unknown>
): CheckOutcome {
  if (findings.length === 0) return pass(passMessage, passExchanges, passDetails);
  const ordered = [...findings].sort((a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level]);
  const [lead, ...rest] = ordered as [Finding, ...Finding[]];
  return {
    status: 'failed',
    level: lead.level,
    message: lead.message,
    evidence: lead.evidence ?? { exchanges: [] },
    ...(rest.length ? { findings: rest } : {}),
  };
}

/** A fixture a check depends on could not be set up; the check is skipped with this reason. */
export class Unavailable extends Error {
  constructor(
    message: string,
    /** What would make it available (a flag, a declaration). */
    readonly howToVerify?: string,
    /** The overlay declares no such design (see undeclared()). */
    readonly undeclared?: true
  ) {
    super(message);
  }
}
