import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check, Finding, Level } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { judge, finding, fail } from '../../src/engine/run/check.ts';
import { classify, createBodyArbitrary, fieldsOf, type Violations } from '../../src/engine/generate/create-body.ts';
import { sendCreateCases, statusClass, RANDOM_LANE } from './_create-cases.ts';
import { prefetched } from '../support.ts';

/** Generated creates in flight at once (their writes are paced per token like any other). */
const IN_FLIGHT = 4;

/** Extra requests shrinking may spend on top of --runs before it settles for the smallest case found so far. */
const SHRINK_BUDGET = 20;

interface Judged {
  ok: boolean;
  level?: Level;
  problem?: string;
}

/**
 * What the answer to a body with these violations must be: never a server error or no answer, whatever the body
 * (must: the seed types every field, so any JSON body is a request the client can be told about); a value nobody
 * reads as its field's type refused (should: convention). Coercible values and conventions are not judged here.
 */
function judgeCase(v: Violations, ex: Exchange): Judged {
  const cls = statusClass(ex);
  const answer = ex.response ? String(ex.response.status) : `no answer (${ex.transportError})`;
  if (cls === '5xx' || cls === 'other')
    return {
      ok: false,
      level: 'must',
      problem: `${answer} for a create request${v.typeErrors.length ? ` (${v.typeErrors.join(', ')})` : ''}`,
    };
  if (v.typeErrors.length && cls === '2xx')
    return { ok: false, level: 'should', problem: `accepted although ${v.typeErrors.join(', ')}` };
  return { ok: true };
}

/**
 * Random create-VM bodies derived from the document (fast-check, deterministic under --seed): each is classified
 * after generation and after every shrink step, then judged. Only a must failure fails the property (so shrinking
 * chases it); should findings are collected on the side and reported as warnings.
 */
export const createFuzz: Check = {
  id: 'vms.create-fuzz',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  why: {
    must: 'the seed types the fields: a well-typed request never gets a 5xx, a mistyped one never a 5xx either',
    should: "refusing a value that cannot be read as the field's type is convention, not seed",
  },
  title: 'Generated create-VM requests never get a 5xx; values that cannot be read as their type are refused',
  async run(ctx) {
    const { body: base } = ctx.objects.vmCreateBody('fuzz');
    const schema = ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject;
    const fields = fieldsOf(schema, { image: ctx.config.image, subnet_id: ctx.config.subnetId });
    const arbitrary = createBodyArbitrary(fields, base, `${String(base['name'])}-`);
    const sentFor = new Map<string, Exchange>();
    const shouldFindings = new Map<string, Finding>();
    let sent = 0;
    const budget = ctx.config.randomCases + SHRINK_BUDGET;
    const send = prefetched(
      fc.sample(arbitrary, { seed: ctx.config.seed, numRuns: ctx.config.randomCases }),
      IN_FLIGHT,
      (body: Record<string, unknown>) => sendCreateCases(ctx, [{ label: 'generated', body }], RANDOM_LANE)
    );
    const property = fc.asyncProperty(arbitrary, async (body) => {
      if (sent >= budget) return true; // out of budget: keep the smallest failure found so far
      sent++;
      const [c] = await send(body);
      sentFor.set(JSON.stringify(body), c!.ex);
      const j = judgeCase(classify(body, fields), c!.ex);
      if (j.level === 'should' && shouldFindings.size < 3)
        shouldFindings.set(j.problem!, finding('should', `${j.problem} (seed ${ctx.config.seed})`, [c!.ex], { body }));
      return j.ok || j.level !== 'must';
    });
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: ctx.config.randomCases });
    const findings: Finding[] = [...shouldFindings.values()];
    if (details.failed && details.counterexample) {
      const [body] = details.counterexample;
      const ex = sentFor.get(JSON.stringify(body))!;
      const violations = classify(body, fields);
      findings.unshift(
        finding(
          'must',
          `${judgeCase(violations, ex).problem}; counterexample after ${details.numShrinks} shrinks (seed ${ctx.config.seed}, path ${details.counterexamplePath})`,
          [ex],
          {
            counterexample: body,
            violations,
            seed: ctx.config.seed,
            path: details.counterexamplePath,
            requests: sent,
          }
        )
      );
    } else if (details.failed) return fail(`the property phase stopped: ${String(details.errorInstance)}`, []);
    const counts = [...sentFor.keys()].reduce(
      (acc, k) => {
        const v = classify(JSON.parse(k), fields);
        acc[
          v.typeErrors.length
            ? 'typeErrors'
            : v.coercible.length
              ? 'coercible'
              : v.conventions.length
                ? 'conventionOnly'
                : 'wellTyped'
        ]++;
        return acc;
      },
      { typeErrors: 0, coercible: 0, conventionOnly: 0, wellTyped: 0 }
    );
    return judge(
      findings,
      `${details.numRuns} generated requests held (${counts.typeErrors} with a type error, ${counts.coercible} coercible, ${counts.conventionOnly} convention-only, ${counts.wellTyped} valid; seed ${ctx.config.seed})`
    );
  },
};
