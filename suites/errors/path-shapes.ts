import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import {
  labelOf,
  oneAtATime,
  pairwise,
  type Combination,
  type InputClass,
} from '../../src/engine/generate/input-classes.ts';
import { absentId, describeExchange } from '../support.ts';
import { REFUSAL_PROBES } from '../shares.ts';

/** The shapes a path is varied by: a slash at its end, two slashes in a row (before it, or inside), upper case. */
export const PATH_CLASSES: ReadonlyArray<InputClass<string>> = [
  { name: 'trailing-slash', variants: ['end'] },
  { name: 'doubled-slash', variants: ['inside', 'leading'] },
  { name: 'upper-case', variants: ['version-and-collection'] },
];

/** A document path (/v1/<collection>[/<id>]) in the shape a combination asks for, written as it will be sent. */
export function shaped(path: string, combo: Combination<string>): string {
  const segments = path.split('/').slice(1);
  if (combo['upper-case']) segments.splice(0, 2, ...segments.slice(0, 2).map((s) => s.toUpperCase()));
  let out = '/' + segments.join('/');
  if (combo['doubled-slash'] === 'inside') out = out.replace(/^(\/[^/]+)\//, '$1//');
  if (combo['doubled-slash'] === 'leading') out = '/' + out;
  if (combo['trailing-slash']) out += '/';
  return out;
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** What is wrong with an answer to a path of another shape: an error without the error object, an answer not JSON. */
function problemOf(ctx: CheckContext, ex: Exchange): { level: 'must' | 'should'; problem: string } | undefined {
  const r = ex.response!;
  const type = r.headers['content-type'];
  if (r.status === 204 || r.status === 304) return undefined;
  if (r.status >= 300 && r.status < 400)
    return r.headers['location'] ? undefined : { level: 'should', problem: 'a redirect without a Location' };
  if (!type || !JSON_TYPE.test(type) || r.json === undefined)
    return { level: 'must', problem: `not JSON (content type ${JSON.stringify(type ?? null)})` };
  if (r.status < 400) return undefined;
  const broken = ctx.schema.validateComponent('Error', r.json);
  return broken.length ? { level: 'must', problem: `no error object: ${broken.join('; ')}` } : undefined;
}

/**
 * The paths varied: the list, and a task that exists nowhere. Not the run's task: reads of it between the task
 * group's polls would change what they see on a target whose reads change it (a task that regresses on every second read).
 */
const basePaths = (ctx: CheckContext) => ['/v1/vms', `/v1/tasks/${absentId(ctx, 'shaped')}`];

/** Whether an exchange is one of this check's paths of another shape (the plain ones it sends are any check's to review). */
export const isShapedPath = (ex: Exchange): boolean =>
  ex.sentBy === 'errors.path-shapes' && /\/\/|.\/(\?|$)|^\/+V1\//.test(new URL(ex.request.url).pathname);

/**
 * Paths of other shapes (a trailing slash, a doubled slash, the version and collection in upper case), one shape at a
 * time and in certify every pair from a covering array, sent as written with a valid token. Whether such a path is
 * served, redirected or refused is the target's routing; whatever it answers is JSON, and an error carries the
 * error object (never a web framework's HTML page). Judged against the same paths in their plain shape and a task
 * that exists nowhere: where those break too, the breakage is not the shape's (errors.error-object and
 * errors.json-responses judge them).
 */
export const pathShapes: Check = {
  id: 'errors.path-shapes',
  group: 'errors',
  shares: [REFUSAL_PROBES],
  clauses: ['ERROR-OBJECT-EVERY', 'SVC-JSON'],
  level: 'must',
  why: {
    must: 'the seed says every error response carries the error object and responses are JSON: a path of another shape, answered with an error, is an error response like any other (whether it is served or refused is not shown)',
    should: 'a redirect names where it leads (RFC 9110 §15.4: Location)',
  },
  title:
    'Paths with a trailing or doubled slash or in upper case, one shape at a time and in pairs in certify, are answered in JSON, errors with the error object',
  async run(ctx) {
    // After the run's VM is made: a burst of reads beside its task's first polls would slow them.
    await ctx.objects.vmTaskOutcome().catch(() => undefined);
    const certify = ctx.config.profile === 'certify';
    const combos = [...oneAtATime(PATH_CLASSES, certify), ...(certify ? pairwise(PATH_CLASSES, () => true) : [])];
    const paths = basePaths(ctx);
    const plain = [...paths, `/v1/tasks/${absentId(ctx, 'plain')}`];
    const asked = paths.flatMap((p) => combos.map((combo) => ({ combo, path: shaped(p, combo) })));
    const answers = await ctx.callEach(
      [...plain, ...asked.map((a) => a.path)].map((path) => ({ method: 'GET', path }))
    );
    const plainProblems = answers
      .slice(0, plain.length)
      .flatMap((ex) => (ex.response ? [problemOf(ctx, ex)?.problem].filter((p) => p !== undefined) : []));
    if (plainProblems.length)
      return skip(
        `the plain paths break too (${plainProblems.join('; ')}): not the shape's doing, errors.error-object and errors.json-responses judge it`,
        'a target whose plain answers are JSON with the error object'
      );
    const sent = asked.map((a, i) => ({ ...a, ex: answers[plain.length + i]! }));
    const answered = sent.filter((s) => s.ex.response);
    if (answered.length === 0)
      return skip(
        `no path of another shape was answered: ${sent.map((s) => describeExchange(s.ex)).join('; ')}`,
        'a target that answers'
      );
    const findings: Finding[] = [];
    for (const level of ['must', 'should'] as const) {
      const bad = answered.flatMap((s) => {
        const p = problemOf(ctx, s.ex);
        return p?.level === level ? [{ ...s, problem: p.problem }] : [];
      });
      if (bad.length)
        findings.push(
          finding(
            level,
            `${bad.length} of ${answered.length} paths of another shape: ${bad
              .slice(0, 3)
              .map((b) => `${describeExchange(b.ex)} (${labelOf(b.combo)}): ${b.problem}`)
              .join('; ')}`,
            bad.map((b) => b.ex)
          )
        );
    }
    const statuses = answered.map((s) => `${s.ex.request.method} ${s.path} → ${s.ex.response!.status}`);
    return judge(
      findings,
      `${answered.length} paths of another shape (${[...new Set(combos.map(labelOf))].join(', ')}) on the list and a task that exists nowhere, each answered in JSON, errors with the error object: ${statuses.join('; ')}`
    );
  },
};
