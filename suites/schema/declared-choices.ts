import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, undeclared } from '../../src/engine/run/check.ts';
import { observedCases } from '../../src/engine/outcome/observations.ts';

/**
 * The target is held to what its overlay declares for choices the seed leaves open: per_page above the maximum,
 * and the status and code of each error case the run met. An emitted overlay fed back turns drift into a failure.
 */
export const declaredChoices: Check = {
  id: 'schema.declared-choices',
  group: 'schema',
  clauses: ['U-PER-PAGE-OVER-MAX', 'U-ERROR-STATUS', 'U-ERROR-CODES'],
  level: 'declared',
  why: { declared: "the choices are the overlay's, not the seed's" },
  title: "Observed behaviour matches the overlay's declared choices",
  reviewsLog: true,
  async run(ctx) {
    if (!ctx.spec.overlayPath)
      return undeclared('no --overlay given: the target declared no choices', '--overlay FILE');
    const d = ctx.declarations;
    const o = ctx.observations;
    const compared: string[] = [];
    const drift: string[] = [];
    if (d.perPageOverMax && o.perPageOverMax !== undefined) {
      compared.push('per_page above 100');
      if (o.perPageOverMax !== d.perPageOverMax)
        drift.push(`per_page above 100: declared ${d.perPageOverMax}, observed ${o.perPageOverMax}`);
    }
    const observed = observedCases(o);
    for (const [name, declared] of Object.entries(d.errorCases)) {
      const seen = observed[name];
      if (!seen?.length) continue;
      compared.push(name);
      // A case may declare several status/code pairs; every pair observed must be one of them.
      for (const pair of seen) {
        if (declared.some((p) => p.status === pair.status && (p.code === undefined || p.code === pair.code))) continue;
        drift.push(
          `${name}: declared ${declared.map((p) => `${p.status} ${p.code ?? ''}`.trim()).join(' or ')}, observed ${pair.status} ${pair.code ?? '(no code)'}`
        );
      }
    }
    if (compared.length === 0)
      return undeclared(
        'the overlay declares none of the choices this run observed',
        'declare x-per-page-over-max or x-error-cases in --overlay'
      );
    if (drift.length) return fail(`the target departs from its overlay: ${drift.join('; ')}`, [], { drift });
    return pass(`${compared.length} declared choices hold (${compared.join(', ')})`);
  },
};
