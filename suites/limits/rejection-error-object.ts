import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { describeExchange, observeErrorCase } from '../support.ts';

/** A limit's rejection is an error response, so it carries the error object. */
export const rejectionErrorObject: Check = {
  id: 'limits.rejection-error-object',
  group: 'limits',
  clauses: ['ERROR-OBJECT-EVERY', 'ERROR-OBJECT'],
  level: 'must',
  why: { must: 'the seed says every error response carries the error object, rate-limit rejections included' },
  title: 'Rate-limit rejections carry the error object',
  async run(ctx) {
    const probes = [ctx.limits?.token, ctx.limits?.read, ctx.limits?.write].filter((p) => p !== undefined);
    const rejections: Exchange[] = probes.flatMap((p) => p.bursts.flatMap((b) => b.rejections));
    if (rejections.length === 0)
      return skip(
        'no rate-limit rejection was seen',
        'the limit probes must meet a rejection (see limits.read-limit, limits.write-limit, limits.token-limit)'
      );
    const bad = rejections.filter((ex) => ctx.schema.validateComponent('Error', ex.response?.json).length > 0);
    const shapes = [
      ...new Set(
        rejections.map(
          (ex) =>
            `${ex.response!.status} ${(ex.response!.json as { error?: { code?: string } })?.error?.code ?? '(no code)'}`
        )
      ),
    ];
    ctx.observe('limitRejection', shapes);
    observeErrorCase(ctx, 'rate-limited', rejections[0]!);
    if (bad.length)
      return fail(
        `${bad.length} of ${rejections.length} rejections lack the error object: ${describeExchange(bad[0]!)}: ${bad[0]!.response!.body.slice(0, 120)}`,
        bad
      );
    return pass(`all ${rejections.length} rejections carry the error object (${shapes.join(', ')})`);
  },
};
