import { taskTimeoutRealMs } from '../../src/engine/config/config.ts';
import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip, undeclared, Unavailable } from '../../src/engine/run/check.ts';
import { RUN_TAG_KEY, vmsOf } from '../../src/engine/target/run-objects.ts';
import { describeExchange, isSuccess } from '../support.ts';
import { tagFieldName, tagsOf } from './tag-filter.ts';

type Vm = Record<string, unknown>;

/** The value with the case of every letter turned (Prod → pROD); the same string where it has no letter. */
function swapCase(v: string): string {
  return [...v].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

const idOf = (vm: Vm) => JSON.stringify(vm['id']);

/**
 * The tag filter's semantics as the overlay declares them, judged against the whole list's own
 * records: a value with its case turned matches what the declared case rule says, and the parameter given twice
 * returns what the declared rule for repeated filters says (all of them, any, the first, or a refusal).
 */
export const tagFilterSemantics: Check = {
  id: 'vms.tag-filter-semantics',
  group: 'vms',
  clauses: ['TAG-FILTER'],
  level: 'declared',
  why: {
    declared:
      "how a value's case and a repeated filter are matched is not shown; the overlay declares it (x-tag-filter)",
  },
  title: 'The tag filter matches case and repeated filters as the overlay declares',
  async run(ctx) {
    const rule = ctx.declarations.tagFilter;
    if (!rule)
      return undeclared(
        'the overlay declares no tag filter semantics (x-tag-filter)',
        "x-tag-filter on the VM list's tag parameter in --overlay"
      );
    const findings: Finding[] = [];
    const shown: string[] = [];
    const notJudged: string[] = [];
    // Where the key ends needs no record: the run's own VM carries the colon.
    if (rule.keyEnd) {
      const k = await judgeKeyEnd(ctx, rule.keyEnd).catch((err: unknown): KeyEndReading => {
        if (err instanceof Unavailable) return { notJudged: `where the key ends (${err.message})` };
        throw err;
      });
      if ('finding' in k) findings.push(k.finding);
      else if ('shown' in k) shown.push(k.shown);
      else notJudged.push(k.notJudged);
    }
    const recorded = await judgeOnRecords(ctx, rule);
    if ('skipped' in recorded) notJudged.push(recorded.skipped);
    else {
      findings.push(...recorded.findings);
      shown.push(...recorded.shown);
    }
    if (findings.length === 0 && shown.length === 0)
      return skip(
        `nothing could be judged: ${notJudged.join('; ')}`,
        'VM records with tags of two keys, or x-tags-field for the key-end declaration'
      );
    return judge(findings, shown.join('; ') + (notJudged.length ? ` (not judged: ${notJudged.join('; ')})` : ''));
  },
};

type Rule = NonNullable<CheckContext['declarations']['tagFilter']>;

/** The case and repeated-filter rules, judged against the whole list's own records. */
async function judgeOnRecords(
  ctx: CheckContext,
  rule: Rule
): Promise<{ findings: Finding[]; shown: string[] } | { skipped: string }> {
  if (!rule.case && !rule.repeated) return { findings: [], shown: [] };
  const scale = await ctx.objects.listScale();
  if (!scale.whole)
    return {
      skipped: `the list holds ${scale.size} VMs, too many to judge a filter against the whole list (--profile certify, or an organization with fewer VMs)`,
    };
  const all = await ctx.objects.walk(100);
  const field = await tagFieldName(ctx);
  if (!all.complete) return { skipped: `the list could not be walked whole (${all.stoppedBecause})` };
  // A colon in a key or value reads differently by where the key ends (judged apart): such tags are left out here.
  const carried = all.items.flatMap((vm) =>
    (tagsOf(vm, field) ?? []).filter(([k, v]) => !k.includes(':') && !v.includes(':')).map(([k, v]) => ({ vm, k, v }))
  );
  if (carried.length === 0)
    return { skipped: 'no VM record shows a tag, so what a case or repeated filter must return cannot be known' };
  const findings: Finding[] = [];
  const shown: string[] = [];
  const compare = (what: string, got: Vm[], want: Vm[], ex: Parameters<typeof finding>[2]) => {
    const wantIds = new Set(want.map(idOf));
    const gotIds = new Set(got.map(idOf));
    const extra = [...gotIds].filter((id) => !wantIds.has(id)).length;
    const missing = [...wantIds].filter((id) => !gotIds.has(id)).length;
    if (extra || missing)
      findings.push(
        finding(
          'declared',
          `${what} returned ${gotIds.size} VMs where ${wantIds.size} are due (${extra} not due, ${missing} left out)`,
          ex
        )
      );
    else shown.push(`${what}: the ${gotIds.size} due`);
  };
  const withLetters = carried.find((c) => swapCase(c.v) !== c.v);
  if (rule.case && withLetters) {
    const { k, v } = withLetters;
    const asked = swapCase(v);
    const filtered = await ctx.objects.walk(100, { tag: `${k}:${asked}` });
    const due = all.items.filter((vm) =>
      (tagsOf(vm, field) ?? []).some(
        ([kk, vv]) =>
          kk === k && (rule.case === 'insensitive' ? vv.toLowerCase() === asked.toLowerCase() : vv === asked)
      )
    );
    if (!filtered.complete)
      findings.push(
        finding(
          'declared',
          `tag=${k}:${asked} could not be walked (${filtered.stoppedBecause})`,
          filtered.pages.slice(-1)
        )
      );
    else compare(`tag=${k}:${asked} (case ${rule.case})`, filtered.items, due, filtered.pages.slice(0, 1));
  }
  // Two tags of different keys, both carried by one VM where one does: all, any and first then differ.
  const first = carried.find((c) => carried.some((o) => o.vm === c.vm && o.k !== c.k)) ?? carried[0]!;
  const second = carried.find((o) => o.vm === first.vm && o.k !== first.k) ?? carried.find((o) => o.k !== first.k);
  if (rule.repeated && second) {
    const a = `${first.k}:${first.v}`;
    const b = `${second.k}:${second.v}`;
    const ex = await ctx.call({ method: 'GET', path: '/v1/vms', query: { tag: [a, b], per_page: 100 } });
    const has = (vm: Vm, k: string, v: string) => (tagsOf(vm, field) ?? []).some(([kk, vv]) => kk === k && vv === v);
    if (rule.repeated === 'refused') {
      if (isSuccess(ex))
        findings.push(
          finding(
            'declared',
            `tag=${a}&tag=${b} was served, although the overlay declares a repeated filter refused: ${describeExchange(ex)}`,
            [ex]
          )
        );
      else shown.push(`tag given twice: refused (${ex.response?.status})`);
    } else if (!isSuccess(ex))
      findings.push(
        finding(
          'declared',
          `tag=${a}&tag=${b} was refused, although the overlay declares a repeated filter matches ${rule.repeated}: ${describeExchange(ex)}`,
          [ex]
        )
      );
    else {
      const predicted = (r: string) =>
        all.items.filter((vm) =>
          r === 'all'
            ? has(vm, first.k, first.v) && has(vm, second.k, second.v)
            : r === 'any'
              ? has(vm, first.k, first.v) || has(vm, second.k, second.v)
              : has(vm, first.k, first.v)
        );
      const due = predicted(rule.repeated);
      const got = vmsOf(ex);
      const key = (vms: Vm[]) => vms.map(idOf).sort().join(',');
      // Records where every rule predicts the same VMs cannot tell the declared one from the others.
      if (['all', 'any', 'first'].filter((r) => r !== rule.repeated).every((r) => key(predicted(r)) === key(due)))
        shown.push(`tag given twice: not decided (the records make ${a} and ${b} match the same VMs under every rule)`);
      else if (due.length > 100) {
        // More than one page is due: every VM of the first page must be due.
        const wrong = got.filter((vm) => !due.some((d) => idOf(d) === idOf(vm)));
        if (wrong.length)
          findings.push(
            finding(
              'declared',
              `tag=${a}&tag=${b} (repeated: ${rule.repeated}) returned ${wrong.length} VMs not due on its first page`,
              [ex]
            )
          );
        else shown.push(`tag given twice (${rule.repeated}): the first page all due`);
      } else compare(`tag=${a}&tag=${b} (repeated: ${rule.repeated})`, got, due, [ex]);
    }
  }
  if (findings.length === 0 && shown.length === 0)
    return {
      skipped: 'no VM record carries a tag the declared rules can be tried on (a value with letters; two keys)',
    };
  return { findings, shown };
}

type KeyEndReading = { finding: Finding } | { shown: string } | { notJudged: string };

/** Target-seconds between reads of the list while the check's VM is being made. */
const LIST_POLL_SECONDS = 2;

/**
 * Where a filter's key ends. The check creates two VMs: one tagged cc-colon-<run> = a:b, one
 * tagged cc-colon-<run>:a = b. The filter cc-colon-<run>:a:b returns the first and not the second where the key ends at
 * the first colon, and the second and not the first where it ends at the last: each rule is seen to find its VM, so a
 * filter that finds nothing passes neither. A target that refuses a colon in a key leaves the second out (then only the
 * first VM is judged). Judged once both are listed under the run's own tag, which every rule reads alike.
 */
async function judgeKeyEnd(ctx: CheckContext, keyEnd: 'first' | 'last'): Promise<KeyEndReading> {
  const field = ctx.declarations.tagsField;
  if (!field)
    return {
      notJudged:
        'where the key ends (the run sets its tags with a colon through the declared x-tags-field, which is not declared)',
    };
  const key = `cc-colon-${ctx.config.runId}`;
  const wanted = [
    { suffix: 'colon-value', tag: [key, 'a:b'] as const, foundBy: 'first' as const },
    { suffix: 'colon-key', tag: [`${key}:a`, 'b'] as const, foundBy: 'last' as const },
  ];
  const made: Array<{ name: string; tag: readonly [string, string]; foundBy: 'first' | 'last'; ex: Exchange }> = [];
  const refused: string[] = [];
  for (const w of wanted) {
    const { body, tags } = ctx.objects.vmCreateBody(w.suffix);
    body[field] = { ...(tags ?? {}), [w.tag[0]]: w.tag[1] };
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body });
    if (!isSuccess(ex)) {
      refused.push(`${w.tag[0]}=${w.tag[1]}: ${describeExchange(ex)}`);
      continue;
    }
    ctx.ledger.record(
      { kind: 'vm', name: String(body['name']), createdBy: ctx.checkId, note: `tagged ${w.tag[0]}=${w.tag[1]}` },
      ex
    );
    made.push({ name: String(body['name']), tag: w.tag, foundBy: w.foundBy, ex });
  }
  // The VM with a colon in its value is the one every target can be asked to keep; without it nothing is told.
  if (!made.some((m) => m.foundBy === 'first'))
    return {
      notJudged: `where the key ends (the create of a VM tagged ${key}=a:b was refused: ${refused.join('; ')})`,
    };
  const deadline = Date.now() + taskTimeoutRealMs(ctx.config);
  for (;;) {
    const mine = await ctx.objects.walk(100, { tag: `${RUN_TAG_KEY}:${ctx.config.runId}` });
    const missing = made.filter((m) => !mine.items.some((v) => v['name'] === m.name));
    if (missing.length === 0) break;
    if (!mine.complete || Date.now() >= deadline)
      return {
        notJudged: `where the key ends (${missing.map((m) => m.name).join(', ')} not listed under the run's own tag${mine.complete ? ` within ${ctx.config.taskTimeoutSeconds} s` : `: ${mine.stoppedBecause}`})`,
      };
    await ctx.sleepTarget(LIST_POLL_SECONDS);
  }
  const filter = `${key}:a:b`;
  const got = await ctx.objects.walk(100, { tag: filter });
  if (!got.complete)
    return { notJudged: `where the key ends (tag=${filter} could not be walked: ${got.stoppedBecause})` };
  const returned = (m: (typeof made)[number]) => got.items.some((v) => v['name'] === m.name);
  const wrong = made.filter((m) => returned(m) !== (m.foundBy === keyEnd));
  const described = made
    .map((m) => `${m.name} (${m.tag[0]}=${m.tag[1]}) ${returned(m) ? 'returned' : 'left out'}`)
    .join(', ');
  const only =
    made.length < wanted.length
      ? `; a key with a colon was refused (${refused.join('; ')}), so only the value's colon is tried`
      : '';
  if (wrong.length === 0) return { shown: `tag=${filter}: ${described}, as key-end ${keyEnd} says${only}` };
  return {
    finding: finding(
      'declared',
      `tag=${filter}: ${described}; where the key ends at the ${keyEnd} colon, as the overlay declares (x-tag-filter key-end), ${
        made
          .filter((m) => m.foundBy === keyEnd)
          .map((m) => m.name)
          .join(' and ') || 'none of them'
      } alone is due${only}`,
      [...made.map((m) => m.ex), ...got.pages.slice(0, 1)]
    ),
  };
}
