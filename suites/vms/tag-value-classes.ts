import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { VM_ROOM } from '../shares.ts';
import { finding, judge, skip, Unavailable } from '../../src/engine/run/check.ts';
import {
  classesOf,
  labelOf,
  oneAtATime,
  pairwise,
  uncoveredPairs,
  type Combination,
  type InputClass,
} from '../../src/engine/generate/input-classes.ts';
import { RUN_TAG_KEY, vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess, nearKnownQuota, refusedForRoom, GENERATED_LANE } from '../support.ts';
import { settled, tagSetting, withTags, type TagSetting } from './_tags.ts';
import { tagsOf } from './tag-filter.ts';

/**
 * The classes a tag value is varied by, from a plain value (the run id and a label): its case, punctuation (a dot, an
 * underscore, a space), letters beyond ASCII, and length. Without the length class a value stays within 32 characters.
 */
export const TAG_CLASSES: ReadonlyArray<InputClass<string>> = [
  { name: 'mixed-case', variants: ['Mixed', 'UPPER'] },
  { name: 'punctuation', variants: ['a.b_c', 'a b'] },
  { name: 'beyond-ascii', variants: ['zürich', '東京'] },
  { name: 'past-32-characters', variants: ['40', '64'] },
];

/** The tag of a combination: a key of its own (cc-<label>) and a value made of the plain value and each class's fragment. */
export function tagOf(runId: string, label: string, combo: Combination<string>): [string, string] {
  const parts = TAG_CLASSES.filter((c) => c.name !== 'past-32-characters' && combo[c.name] !== undefined).map(
    (c) => combo[c.name]!
  );
  const stem = [runId, label, ...parts].join('-');
  const length = combo['past-32-characters'];
  const value = length === undefined ? stem : [...`${stem}-${'x'.repeat(64)}`].slice(0, Number(length)).join('');
  return [`cc-${label}`, value];
}

/** One tag set on a VM: the classes its value varies, the tag, the VM that carries it and its create's answer. */
interface Set_ {
  combo: Combination<string>;
  tag: [string, string];
  vm: string;
  ex?: Exchange;
  notSent?: string;
}

const accepted = (s: Set_) => s.ex !== undefined && isSuccess(s.ex);

/** One create carrying the run's tag and the given tags; its VM in the ledger when accepted. */
async function createTagged(
  ctx: CheckContext,
  setting: TagSetting,
  suffix: string,
  tags: ReadonlyArray<[string, string]>
): Promise<{ vm: string; ex?: Exchange; notSent?: string }> {
  const { body } = ctx.objects.vmCreateBody(suffix);
  withTags(ctx, body, setting, Object.fromEntries(tags));
  const vm = String(body['name']);
  try {
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body, lane: GENERATED_LANE });
    if (isSuccess(ex))
      ctx.ledger.record({ kind: 'vm', name: vm, createdBy: ctx.checkId, note: `tag values of classes` }, ex);
    return { vm, ex };
  } catch (err) {
    if (err instanceof Unavailable) return { vm, notSent: err.message };
    throw err;
  }
}

/**
 * The tags of the combinations, all on one VM; a refused VM is learnt from by setting each tag on a VM of its own, so
 * one class the target refuses never hides the others.
 */
async function setTags(
  ctx: CheckContext,
  setting: TagSetting,
  combos: ReadonlyArray<Combination<string>>,
  first: number
): Promise<Set_[]> {
  const tags = combos.map((c, i) => ({ combo: c, tag: tagOf(ctx.config.runId, `t${first + i}`, c) }));
  if (tags.length === 0) return [];
  const all = await createTagged(
    ctx,
    setting,
    `tv${first}`,
    tags.map((t) => t.tag)
  );
  if (all.notSent || (all.ex && (isSuccess(all.ex) || tags.length === 1))) return tags.map((t) => ({ ...t, ...all }));
  return Promise.all(
    tags.map(async (t, i) => ({ ...t, ...(await createTagged(ctx, setting, `tv${first + i}-alone`, [t.tag])) }))
  );
}

/**
 * Certify's pairs: the covering array over the variants accepted alone, and the pairs with a class refused alone (sent
 * so the domain says they were tried); then each pair a refused combination hid, on its own.
 */
async function setPairs(ctx: CheckContext, setting: TagSetting, alone: readonly Set_[]): Promise<Set_[]> {
  const ok = alone.filter(accepted);
  const rows = pairwise(TAG_CLASSES, (cls, v) => ok.some((s) => s.combo[cls] === v));
  const never = uncoveredPairs(TAG_CLASSES, new Set(TAG_CLASSES.map((c) => c.name)), rows);
  const pairs = await setTags(ctx, setting, [...rows, ...never], alone.length + 1);
  const acceptedAlone = new Set(ok.flatMap((s) => classesOf(s.combo)));
  const hidden = uncoveredPairs(
    TAG_CLASSES,
    acceptedAlone,
    pairs.filter(accepted).map((s) => s.combo)
  ).filter((p) => !pairs.some((s) => labelOf(s.combo) === labelOf(p)));
  return [...pairs, ...(await setTags(ctx, setting, hidden, alone.length + pairs.length + 1))];
}

/** What the VM's record shows under a tag's key, read from the run's own tag filter (undefined: no tags shown). */
async function shownTags(
  ctx: CheckContext,
  setting: TagSetting,
  vm: string
): Promise<Array<[string, string]> | undefined> {
  const walk = await ctx.objects.walk(100, { tag: `${RUN_TAG_KEY}:${ctx.config.runId}` });
  const record = walk.items.find((v) => v['name'] === vm);
  return record && record[setting.field] !== undefined ? tagsOf({ tags: record[setting.field] }) : undefined;
}

/** A judgement of one tag: a finding, judged and found, or not judged (and why). */
type Judgement = { finding: Finding } | { found: true } | { notJudged: string };

/**
 * Judges one accepted tag through the filter: it must return the VM. A refusal of the filter is a finding; so is an
 * answer without the VM where the VM's record shows the tag as sent. A record that shows it otherwise, or no tags, leaves
 * it not judged: a tag not kept as sent is vms.values-read-back's to judge, and the filter is not due to find it.
 */
async function judgeTag(ctx: CheckContext, setting: TagSetting, s: Set_, ex: Exchange): Promise<Judgement> {
  const [key, value] = s.tag;
  const what = `tag=${key}:${value} (${labelOf(s.combo)})`;
  if (!isSuccess(ex))
    return {
      finding: finding(
        'must',
        `${what} was refused, though ${s.vm} was created with that tag: ${describeExchange(ex)}`,
        [s.ex!, ex]
      ),
    };
  if (vmsOf(ex).some((v) => v['name'] === s.vm)) return { found: true };
  const shown = await shownTags(ctx, setting, s.vm);
  if (!shown) return { notJudged: `${what}: ${s.vm} not returned, and its record shows no tags to tell why` };
  if (!shown.some(([k, v]) => k === key && v === value))
    return { notJudged: `${what}: ${s.vm} not returned, and its record does not show the tag as sent` };
  return {
    finding: finding(
      'must',
      `${what} left out ${s.vm}, which the run created with that tag and whose record shows it (${vmsOf(ex).length} VMs returned)`,
      [s.ex!, ex]
    ),
  };
}

const describe = (s: Set_) =>
  `${labelOf(s.combo)}: ${s.notSent ? `not sent (${s.notSent})` : accepted(s) ? 'set' : refusedForRoom(s.ex) ? `no room (${s.ex!.response!.status}), not tried` : `refused ${s.ex!.response?.status ?? s.ex!.transportError}`}`;

/**
 * Tag values of each class, one at a time (then in pairs from a covering array in certify), set on VMs the run tags
 * as it tags its own, each looked up through the filter: a value the target accepted as a tag is found by the filter
 * for it (letters beyond ASCII included). A value refused is the target's rule, learnt, and the others still tried.
 */
export const tagValueClasses: Check = {
  id: 'vms.tag-value-classes',
  group: 'vms',
  shares: [VM_ROOM],
  clauses: ['TAG-FILTER'],
  level: 'must',
  why: {
    must: 'the seed says the tag filter key:value returns the VMs with that tag: a VM the target accepted with a tag is returned by the filter for it, whatever the classes of its value (which values it accepts is not shown: a refusal is never a finding)',
  },
  title:
    'A tag value of each class (case, punctuation, letters beyond ASCII, length), one at a time and in pairs in certify, is found by the filter when the target accepted it',
  async run(ctx) {
    await ctx.objects.acceptedVm();
    const setting = await tagSetting(ctx);
    if (!setting)
      return skip(
        'how tags are set is not known: the run could not tag its own VM (a map under "tags" was not found by the filter)',
        '--profile certify (finds how tags are set), or declare x-tags-field in --overlay'
      );
    const certify = ctx.config.profile === 'certify';
    const near = await nearKnownQuota(ctx, 1);
    if (near) return skip(near, 'an organization with more room under its VM quota than it has now');
    const alone = await setTags(ctx, setting, oneAtATime(TAG_CLASSES, certify), 1);
    const all = [...alone, ...(certify ? await setPairs(ctx, setting, alone) : [])];
    const set = all.filter(accepted);
    if (set.length === 0 && all.some((s) => refusedForRoom(s.ex)))
      return skip(
        `the organization had no room for the tagged VMs' creates (quota or rate): ${all.map(describe).join('; ')}`,
        'an organization with room for a few more VMs'
      );
    if (set.length === 0)
      return skip(
        `no tag value of another class was set: ${all.map(describe).join('; ')}`,
        'a target that accepts tag values of another case, punctuation, script or length (a refusal is its rule)'
      );
    const vms = [...new Map(set.map((s) => [s.vm, s.ex!])).values()];
    await Promise.all(vms.map((ex) => settled(ctx, ex, GENERATED_LANE)));
    const answers = await ctx.callEach(
      set.map((s) => ({ method: 'GET', path: '/v1/vms', query: { tag: `${s.tag[0]}:${s.tag[1]}`, per_page: 100 } }))
    );
    const judged = await Promise.all(set.map((s, i) => judgeTag(ctx, setting, s, answers[i]!)));
    const findings = judged.flatMap((j) => ('finding' in j ? [j.finding] : []));
    const found = judged.filter((j) => 'found' in j).length;
    const notJudged = judged.flatMap((j) => ('notJudged' in j ? [j.notJudged] : []));
    if (findings.length === 0 && found === 0)
      return skip(
        `no tag of another class could be judged: ${notJudged.join('; ')}`,
        'VM records that show their tags'
      );
    return judge(
      findings,
      `${found} of ${set.length} tags of other classes, set under ${setting.field} on ${vms.length} VM${vms.length > 1 ? 's' : ''}, found by their filters${notJudged.length ? ` (not judged: ${notJudged.join('; ')})` : ''}; ${all.map(describe).join('; ')}`,
      [],
      { tags: all.map((s) => ({ classes: labelOf(s.combo), tag: `${s.tag[0]}:${s.tag[1]}`, vm: s.vm })) }
    );
  },
};
