import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { absentId, describeExchange, fromLog, observeErrorCase } from '../support.ts';

/** The methods an Allow value lists (RFC 9110 §10.2.1: a comma-separated list of method tokens, case-sensitive). */
export function allowedMethods(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((m) => m.trim()).filter(Boolean);
}

/**
 * HTTP convention (RFC 9110 §15.5.6): a 405 answer lists in Allow the methods the resource does support, and not the
 * one it just refused. Which methods a path lacks is not shown, so only the target's own 405 answers are judged.
 */
export const allowOn405: Check = {
  id: 'errors.allow-on-405',
  group: 'errors',
  clauses: ['ERROR-OBJECT-EVERY'],
  level: 'should',
  why: { should: 'the seed does not show how a method a path lacks is answered: a 405 names the allowed methods in Allow (RFC 9110 §15.5.6)' },
  title: 'A 405 answer lists the allowed methods in Allow',
  reviewsLog: true,
  async run(ctx) {
    // Tasks are only read: a PUT on a task that does not exist is harmless anywhere.
    if (!ctx.config.readOnly) observeErrorCase(ctx, 'method-not-allowed', await ctx.call({ method: 'PUT', path: `/v1/tasks/${absentId(ctx, 'task')}`, json: {} }));
    const refused = fromLog(ctx, (ex) => ex.response!.status === 405);
    if (refused.length === 0) return skip('no request was answered 405 (a target may answer 404 for a method a path lacks); nothing to judge', 'a target that answers 405 for a method a path lacks');
    const bad = refused
      .map((ex) => ({ ex, allowed: allowedMethods(ex.response!.headers['allow']) }))
      .filter(({ ex, allowed }) => !allowed || allowed.length === 0 || allowed.includes(ex.request.method));
    if (bad.length) {
      const { ex, allowed } = bad[0]!;
      const why = !allowed ? 'no Allow header' : allowed.length === 0 ? 'an empty Allow header' : `Allow: ${ex.response!.headers['allow']}, which lists the refused ${ex.request.method}`;
      return fail(`${bad.length} of ${refused.length} 405 answers do not say which methods are allowed: ${describeExchange(ex)} with ${why}`, bad.slice(0, 10).map((b) => b.ex));
    }
    return pass(`all ${refused.length} 405 answers list the allowed methods (${[...new Set(refused.map((ex) => ex.response!.headers['allow']))].slice(0, 3).join('; ')})`);
  },
};
