import type { Check, Finding } from '../../src/engine/run/check.ts';
import { judge, finding, skip } from '../../src/engine/run/check.ts';
import type { LimitProbe } from '../../src/engine/limits/limit-probes.ts';
import type { CrossObservation } from '../../src/engine/limits/cross-budget.ts';
import { refusedAcrossTokens } from './_verdict.ts';

/**
 * Reads and writes have budgets of their own (300 reads and 60 writes per minute per token): a token whose read budget
 * is spent is still served a write, and a token whose write budget is spent is still served as many reads as a fresh
 * one. Each probe starts on a fresh token, so a target that charges one class to the other passes them one at a time.
 */
export const budgetsSeparate: Check = {
  id: 'limits.budgets-separate',
  group: 'limits',
  clauses: ['LIMIT-READ-300', 'LIMIT-WRITE-60'],
  level: 'must',
  why: { must: 'the seed states a read limit and a write limit, each per token: spending one leaves the other' },
  title: 'Spending the read budget leaves the write budget, and the other way round',
  async run(ctx) {
    const read = ctx.limits?.read;
    const write = ctx.limits?.write;
    // Budgets shared across tokens spend each other's tokens too: nothing was sent, as it could not be told apart (limits.token-scope).
    const shared = [read, write].filter((p) => refusedAcrossTokens(p, p === write));
    if (shared.length)
      return skip(
        'the budgets are not per token (see limits.token-scope), so charging one class to the other cannot be told apart',
        'a target whose read and write budgets are per token'
      );
    const skipped = [read, write].flatMap((p) => (p?.cross && 'skipped' in p.cross ? [p.cross.skipped] : []));
    const observed = [read, write].filter(
      (p): p is LimitProbe & { cross: CrossObservation } => p?.cross !== undefined && !('skipped' in p.cross)
    );
    if (observed.length === 0) {
      if (skipped.length)
        return skip(
          `nothing was sent after a spent budget: ${skipped.join('; ')}`,
          'a run at --time-scale 60 or lower, without --read-only'
        );
      return skip(
        'no budget was spent on a token during the probes, so nothing was sent after it',
        'the read and write probes must meet a rejection (see limits.read-limit, limits.write-limit)'
      );
    }
    const findings: Finding[] = [];
    const judged: string[] = [];
    const open: string[] = [...skipped];
    for (const p of observed) {
      const c = p.cross;
      // As many as a fresh token was served (fewer than the documented budget is limits.read-limit's finding, not this one's).
      const other = c.sent === 'reads' ? read : write;
      const fresh =
        other?.verdict.kind === 'stricter'
          ? other.verdict.accepted
          : other?.verdict.kind === 'inconclusive'
            ? undefined
            : c.planned;
      const expected = Math.min(c.planned, fresh ?? c.planned);
      const what = `on a token whose ${c.spent} budget was spent`;
      if (
        c.sent === 'writes' &&
        write &&
        write.bursts[0]?.exchanges[0]?.response?.status === p.firstRejection?.response?.status
      ) {
        open.push(`${c.sent} ${what} (a write that creates nothing is answered with the limit's own status)`);
        continue;
      }
      // The write sent is one that creates nothing: it says something only where such writes are limited at all.
      if (c.sent === 'writes' && !(write?.what === 'writes' && write.firstRejection)) {
        open.push(`${c.sent} ${what} (writes that create nothing were never limited, so one served proves nothing)`);
        continue;
      }
      if (c.burst.rejections.length && c.burst.accepted < expected) {
        if (fresh === undefined && c.sent === 'reads') {
          open.push(
            `${c.sent} ${what}: ${c.burst.accepted} served, and a fresh token's ${c.sent} budget was not measured (see limits.read-limit)`
          );
          continue;
        }
        findings.push(
          finding(
            'must',
            `only ${c.burst.accepted} ${c.sent} were served ${what}, where a fresh token is served ${expected}: ${c.spent} are charged to the ${c.sent} budget`,
            [p.crossAfter ?? p.firstRejection!, c.burst.rejections[0]!],
            { served: c.burst.accepted, expected }
          )
        );
      } else if (c.burst.others.length) {
        open.push(`${c.sent} ${what}: ${c.burst.others.length} answers were neither served nor limited`);
      } else if (!c.witnessRefused) {
        open.push(
          `${c.sent} ${what}: the ${c.spent} budget had come back by the end (its window reset), so charging could not show`
        );
      } else {
        judged.push(`${c.burst.accepted} ${c.sent} served ${what}`);
      }
    }
    if (findings.length === 0 && judged.length === 0)
      return skip(
        `inconclusive: ${open.join('; ')}`,
        'a probe that fills one window: rerun with --profile full (or certify), away from other traffic on the key'
      );
    return judge(findings, `${judged.join('; ')}${open.length ? ` (not judged: ${open.join('; ')})` : ''}`);
  },
};
