import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { fromLog, describeExchange, absentId, observeErrorCase } from '../support.ts';
import { isShapedPath } from './path-shapes.ts';

/** Checks that hold the answers to their own requests to the error object themselves (and errors.path-shapes its paths of other shapes). */
const JUDGED_BY_SENDER = new Set(['errors.invalid-inputs']);

/**
 * Every error response of the run carries {error:{code, message}}: those provoked here (not found, invalid body, no token,
 * a method the path does not have) and every other one in the log (401, 413 and 415 included).
 */
export const errorObject: Check = {
  id: 'errors.error-object',
  group: 'errors',
  clauses: ['ERROR-OBJECT', 'ERROR-OBJECT-EVERY'],
  level: 'must',
  why: { must: 'the seed says every error response carries the error object' },
  title: 'Every error response carries the error object',
  reviewsLog: true,
  async run(ctx) {
    // Provoke the common error cases, so the check has material even when run alone; side by side, none depends on another.
    // A method the task path does not have (tasks are only read), on a task that does not exist: harmless anywhere.
    const [notFound] = await ctx.callEach([
      { method: 'GET', path: `/v1/tasks/${absentId(ctx, 'task')}` },
      { as: 'anonymous', method: 'GET', path: '/v1/vms' },
      ...(ctx.config.readOnly
        ? []
        : [
            { method: 'POST', path: '/v1/vms', json: { name: 12345 } },
            { method: 'PUT', path: `/v1/tasks/${absentId(ctx, 'task')}`, json: {} },
          ]),
    ]);
    observeErrorCase(ctx, 'not-found', notFound!);
    // The limit probes' answers are judged by limits.rejection-error-object, so one fault fails one check.
    // errors.invalid-inputs and errors.path-shapes judge the answers to their own inputs, likewise.
    const errors = fromLog(
      ctx,
      (ex) =>
        ex.response!.status >= 400 &&
        !ex.sentBy.startsWith('limits.') &&
        !JUDGED_BY_SENDER.has(ex.sentBy) &&
        !isShapedPath(ex)
    );
    const bad = errors
      .map((ex) => ({ ex, problems: ctx.schema.validateComponent('Error', ex.response?.json) }))
      .filter((r) => r.problems.length);
    if (bad.length) {
      return fail(
        `${bad.length} of ${errors.length} error responses lack the error object: ${describeExchange(bad[0]!.ex)}: ${bad[0]!.problems.join('; ')}`,
        bad.map((b) => b.ex),
        {
          violations: bad.slice(0, 10).map((b) => ({ exchange: describeExchange(b.ex), problems: b.problems })),
        }
      );
    }
    const codes = [
      ...new Set(
        errors.map((ex) => `${ex.response!.status} ${(ex.response!.json as { error: { code: string } }).error.code}`)
      ),
    ];
    ctx.observe('errorCases', codes);
    return pass(`all ${errors.length} error responses carry the error object (${codes.join(', ')})`);
  },
};
