import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { absentId, describeExchange, fromLog, observeErrorCase } from '../support.ts';
import { documentOperations, pathWithAbsentIds } from '../operations.ts';
import { allowedMethods } from '../../src/engine/target/served-operations.ts';

// Where tests read it: how an Allow value is parsed is the registry's (src/engine/target/served-operations.ts).
export { allowedMethods };

/**
 * A method each path of the document lacks (PATCH, else PUT), on ids that exist nowhere: harmless anywhere, and a
 * router often answers per path. Never the key revocation's path, nor token issuance's (whose budget a target may count by path).
 */
function lackingMethods(ctx: CheckContext): CallOptions[] {
  const ops = documentOperations(ctx);
  const paths = [...new Set(ops.map((o) => o.path))].filter(
    (p) => !/api-keys/.test(p) && !ops.some((o) => o.path === p && o.public) && p !== '/v1/tasks/{id}'
  );
  return paths.flatMap((template) => {
    const method = ['PATCH', 'PUT'].find((m) => !ops.some((o) => o.path === template && o.method === m));
    if (!method) return [];
    return [{ method, path: pathWithAbsentIds(ctx, template), json: {} }];
  });
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
  why: {
    should:
      'the seed does not show how a method a path lacks is answered: a 405 names the allowed methods in Allow (RFC 9110 §15.5.6)',
  },
  title: 'A 405 answer lists the allowed methods in Allow, on every path of the document',
  reviewsLog: true,
  async run(ctx) {
    // Tasks are only read: a PUT on a task that does not exist is harmless anywhere. Then every other path once.
    if (!ctx.config.readOnly) {
      const [onTask] = await ctx.callEach([
        { method: 'PUT', path: `/v1/tasks/${absentId(ctx, 'task')}`, json: {} },
        ...lackingMethods(ctx),
      ]);
      observeErrorCase(ctx, 'method-not-allowed', onTask!);
    }
    const refused = fromLog(ctx, (ex) => ex.response!.status === 405);
    if (refused.length === 0)
      return skip(
        'no request was answered 405 (a target may answer 404 for a method a path lacks); nothing to judge',
        'a target that answers 405 for a method a path lacks'
      );
    const bad = refused
      .map((ex) => ({ ex, allowed: allowedMethods(ex.response!.headers['allow']) }))
      .filter(({ ex, allowed }) => !allowed || allowed.length === 0 || allowed.includes(ex.request.method));
    if (bad.length) {
      const { ex, allowed } = bad[0]!;
      const why = !allowed
        ? 'no Allow header'
        : allowed.length === 0
          ? 'an empty Allow header'
          : `Allow: ${ex.response!.headers['allow']}, which lists the refused ${ex.request.method}`;
      return fail(
        `${bad.length} of ${refused.length} 405 answers do not say which methods are allowed: ${describeExchange(ex)} with ${why}`,
        bad.slice(0, 10).map((b) => b.ex)
      );
    }
    return pass(
      `all ${refused.length} 405 answers list the allowed methods (${[...new Set(refused.map((ex) => ex.response!.headers['allow']))].slice(0, 3).join('; ')})`
    );
  },
};
