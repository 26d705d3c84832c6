import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Check } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import { pass, fail } from '../../src/engine/check.ts';
import { classify, createBodyArbitrary, fieldsOf, type Violations } from '../../src/engine/generate/create-body.ts';
import { sendCreateCases, statusClass, RANDOM_LANE } from './create-cases.ts';

/** Extra requests shrinking may spend on top of --runs before it settles for the smallest case found so far. */
const SHRINK_BUDGET = 20;

interface Judged {
  ok: boolean;
  problem?: string;
}

/** What the seed demands of the answer to a body with these violations (must level only). */
export function judge(v: Violations, ex: Exchange): Judged {
  const cls = statusClass(ex);
  const answer = ex.response ? String(ex.response.status) : `no answer (${ex.transportError})`;
  if (v.must.length) {
    if (cls === '4xx') return { ok: true };
    return { ok: false, problem: cls === '2xx' ? `accepted although ${v.must.join(', ')}` : `${answer} although the request is the client's error (${v.must.join(', ')})` };
  }
  // Well-typed: limits are not shown, so a 4xx is allowed; a server error is not. Convention-only cases are vms.create-conventions'.
  if (v.should.length === 0 && (cls === '5xx' || cls === 'other')) return { ok: false, problem: `${answer} for a well-typed request` };
  return { ok: true };
}

/**
 * Random create-VM bodies derived from the document (fast-check, deterministic under --seed): each is classified
 * after generation and after every shrink step, then held to what the seed demands.
 */
export const createFuzz: Check = {
  id: 'vms.create-fuzz',
  group: 'vms',
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  title: 'Generated create-VM requests: type errors get a 4xx, well-typed requests never a 5xx',
  async run(ctx) {
    const { body: base } = ctx.fixtures.vmCreateBody('fuzz');
    const schema = ctx.spec.base.components?.schemas?.['VmCreateRequest'] as OpenAPIV3_1.SchemaObject;
    const fields = fieldsOf(schema, { image: ctx.config.image, subnet_id: ctx.config.subnetId });
    const arbitrary = createBodyArbitrary(fields, base, `${String(base['name'])}-`);
    const sentFor = new Map<string, Exchange>();
    let sent = 0;
    const budget = ctx.config.runs + SHRINK_BUDGET;
    const property = fc.asyncProperty(arbitrary, async (body) => {
      if (sent >= budget) return true; // out of budget: keep the smallest failure found so far
      sent++;
      const [c] = await sendCreateCases(ctx, [{ label: 'generated', body }], RANDOM_LANE);
      sentFor.set(JSON.stringify(body), c!.ex);
      return judge(classify(body, fields), c!.ex).ok;
    });
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: ctx.config.runs });
    if (details.failed && details.counterexample) {
      const [body] = details.counterexample;
      const ex = sentFor.get(JSON.stringify(body))!;
      const violations = classify(body, fields);
      return fail(`${judge(violations, ex).problem}; counterexample after ${details.numShrinks} shrinks (seed ${ctx.config.seed}, path ${details.counterexamplePath})`, [ex], {
        counterexample: body,
        violations,
        seed: ctx.config.seed,
        path: details.counterexamplePath,
        requests: sent,
      });
    }
    if (details.failed) return fail(`the property phase stopped: ${String(details.errorInstance)}`, []);
    const counts = [...sentFor.entries()].reduce(
      (acc, [k]) => {
        const v = classify(JSON.parse(k), fields);
        acc[v.must.length ? 'typeErrors' : v.should.length ? 'conventionOnly' : 'wellTyped']++;
        return acc;
      },
      { typeErrors: 0, conventionOnly: 0, wellTyped: 0 },
    );
    return pass(`${details.numRuns} generated requests held (${counts.typeErrors} with a type error, ${counts.conventionOnly} convention-only, ${counts.wellTyped} valid; seed ${ctx.config.seed})`);
  },
};
