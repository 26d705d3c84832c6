import fc from 'fast-check';
import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, undeclared, Unavailable } from '../../src/engine/run/check.ts';
import { admitsPrefix, arbitraryFromSchema, type SchemaLike } from '../../src/engine/generate/arbitrary.ts';
import { describeExchange, documentedRefusal, isSuccess } from '../support.ts';
import { sendCreateCases, RANDOM_LANE } from './_create-cases.ts';

type Body = Record<string, unknown>;

/** The sizes of the run's own VM: what the target is known to accept where the declaration states no range. */
const SIZES = ['vcpus', 'memory_gb', 'system_disk_gb'];

/** Where an error object names a field: details[].field (target, param, …), error.field (target, …), or its message. */
function fieldsNamed(ex: Exchange, fields: readonly string[]): string[] {
  const error = (ex.response?.json as { error?: unknown } | undefined)?.error;
  const text = JSON.stringify(error ?? ex.response?.body ?? '');
  // A field named as a word: "system_disk_gb", body.system_disk_gb, /system_disk_gb; not inside a longer name.
  return fields.filter((f) => new RegExp(`(^|[^A-Za-z0-9_])${f}($|[^A-Za-z0-9_])`).test(text));
}

/** How a refusal of a declared-valid body was judged: the target's rule per image on some fields (not judged), or a failure. */
type Judged =
  | { excused: string; fields: string[] }
  | { failed: string; evidence: Exchange[] }
  | { undecided: string; refusal: Exchange };

/**
 * A 4xx to a body valid by the declared schema, that names fields of it: the target's validation of those fields. The
 * same body with them at the values the run's own VM was accepted with is sent; accepted, the refusal was about their
 * values. Where it also names the image the run was given, it is the target's rule of those fields for that image (a
 * disk minimum per image), which the declared schema does not state: not judged. Else the declaration is not held.
 */
async function judgeRefusal(ctx: CheckContext, body: Body, refused: Exchange, fixture: Body): Promise<Judged> {
  const status = refused.response?.status ?? 0;
  const changed = fieldsNamed(refused, Object.keys(body)).filter(
    (f) => f in fixture && JSON.stringify(body[f]) !== JSON.stringify(fixture[f])
  );
  const refusal = `a body valid by the declared schema was refused: ${describeExchange(refused)}`;
  if (status < 400 || status >= 500 || changed.length === 0) return { failed: refusal, evidence: [refused] };
  const back = { ...body, ...Object.fromEntries(changed.map((f) => [f, fixture[f]])) };
  const [again] = await sendCreateCases(
    ctx,
    [{ label: 'declared-valid, named fields as the run VM', body: back }],
    RANDOM_LANE
  );
  const values = changed.map((f) => `${f}=${JSON.stringify(body[f])}`).join(', ');
  // The retry refused for the quota or the rate limit (another check's creates may have spent them): nothing is proved.
  if (documentedRefusal(again!.ex))
    return {
      undecided: `${values} refused (${describeExchange(refused)}), and the same body with the run VM's values refused for a documented reason, so which rule refused it is not known`,
      refusal: again!.ex,
    };
  if (!isSuccess(again!.ex)) return { failed: refusal, evidence: [refused] };
  const image = ctx.config.image;
  if (image && JSON.stringify(refused.response?.json ?? refused.response?.body ?? '').includes(image))
    return {
      excused: `${values} refused for image ${image} (${describeExchange(refused)}), accepted as the run's VM has them: a rule per image the declared schema does not state`,
      fields: changed,
    };
  return {
    failed: `${refusal}: the target refused ${values}, which the declared schema admits; the same body with ${changed.map((f) => `${f}=${JSON.stringify(fixture[f])}`).join(', ')} was accepted`,
    evidence: [refused, again!.ex],
  };
}

/**
 * Valid is accepted: create bodies generated from the overlay's declared create schema (required fields, ranges,
 * lengths, tags, alternatives), kept small, must be accepted or refused only for a documented reason (quota, rate
 * limit), or, for fields the refusal names, by a rule per image the declared schema cannot hold (judgeRefusal).
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
    // The run's own VM first: the sizes it was accepted with are the floor of a range the declaration does not state.
    await ctx.objects
      .acceptedVm()
      .catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
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
      known: Object.fromEntries(SIZES.map((k) => [k, fixture[k]])),
    });
    const sentFor = new Map<string, Exchange>();
    let accepted = 0;
    const invalid: string[] = [];
    const excused: string[] = [];
    // Fields a refusal showed the target rules per image: later bodies keep them as the run's VM has them.
    const pinned: Body = {};
    let refusal: Exchange | undefined;
    let failure: Extract<Judged, { failed: string }> | undefined;
    const property = fc.asyncProperty(arbitrary, async (drawn) => {
      const body = ctx.objects.withOwnName({ ...(drawn as Body), ...pinned }) as Body;
      // Only a case the declared schema accepts may be held to "valid is accepted".
      const errors = ctx.schema.validateComponent('VmCreateRequest', body, 'merged');
      if (errors.length) return invalid.push(errors[0]!) > 0;
      const [c] = await sendCreateCases(ctx, [{ label: 'declared-valid', body }], RANDOM_LANE);
      sentFor.set(JSON.stringify(drawn), c!.ex);
      if (isSuccess(c!.ex)) return ++accepted > 0;
      if (documentedRefusal(c!.ex)) return (refusal = c!.ex) !== undefined;
      const judged = await judgeRefusal(ctx, body, c!.ex, fixture);
      if ('excused' in judged) {
        for (const f of judged.fields) pinned[f] = fixture[f];
        return excused.push(judged.excused) > 0;
      }
      if ('undecided' in judged) {
        refusal = judged.refusal;
        return excused.push(judged.undecided) > 0;
      }
      failure = judged;
      return false;
    });
    const runs = Math.max(3, Math.ceil(ctx.config.randomCases / 2));
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: runs, endOnFailure: true });
    if (details.failed && failure)
      return fail(`${failure.failed} (seed ${ctx.config.seed})`, failure.evidence, {
        body: details.counterexample?.[0],
        seed: ctx.config.seed,
      });
    // The create budget spent, or --read-only: what was accepted so far stands, and the rest is said.
    const stopped = details.failed && details.errorInstance instanceof Unavailable ? details.errorInstance : undefined;
    if (details.failed && !stopped) return fail(`the generation stopped: ${String(details.errorInstance)}`, []);
    const notJudged = `${excused.length ? `; not judged: ${[...new Set(excused)].join('; ')}` : ''}${stopped ? `; stopped: ${stopped.message}` : ''}`;
    // Nothing accepted proves nothing: a check that sent no body, or none it could judge, says why.
    if (accepted === 0)
      return skip(
        sentFor.size === 0
          ? `none of the ${invalid.length} bodies drawn from the declared schema was valid by it (e.g. ${invalid[0] ?? 'none drawn'}), so nothing was sent${notJudged}`
          : `no body valid by the declared schema was accepted: ${refusal ? `refused for a documented reason (${describeExchange(refusal)})` : 'none refused could be judged'}${notJudged}`,
        stopped?.howToVerify ??
          (refusal
            ? 'an organization with room under its quota and rate budget left'
            : 'a declared VmCreateRequest schema the suite can draw valid bodies from (types, ranges, alternatives it generates)')
      );
    return pass(
      `${accepted} generated bodies valid by the declared schema were accepted${refusal ? ` (one refused for a documented reason: ${describeExchange(refusal)})` : ''}${notJudged}`
    );
  },
};
