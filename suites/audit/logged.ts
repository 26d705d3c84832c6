import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, type CheckOutcome, type Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { KeyName } from '../../src/engine/config/config.ts';
import { kindCreatedAt } from '../../src/engine/target/ledger.ts';
import { auditOf, auditProbes, entriesAtBothEnds, field, findEntry, unlessGuessed, type Entry } from './_search.ts';
import { documentOperations, requestFor } from '../operations.ts';
import { absentId, isSuccess } from '../support.ts';

/** Recent entries read per search (pages of 100), and how many times a search is repeated for entries written late. */
const RECENT_PAGES = 5;
const ATTEMPTS = 4;

interface Sent {
  operationId: string;
  as: KeyName;
  ex: Exchange;
}

/**
 * One call to every authenticated operation of the document (declared ones included) with the run's key, and one with
 * the second key: reads on the run's objects, writes on ids that exist nowhere or with an empty body (refused, so
 * nothing is made). Never a key revocation (the run's own key would be revoked), nor token issuance: whom the entry of
 * an unauthenticated call is visible to is not shown (a target may record it for no organization); the run looks for
 * its own issuance where the overlay declares it visible to the key's organization (x-audit-unauthenticated).
 */
async function callEveryOperation(ctx: CheckContext): Promise<Sent[]> {
  const revocation = ctx.declarations.revokeKey;
  const sent: Sent[] = [];
  for (const op of documentOperations(ctx)) {
    if (revocation && revocation.method === op.method && revocation.path === op.path) continue;
    if (/api-keys/.test(op.path) && op.method !== 'GET') continue;
    if (op.method !== 'GET' && ctx.config.readOnly) continue;
    if (op.public) continue;
    const ex = await ctx.call(await requestFor(ctx, op));
    const kind = kindCreatedAt(op.path);
    // An empty body a lenient target accepts still made something: the ledger deletes it.
    if (op.method === 'POST' && isSuccess(ex) && kind)
      ctx.ledger.record({ kind, createdBy: ctx.checkId, note: 'made by an empty body sent to be audited' }, ex);
    sent.push({ operationId: op.operationId, as: 'primary', ex });
  }
  if (ctx.tokens.has('second'))
    sent.push({
      operationId: 'getTask',
      as: 'second',
      ex: await ctx.call({ as: 'second', method: 'GET', path: `/v1/tasks/${absentId(ctx, 'task')}` }),
    });
  return sent;
}

/**
 * The calls no entry shows: same path, and same status where entries carry one (searched as the caller); and the
 * entry found for each of the others.
 */
async function unlogged(
  ctx: CheckContext,
  sent: Sent[]
): Promise<{ missing: Sent[]; pages: Exchange[]; found: Array<{ sent: Sent; entry: Entry }> }> {
  const a = auditOf(ctx);
  let missing = sent.filter((s) => s.ex.response);
  let pages: Exchange[] = [];
  const found: Array<{ sent: Sent; entry: Entry }> = [];
  const entryOf = (entries: Entry[], s: Sent) =>
    entries.find(
      (e) =>
        field(a, e, 'path') === new URL(s.ex.request.url).pathname &&
        (a.fields.status === undefined ||
          field(a, e, 'status') === undefined ||
          Number(field(a, e, 'status')) === s.ex.response!.status)
    );
  for (let attempt = 0; attempt < ATTEMPTS && missing.length; attempt++) {
    if (attempt > 0) await ctx.sleepTarget(1);
    for (const as of [...new Set(missing.map((m) => m.as))]) {
      const r = await entriesAtBothEnds(ctx, {}, RECENT_PAGES, as);
      pages = r.pages;
      missing = missing.filter((m) => {
        const entry = m.as === as ? entryOf(r.entries, m) : undefined;
        if (entry) found.push({ sent: m, entry });
        return !entry;
      });
    }
  }
  return { missing, pages, found };
}

/** The fields the seed names on every entry (actor, source IP, result) an entry leaves empty, by their labels. */
function emptyFields(a: ReturnType<typeof auditOf>, entry: Entry): string[] {
  return (
    [
      ['actor', 'actor'],
      ['sourceIp', 'source IP'],
      ['result', 'result'],
    ] as const
  ).flatMap(([name, label]) => {
    const v = field(a, entry, name);
    return (typeof v !== 'string' && typeof v !== 'number') || v === '' ? [label] : [];
  });
}

/** Every API call, failed ones included, is logged with actor, source IP and result (seed §1). */
async function judgeLogged(ctx: CheckContext): Promise<CheckOutcome> {
  const a = auditOf(ctx);
  const probes = await auditProbes(ctx);
  const problems: string[] = [];
  const evidence: Exchange[] = [];
  const declaredFindings: Finding[] = [];
  for (const [label, ex, expected] of [
    ['a failed call', probes.failing, a.resultValues.failure],
    ['a successful call', probes.succeeding, a.resultValues.success],
  ] as const) {
    if (!ex) continue;
    const path = new URL(ex.request.url).pathname;
    const { entry, pages } = await findEntry(ctx, path);
    if (!entry) {
      problems.push(`${label} (${ex.request.method} ${path} → ${ex.response?.status}) is not in the audit`);
      evidence.push(ex, ...pages.slice(0, 1));
      continue;
    }
    for (const [name, label2] of [
      ['actor', 'actor'],
      ['sourceIp', 'source IP'],
      ['result', 'result'],
    ] as const) {
      const v = field(a, entry, name);
      if ((typeof v !== 'string' && typeof v !== 'number') || v === '')
        problems.push(`the entry for ${label} has no ${label2} (${a.fields[name]}: ${JSON.stringify(v ?? null)})`);
    }
    const result = field(a, entry, 'result');
    if (result !== expected && (typeof result === 'string' || typeof result === 'number') && result !== '') {
      declaredFindings.push(
        finding(
          'declared',
          `the entry for ${label} says ${a.fields.result}=${JSON.stringify(result)}, declared ${expected}`,
          pages.slice(0, 1)
        )
      );
    }
    if (problems.length) evidence.push(...pages.slice(0, 1));
  }
  // Every operation, and the second key: the clause is about every API call.
  const sent = await callEveryOperation(ctx);
  const { missing, pages, found } = await unlogged(ctx, sent);
  // Every call's entry, writes included, carries actor, source IP and result: not the probes' reads alone.
  const bare = found.flatMap((f) => {
    const empty = emptyFields(a, f.entry);
    return empty.length ? [{ ...f, empty }] : [];
  });
  if (bare.length) {
    problems.push(
      `the entries of ${bare.length} of ${found.length} other calls lack a field every entry has: ${bare
        .slice(0, 5)
        .map(
          (b) =>
            `${b.sent.ex.request.method} ${new URL(b.sent.ex.request.url).pathname} → ${b.sent.ex.response?.status} (no ${b.empty.join(', ')})`
        )
        .join('; ')}`
    );
    evidence.push(bare[0]!.sent.ex, ...pages.slice(0, 1));
  }
  if (missing.length) {
    problems.push(
      `${missing.length} of ${sent.length} calls are not in the audit: ${missing
        .slice(0, 5)
        .map(
          (m) =>
            `${m.operationId} ${m.ex.request.method} ${new URL(m.ex.request.url).pathname} → ${m.ex.response?.status}${m.as === 'primary' ? '' : ` (the ${m.as} key's)`}`
        )
        .join('; ')}`
    );
    evidence.push(...missing.slice(0, 3).map((m) => m.ex), ...pages.slice(0, 1));
  }
  // Token issuance: looked for only where the overlay says the key's organization sees it.
  let issuance = '';
  const secret = ctx.tokens.secret('primary');
  if (a.unauthenticated === 'key-organization' && secret) {
    const issued: Sent = {
      operationId: 'issueToken',
      as: 'primary',
      ex: await ctx.tokens.exchange(secret, ctx.checkId),
    };
    const notShown = await unlogged(ctx, [issued]);
    if (notShown.missing.length)
      declaredFindings.push(
        finding(
          'declared',
          `the run's token issuance (POST /v1/auth/tokens → ${issued.ex.response?.status}) is not in its organization's audit, although the overlay declares x-audit-unauthenticated: key-organization`,
          [issued.ex, ...notShown.pages.slice(0, 1)]
        )
      );
    else issuance = ', and so is its token issuance';
  }
  const findings = [...(problems.length ? [finding('must', problems.join('; '), evidence)] : []), ...declaredFindings];
  return judge(
    findings,
    `the run's failed${probes.succeeding ? ' and successful' : ''} calls are logged with actor, source IP and result, and a call to each of ${new Set(sent.map((s) => s.operationId)).size} operations${sent.some((s) => s.as === 'second') ? ' and one of the second key' : ''} is in the audit${issuance}`
  );
}

export const logged: Check = {
  id: 'audit.logged',
  group: 'audit',
  clauses: ['AUDIT-LOGGED'],
  level: 'must',
  why: {
    must: 'the seed says every API call is logged with actor, source IP and result (the search operation must be declared)',
    declared:
      "which words say success and failure is the overlay's declaration (x-audit-result-values), not the seed's",
  },
  title: 'Calls of the run, rejected ones included, appear in the audit with actor, source IP and result',
  async run(ctx) {
    return unlessGuessed(ctx, await judgeLogged(ctx));
  },
};
