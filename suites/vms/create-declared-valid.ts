import fc from 'fast-check';
import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { admitsPrefix, arbitraryFromSchema, type SchemaLike } from '../../src/engine/generate/arbitrary.ts';
import { describeExchange, documentedRefusal, isSuccess } from '../support.ts';
import { sendCreateCases, RANDOM_LANE } from './_create-cases.ts';

/**
 * Valid is accepted: create bodies generated from the overlay's declared create schema (required fields, ranges,
 * lengths, tags), kept small, must be accepted or refused only for a documented reason (quota, rate limit).
 */
export const createDeclaredValid: Check = {
  id: 'vms.create-declared-valid',
  group: 'vms',
  clauses: ['U-VM-CREATE-REQUIRED', 'VM-CREATE'],
  level: 'declared',
  why: { declared: 'the schema it draws from is the one the overlay declares' },
  title: 'Create bodies valid by the declared schema are accepted',
  async run(ctx) {
    const base = ctx.spec.base.components?.schemas?.['VmCreateRequest'] as SchemaLike;
    const merged = ctx.spec.merged.components?.schemas?.['VmCreateRequest'] as SchemaLike;
    if (!ctx.spec.overlayPath || JSON.stringify(base) === JSON.stringify(merged))
      return undeclared(
        'no overlay declares the create-VM schema',
        'declare the VmCreateRequest schema (required, types, ranges) in --overlay'
      );
    const { body: fixture } = ctx.objects.vmCreateBody('declared');
    const namePrefix = `${String(fixture['name'])}-`;
    const nameSchema = merged.properties?.['name'];
    // Everything the run creates is named cc-<run id>-...: a declared name schema that cannot carry that is said, not obeyed.
    if (nameSchema && !admitsPrefix(nameSchema, namePrefix)) {
      return skip(
        `the declared name schema (${JSON.stringify({ pattern: nameSchema.pattern, maxLength: nameSchema.maxLength })}) admits no name that starts with the run's prefix ${namePrefix}, and the suite names everything it creates so`,
        'a declared name pattern and maxLength that admit names starting with cc-<run id>- (lower-case letters, digits and hyphens)'
      );
    }
    const arbitrary = arbitraryFromSchema(merged, {
      supplied: { image: ctx.config.image, subnet_id: ctx.config.subnetId },
      namePrefix,
    });
    const sentFor = new Map<string, Exchange>();
    let refusal: Exchange | undefined;
    const property = fc.asyncProperty(arbitrary, async (body) => {
      // Only a case the declared schema accepts may be held to "valid is accepted".
      if (ctx.schema.validateComponent('VmCreateRequest', body, 'merged').length) return true;
      const [c] = await sendCreateCases(ctx, [{ label: 'declared-valid', body }], RANDOM_LANE);
      sentFor.set(JSON.stringify(body), c!.ex);
      if (isSuccess(c!.ex)) return true;
      if (documentedRefusal(c!.ex)) {
        refusal = c!.ex;
        return true;
      }
      return false;
    });
    const runs = Math.max(3, Math.ceil(ctx.config.runs / 2));
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: runs, endOnFailure: true });
    if (details.failed && details.counterexample) {
      const [body] = details.counterexample;
      const ex = sentFor.get(JSON.stringify(body))!;
      return fail(
        `a body valid by the declared schema was refused: ${describeExchange(ex)} (seed ${ctx.config.seed})`,
        [ex],
        { body, seed: ctx.config.seed }
      );
    }
    if (details.failed) return fail(`the generation stopped: ${String(details.errorInstance)}`, []);
    return pass(
      `${sentFor.size} generated bodies valid by the declared schema were accepted${refusal ? ` (one refused for a documented reason: ${describeExchange(refusal)})` : ''}`
    );
  },
};
