import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import {
  labelOf,
  oneAtATime,
  pairwise,
  type Combination,
  type InputClass,
} from '../../src/engine/generate/input-classes.ts';
import { describeExchange, isSuccess, wasAccepted } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';
import { tamperedVariants } from './tampered-token.ts';

/** The ways the Authorization header is spelt besides "Bearer <token>": the scheme's case, and the spaces after it. */
export const SCHEME_CLASSES: ReadonlyArray<InputClass<string>> = [
  { name: 'scheme-case', variants: ['bearer', 'BEARER'] },
  { name: 'two-spaces', variants: ['  '] },
];

/** The header a combination writes for a token. */
export const spelt =
  (combo: Combination<string>) =>
  (token: string): string =>
    `${combo['scheme-case'] ?? 'Bearer'}${combo['two-spaces'] ?? ' '}${token}`;

/**
 * The Authorization header spelt otherwise than "Bearer <token>": the scheme in lower and upper case, two spaces before
 * the token, one at a time and in certify every pair from a covering array, with the run's own token. The scheme is
 * case-insensitive and one or more spaces may follow it (RFC 9110 §11.1, §11.4), so refusing a spelling is convention
 * broken, a warning. A spelling the target accepts must authenticate as "Bearer" does: the same token altered is refused.
 */
export const schemeSpelling: Check = {
  id: 'auth.scheme-spelling',
  group: 'auth',
  shares: [REFUSAL_PROBES],
  clauses: ['AUTH-BEARER-REQUIRED'],
  level: 'must',
  why: {
    must: 'the seed requires a bearer token issued by the service on every request: a spelling of the header the target accepts is held to the token it carries, so an altered token is refused',
    should:
      'the seed writes "Bearer" and shows no parsing rule: the scheme is case-insensitive and may be followed by more than one space (RFC 9110 §11.1, §11.4), so refusing another spelling is convention broken; the target may',
  },
  title:
    'The Authorization header spelt "bearer", "BEARER" or with two spaces is taken as "Bearer" is, and an altered token under it is refused',
  async run(ctx) {
    // After the run's VM is made: a burst of reads beside its task's first polls would slow them.
    await ctx.objects.vmTaskOutcome().catch(() => undefined);
    const certify = ctx.config.profile === 'certify';
    const combos = [...oneAtATime(SCHEME_CLASSES, true), ...(certify ? pairwise(SCHEME_CLASSES, () => true) : [])];
    // The list: not the run's task, whose reads the task group's polls judge (a task may change as it is read).
    const paths = ['/v1/vms'];
    const note = 'the list';
    // Each path as the seed writes the header too: a spelling is judged only against what "Bearer" gets there.
    const asked = paths.flatMap((path) => [{}, ...combos].map((combo: Combination<string>) => ({ combo, path })));
    const answers = await ctx.callEach(
      asked.map((a): CallOptions => ({ method: 'GET', path: a.path, authorizationAs: spelt(a.combo) }))
    );
    const sent = asked.map((a, i) => ({ ...a, ex: answers[i]! }));
    const plain = (path: string) => sent.find((s) => s.path === path && labelOf(s.combo) === '')!;
    const spellings = sent.filter((s) => labelOf(s.combo) !== '' && isSuccess(plain(s.path).ex));
    if (spellings.length === 0)
      return skip(
        `"Bearer" itself was not served with the run's token: ${paths.map((p) => describeExchange(plain(p).ex)).join('; ')}`,
        "a target that serves the list with the run's token"
      );
    const refused = spellings.filter((s) => !isSuccess(s.ex));
    const findings: Finding[] = [];
    if (refused.length)
      findings.push(
        finding(
          'should',
          `${refused.length} of ${spellings.length} reads with a valid token, served under "Bearer", were not served under another spelling of the header: ${refused
            .slice(0, 3)
            .map((s) => `${labelOf(s.combo)} ${JSON.stringify(spelt(s.combo)('<token>'))}: ${describeExchange(s.ex)}`)
            .join('; ')}`,
          refused.map((s) => s.ex)
        )
      );
    // Each spelling taken, with the token's signature altered (a payload altered may no longer decode, and tell
    // nothing): refused under "Bearer", it must be refused under the spelling too.
    const altered = tamperedVariants(await ctx.tokens.fresh('primary', ctx.checkId))[0]!.value;
    ctx.registerSecret(altered, 'altered token');
    const taken = spellings.filter((s) => isSuccess(s.ex));
    const tried = [...paths.map((path) => ({ combo: {}, path })), ...taken];
    const tampered = await ctx.callEach(
      tried.map((s): CallOptions => ({ method: 'GET', path: s.path, bearer: altered, authorizationAs: spelt(s.combo) }))
    );
    const withAltered = tried.map((s, i) => ({ ...s, ex: tampered[i]! }));
    const plainRefuses = (path: string) =>
      !wasAccepted(withAltered.find((s) => s.path === path && labelOf(s.combo) === '')!.ex);
    const letThrough = withAltered.filter((s) => labelOf(s.combo) !== '' && plainRefuses(s.path) && wasAccepted(s.ex));
    if (letThrough.length)
      findings.push(
        finding(
          'must',
          `an altered token, refused under "Bearer", was accepted under another spelling of the header: ${letThrough
            .map(
              (s) =>
                `${labelOf(s.combo)} ${JSON.stringify(spelt(s.combo)('<altered token>'))}: ${describeExchange(s.ex)}`
            )
            .join('; ')}`,
          letThrough.map((s) => s.ex)
        )
      );
    const unjudged = paths.filter((p) => !isSuccess(plain(p).ex) || !plainRefuses(p));
    return judge(
      findings,
      `${combos.map((c) => JSON.stringify(spelt(c)('<token>'))).join(', ')} on ${note}: each served with the token and refused with it altered, as "Bearer" is (${sent.length + tampered.length} reads)${unjudged.length ? `; not judged on ${unjudged.join(', ')}: "Bearer" itself was not served with the token or not refused with it altered (auth.tampered-token judges that)` : ''}`
    );
  },
};
