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
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess, nearKnownQuota, refusedForRoom, GENERATED_LANE } from '../support.ts';
import { settled, tagSetting, withTags } from './_tags.ts';

/**
 * The classes a VM name is varied by, from the plain name the run's VM was accepted with (cc-<run id>-<label>): its
 * case, punctuation, letters beyond ASCII, and length. Without the length class a name stays within 32 characters.
 */
export const NAME_CLASSES: ReadonlyArray<InputClass<string>> = [
  { name: 'mixed-case', variants: ['Mixed', 'UPPER'] },
  { name: 'punctuation', variants: ['p.q', 'p_q'] },
  { name: 'beyond-ascii', variants: ['zürich', '東京'] },
  { name: 'past-32-characters', variants: ['40', '63'] },
];

/** The name of a combination: the plain name, each class's fragment after it, cut or padded to the length class's size. */
export function nameOf(plain: string, combo: Combination<string>): string {
  const parts = NAME_CLASSES.filter((c) => c.name !== 'past-32-characters' && combo[c.name] !== undefined).map(
    (c) => combo[c.name]!
  );
  const stem = [plain, ...parts].join('-');
  const length = combo['past-32-characters'];
  return length === undefined ? stem : [...`${stem}-${'x'.repeat(64)}`].slice(0, Number(length)).join('');
}

/** How a listed name differs from the one sent (its case, its length, its letters beyond ASCII, or otherwise). */
export function howShown(sent: string, shown: string): string {
  if (shown.toLowerCase() === sent.toLowerCase()) return 'its case changed';
  if (shown.length < sent.length && sent.toLowerCase().startsWith(shown.toLowerCase()))
    return `cut to ${[...shown].length} of its ${[...sent].length} characters`;
  if (/[^\x00-\x7f]/.test(sent)) return 'its letters beyond ASCII changed';
  return 'changed';
}

/**
 * The element that shows a name sent: the one listed as sent (canonically equivalent: NFC and NFD spell the same
 * letters), else one that starts with the name's own plain part (unique to it) and shows it otherwise.
 */
export function listedAs(
  sent: string,
  plain: string,
  items: ReadonlyArray<Record<string, unknown>>
): { as: 'sent' } | { as: 'otherwise'; shown: string } | undefined {
  const names = items.map((v) => v['name']).filter((n): n is string => typeof n === 'string');
  if (names.some((n) => n.normalize('NFC') === sent.normalize('NFC'))) return { as: 'sent' };
  const other = names.find((n) => n.toLowerCase().startsWith(`${plain.toLowerCase()}-`) || n === plain);
  return other === undefined ? undefined : { as: 'otherwise', shown: other };
}

/** One name sent: the classes it varies, the name, and the answer (or why it was not sent). */
interface Tried {
  combo: Combination<string>;
  plain: string;
  name: string;
  ex?: Exchange;
  notSent?: string;
}

const accepted = (t: Tried) => t.ex !== undefined && isSuccess(t.ex);

/** Sends one create per name, side by side, on the generated lane; an accepted one goes into the ledger. */
async function sendNames(ctx: CheckContext, combos: ReadonlyArray<Combination<string>>, at: number): Promise<Tried[]> {
  const setting = await tagSetting(ctx);
  return Promise.all(
    combos.map(async (combo, i): Promise<Tried> => {
      const plain = ctx.objects.vmName(`n${at + i}`);
      const name = nameOf(plain, combo);
      const { body } = ctx.objects.vmCreateBody(`n${at + i}`);
      body['name'] = name;
      // The run's tag where it sets tags, so a list too long to walk whole finds the VM under it.
      if (setting && !setting.declared) withTags(ctx, body, setting);
      try {
        const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body, lane: GENERATED_LANE });
        if (isSuccess(ex))
          ctx.ledger.record({ kind: 'vm', name, createdBy: ctx.checkId, note: `name classes ${labelOf(combo)}` }, ex);
        return { combo, plain, name, ex };
      } catch (err) {
        if (err instanceof Unavailable) return { combo, plain, name, notSent: err.message };
        throw err;
      }
    })
  );
}

/**
 * Certify's pairs: a covering array over the variants accepted alone; then each pair a refused combination hid, and
 * each pair with a class refused alone (sent so the domain says it was tried; a refusal is the target's rule).
 */
async function sendPairs(ctx: CheckContext, alone: readonly Tried[]): Promise<Tried[]> {
  const ok = alone.filter(accepted);
  const rows = pairwise(NAME_CLASSES, (cls, v) => ok.some((t) => t.combo[cls] === v));
  const pairs = await sendNames(ctx, rows, alone.length + 1);
  const acceptedAlone = new Set(ok.flatMap((t) => classesOf(t.combo)));
  const hidden = uncoveredPairs(
    NAME_CLASSES,
    acceptedAlone,
    pairs.filter(accepted).map((t) => t.combo)
  ).filter((p) => !pairs.some((t) => labelOf(t.combo) === labelOf(p)));
  const sent = [...pairs.filter((t) => t.ex).map((t) => t.combo), ...hidden];
  const never = uncoveredPairs(NAME_CLASSES, new Set(NAME_CLASSES.map((c) => c.name)), sent);
  return [...pairs, ...(await sendNames(ctx, [...hidden, ...never], alone.length + pairs.length + 1))];
}

const describe = (t: Tried) =>
  `${labelOf(t.combo)} ("${t.name}"): ${t.notSent ? `not sent (${t.notSent})` : accepted(t) ? 'accepted' : refusedForRoom(t.ex) ? `no room (${t.ex!.response!.status}), not tried` : `refused ${t.ex!.response?.status ?? t.ex!.transportError}`}`;

/**
 * VM names of each class, one at a time from the plain name the target accepted (its case, punctuation, letters
 * beyond ASCII, length), then in certify every pair from a covering array: a class the target refuses is its own name
 * rule, learnt and never failed; a name it accepts is the VM's name, listed as sent.
 */
export const nameClasses: Check = {
  id: 'vms.name-classes',
  group: 'vms',
  shares: [VM_ROOM],
  clauses: ['VM-CREATE-FIELDS', 'VM-CREATE'],
  level: 'must',
  why: {
    must: "the seed shows name as the create's string and as each list element's name: a name the target accepted is the VM's name, so the list shows it as sent (which names it accepts is not shown: a refusal is never a finding)",
  },
  title:
    'A VM name of each class (case, punctuation, letters beyond ASCII, length), one at a time and in pairs in certify, is listed as sent when accepted',
  async run(ctx) {
    await ctx.objects.acceptedVm();
    // Once the run's VM is made (as the tag setting needs it): a burst of creates beside its task's polls would slow them.
    await ctx.objects.vmTaskOutcome().catch(() => undefined);
    const certify = ctx.config.profile === 'certify';
    const near = await nearKnownQuota(ctx, oneAtATime(NAME_CLASSES, certify).length);
    if (near) return skip(near, 'an organization with more room under its VM quota than it has now');
    const alone = await sendNames(ctx, oneAtATime(NAME_CLASSES, certify), 1);
    const tried = [...alone, ...(certify ? await sendPairs(ctx, alone) : [])];
    const made = tried.filter(accepted);
    const broken = tried.filter((t) => t.ex && (!t.ex.response || t.ex.response.status >= 500));
    const findings: Finding[] = broken.map((t) =>
      finding('must', `a well-typed create named "${t.name}" answered ${describeExchange(t.ex!)}`, [t.ex!])
    );
    if (made.length === 0 && findings.length === 0 && tried.some((t) => refusedForRoom(t.ex)))
      return skip(
        `the organization had no room for the names' creates (quota or rate): ${tried.map(describe).join('; ')}`,
        `an organization with room for ${tried.length} more VMs`
      );
    if (made.length === 0 && findings.length === 0)
      return skip(
        `no name of another class was accepted: ${tried.map(describe).join('; ')}`,
        'a target that accepts names of another case, punctuation, script or length (a refusal is its name rule)'
      );
    await Promise.all(made.map((t) => settled(ctx, t.ex!, GENERATED_LANE)));
    const { walk } = await ctx.objects.findInList(made.map((t) => t.name));
    const asSent: string[] = [];
    const notListed: string[] = [];
    for (const t of made) {
      const seen = listedAs(t.name, t.plain, walk.items);
      if (!seen) notListed.push(t.name);
      else if (seen.as === 'sent') asSent.push(t.name);
      else
        findings.push(
          finding(
            'must',
            `name: the create of "${t.name}" (${labelOf(t.combo)}) was accepted, and the list shows it as "${seen.shown}" (${howShown(t.name, seen.shown)})`,
            [t.ex!, ...walk.pages.filter((p) => vmsOf(p).some((v) => v['name'] === seen.shown))]
          )
        );
    }
    const unseen = notListed.length
      ? ` (not found among the ${walk.items.length} VMs read${walk.scope ? `, ${walk.scope}` : ''}: ${notListed.join(', ')}; vms.created-listed judges listing)`
      : '';
    if (findings.length === 0 && asSent.length === 0)
      return skip(
        `no accepted name could be read back${unseen}`,
        'a list that shows the VMs the run created (a smaller organization, or --profile certify, which walks it whole)'
      );
    return judge(
      findings,
      `${asSent.length} of ${made.length} accepted names listed as sent${unseen}; ${tried.map(describe).join('; ')}`,
      [],
      { tried: tried.map((t) => ({ classes: labelOf(t.combo), name: t.name, status: t.ex?.response?.status })) }
    );
  },
};
