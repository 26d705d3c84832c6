import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, undeclared } from '../../src/engine/run/check.ts';
import { fromLog, describeExchange } from '../support.ts';

/** With an overlay, every response also matches what the target declared (beyond what the seed states). */
export const declaredResponses: Check = {
  id: 'schema.declared-responses',
  group: 'schema',
  clauses: [
    'U-VM-RECORD-FIELDS',
    'U-VM-CREATE-RESPONSE',
    'U-TASK-FIELDS',
    'U-STATES',
    'U-TOTAL-FIELD-NAME',
    'U-BACKUP-RESPONSE',
  ],
  level: 'declared',
  why: { declared: "the schemas are the overlay's, not the seed's" },
  title: "Responses match the schemas the target's overlay declares",
  reviewsLog: true,
  async run(ctx) {
    if (!ctx.spec.overlayPath)
      return undeclared('no --overlay given: the target declared no schemas', '--overlay FILE');
    const verdicts = fromLog(ctx, () => true).flatMap((ex) => {
      const v = ctx.schema.assert(ex);
      return v ? [{ ex, v }] : [];
    });
    const bad = verdicts.filter((r) => r.v.declaredErrors.length);
    if (bad.length) {
      return fail(
        `${bad.length} of ${verdicts.length} responses break the declared schema of ${bad[0]!.v.operationId}: ${bad[0]!.v.declaredErrors.slice(0, 3).join('; ')}`,
        bad.map((b) => b.ex),
        {
          violations: bad.slice(0, 10).map((b) => ({
            exchange: describeExchange(b.ex),
            operation: b.v.operationId,
            errors: b.v.declaredErrors.slice(0, 5),
          })),
        }
      );
    }
    return pass(`${verdicts.length} responses match the declared schemas of ${ctx.spec.overlayPath}`);
  },
};
