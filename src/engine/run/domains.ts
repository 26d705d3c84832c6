// A clause's domain: the operations, subjects, object conditions, value classes and list views a MUST clause ranges
// over (declared in spec/clauses.yaml), the points of it this run's judging checks exercised (read from the exchange
// log, and for list views from what the checks said they decided), and the rest: a verified clause exercised on part
// of its domain is "partly verified", with what would complete it.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Clause, ClauseDomain } from '../../spec/clauses.ts';
import { LIST_VIEWS } from '../../spec/clauses.ts';
import type { Exchange } from '../transport/exchange.ts';
import type { LedgerEntry } from '../target/ledger.ts';
import type { Check } from './check.ts';
import type { CheckReport, DomainCoverage } from './report.ts';
import type { Examined } from './attribution.ts';
import { documentOperations, type DocumentOperation } from '../schema/operations.ts';
import type { ServedOperation } from '../target/served-operations.ts';
import { KEY_NAMES, type InputNames, type KeyName } from '../config/config.ts';
import { VALUE_CLASSES } from '../../spec/value-classes.ts';

/** What the run knows besides the log: the document after the overlay, the keys it holds, what it created. */
interface DomainInputs {
  merged: OpenAPIV3_1.Document;
  operationOf: (method: string, pathname: string) => string | undefined;
  keysHeld: ReadonlySet<string>;
  ledger: readonly LedgerEntry[];
  /** The operations the target serves (the registry): the document's, and those the run discovered. */
  served?: readonly ServedOperation[];
  /** Pairs of value classes are within this run's reach (certify sends them; quick varies one class at a time). */
  pairs?: boolean;
  /** How the user gives each key, for the point a missing key leaves open. */
  names: Pick<InputNames, KeyName | 'profile'>;
}

/** An operation of the domain: the document's, or the registry's, which says where the run learnt of it. */
type DomainOperation = DocumentOperation & Partial<Pick<ServedOperation, 'source' | 'shown'>>;

/** An operation the run learnt of from the target or from convention, not from its document. */
const discovered = (o: DomainOperation): boolean => o.source === 'allow' || o.source === 'conventional';

const isKey = (subject: string): subject is KeyName => (KEY_NAMES as readonly string[]).includes(subject);
/** Keys of the second organization; every other key of the run belongs to the primary one. */
const ORGANIZATION_OF: Record<string, string> = { second: 'B', primary: 'A', readonly: 'A', revocable: 'A' };
/**
 * The operations a domain names, resolved against the document: all, authenticated (all but the public ones), reads
 * (authenticated GETs), writes (authenticated others), lists (GETs that take page and per_page, answering an array of items), long-running (those
 * whose answer links to the task poll), or operation ids. A discovered operation joins a set where a judging check
 * exercised it (`sent`), or where no answer showed it (then out of reach, said so): a discovered operation no check
 * of the clause sends is not claimed.
 */
function resolveOperations(
  names: readonly string[],
  ops: readonly DomainOperation[],
  sent: ReadonlySet<string> = new Set()
): { inDocument: string[]; absent: string[] } {
  const sets: Record<string, (o: DocumentOperation) => boolean> = {
    all: () => true,
    authenticated: (o) => !o.public,
    reads: (o) => !o.public && o.method === 'GET',
    writes: (o) => !o.public && o.method !== 'GET',
    lists: (o) => o.list,
    'long-running': (o) => o.longRunning,
  };
  const inDocument = new Set<string>();
  const absent: string[] = [];
  for (const name of names) {
    const set = sets[name];
    const claimed = (o: DomainOperation) => !discovered(o) || sent.has(o.operationId) || o.shown === false;
    if (set)
      ops
        .filter(set)
        .filter(claimed)
        .forEach((o) => inDocument.add(o.operationId));
    else if (ops.some((o) => o.operationId === name)) inDocument.add(name);
    else absent.push(name);
  }
  return { inDocument: [...inDocument], absent };
}

/** Where an exchange's object stood for its caller: its own (exists), none (absent), or another organization's. */
function objectCondition(
  ex: Exchange,
  template: string | undefined,
  createdBy: ReadonlyMap<string, string>
): string | undefined {
  if (!template || !template.includes('{') || !ex.response) return undefined;
  const caller = ex.subject && ORGANIZATION_OF[ex.subject];
  if (!caller) return undefined;
  const ids = new URL(ex.request.url).pathname.split('/').map(decodeURIComponent);
  const owner = ids.map((id) => createdBy.get(id)).find((o) => o !== undefined);
  if (owner && owner !== caller) return 'other-organization';
  if (ex.response.status >= 200 && ex.response.status < 300) return 'exists';
  if (ex.response.status === 404) return owner ? 'exists' : 'absent';
  return owner ? 'exists' : undefined;
}

/** Each MUST clause's domain, what the checks that judge it exercised, and the points left. */
export function computeDomains(
  clauses: readonly Clause[],
  checks: readonly Check[],
  reports: readonly CheckReport[],
  log: readonly Exchange[],
  examined: ReadonlyMap<string, Examined>,
  inputs: DomainInputs
): DomainCoverage[] {
  const ops: readonly DomainOperation[] = inputs.served ?? documentOperations(inputs.merged);
  const seen: LogIndex = {
    templateOf: new Map(ops.map((o) => [o.operationId, o.path])),
    createdBy: creatorsOf(log, inputs.ledger),
    // Each exchange's operation, matched once for every clause that counts it.
    operationOfSeq: new Map(
      log.map((ex) => [ex.seq, inputs.operationOf(ex.request.method, new URL(ex.request.url).pathname)])
    ),
    // A path of another shape (a trailing or doubled slash, upper case) is counted for the operation it varies.
    shapedOperationOf: (ex) => inputs.operationOf(ex.request.method, plainPath(new URL(ex.request.url).pathname)),
  };
  const decided = new Set(reports.filter((r) => ['passed', 'failed', 'warning'].includes(r.status)).map((r) => r.id));
  const out: DomainCoverage[] = [];
  for (const clause of clauses) {
    if (!clause.domain) continue;
    const judging = checks.filter(
      (c) => (c.level === 'must' || c.level === 'declared') && c.clauses.includes(clause.id) && decided.has(c.id)
    );
    const d: ClauseDomain = clause.domain;
    const met = exercisedPoints(judging, log, examined, { classes: d.values ?? [], accepted: !!d.accepted }, seen);
    const coverage: DomainCoverage = { clause: clause.id, domain: {}, exercised: {}, missing: [] };
    if (d.operations) coverOperations(coverage, clause.id, d.operations, ops, met.operations, inputs.names);
    if (d.subjects) coverSubjects(coverage, clause.id, d.subjects, met.subjects, inputs);
    if (d.objects) coverObjects(coverage, clause.id, d.objects, met.objects, inputs);
    if (d.values)
      coverValues(coverage, clause.id, d.values, met.values, met.refusedValues, {
        pairs: inputs.pairs === true,
        names: inputs.names,
      });
    if (d.views) coverViews(coverage, clause.id, d.views, judging, examined);
    out.push(coverage);
  }
  return out;
}

/** What the log tells of each exchange beyond itself: its operation, that operation's path, who made its objects. */
interface LogIndex {
  templateOf: ReadonlyMap<string, string>;
  createdBy: ReadonlyMap<string, string>;
  operationOfSeq: ReadonlyMap<number, string | undefined>;
  shapedOperationOf: (ex: Exchange) => string | undefined;
}

/** A path of another shape brought back to the document's: slashes single, none at the end, the version and collection in lower case. */
function plainPath(pathname: string): string {
  const segments = pathname.split('/').filter((s) => s !== '');
  return '/' + segments.map((s, i) => (i < 2 ? s.toLowerCase() : s)).join('/');
}

/** The organization that made each object the run created (the caller of the exchange that created it). */
function creatorsOf(log: readonly Exchange[], ledger: readonly LedgerEntry[]): Map<string, string> {
  const bySeq = new Map(log.map((ex) => [ex.seq, ex]));
  const createdBy = new Map<string, string>();
  for (const e of ledger) {
    const caller = e.createdIn !== undefined ? bySeq.get(e.createdIn)?.subject : undefined;
    if (e.id && caller && ORGANIZATION_OF[caller]) createdBy.set(e.id, ORGANIZATION_OF[caller]!);
  }
  return createdBy;
}

/**
 * The operations, subjects, object conditions and value classes the judging checks of a clause exercised; with
 * `values.accepted`, a class counts only in an accepted request, and one sent only in refused requests is set apart.
 */
function exercisedPoints(
  judging: readonly Check[],
  log: readonly Exchange[],
  examined: ReadonlyMap<string, Examined>,
  values: { classes: readonly string[]; accepted: boolean },
  seen: LogIndex
): {
  operations: Set<string>;
  subjects: Set<string>;
  objects: Set<string>;
  values: Set<string>;
  refusedValues: Set<string>;
} {
  const wholeLog = judging.some((c) => c.reviewsLog);
  const ids = new Set(judging.map((c) => c.id));
  // Sent by a judging check, or handed to it (the run's objects, the log, token answers): both were judged.
  const handed = new Set(judging.flatMap((c) => [...(examined.get(c.id)?.seqs ?? [])]));
  const exchanges = log.filter((ex) => wholeLog || ids.has(ex.sentBy) || handed.has(ex.seq));
  const operations = new Set<string>();
  const subjects = new Set<string>();
  const objects = new Set<string>();
  const exercised = new Set<string>();
  const refusedValues = new Set<string>();
  for (const c of judging) {
    for (const key of examined.get(c.id)?.tokenKeys ?? []) {
      subjects.add(key);
      operations.add('issueToken');
    }
  }
  for (const ex of exchanges) {
    const op = seen.operationOfSeq.get(ex.seq);
    if (op) operations.add(op);
    // Whose token it carried, or whose key it exchanged.
    if (ex.subject && isKey(ex.subject) && ex.response) subjects.add(ex.subject);
    const condition = objectCondition(ex, op && seen.templateOf.get(op), seen.createdBy);
    if (condition) objects.add(condition);
    for (const name of values.classes) {
      if (!ex.response || !sentValueOf(ex, op, name, seen)) continue;
      const refused = values.accepted && !(ex.response.status >= 200 && ex.response.status < 300);
      (refused ? refusedValues : exercised).add(name);
    }
  }
  for (const name of exercised) refusedValues.delete(name);
  return { operations, subjects, objects, values: exercised, refusedValues };
}

/** The operations of a domain the checks sent, those left, and those the run's document lacks. */
function coverOperations(
  coverage: DomainCoverage,
  clause: string,
  domain: readonly string[],
  ops: readonly DomainOperation[],
  sent: ReadonlySet<string>,
  names: Pick<InputNames, 'revocable'>
): void {
  const { inDocument, absent } = resolveOperations(domain, ops, sent);
  coverage.domain.operations = [...inDocument, ...absent];
  coverage.exercised.operations = inDocument.filter((o) => sent.has(o));
  const revokes = new Set(ops.filter((o) => o.revokesKey).map((o) => o.operationId));
  const unshown = new Set(ops.filter((o) => discovered(o) && o.shown === false).map((o) => o.operationId));
  for (const o of inDocument.filter((o) => !sent.has(o))) {
    coverage.missing.push(
      unshown.has(o)
        ? // Examined only where a 2xx shows it exists: on ids that exist nowhere its answer says nothing.
          {
            dimension: 'operations',
            point: o,
            possible: false,
            reason: `${o} is not in this run's document and no Allow answer listed it (the run relies on it by convention)`,
            howToVerify: `declare it in the overlay${/^DELETE \/v1\/vms\//.test(o) ? ' (x-cleanup-for: createVm)' : ''}`,
          }
        : revokes.has(o)
          ? // Sent with any key the run needs, it would end the run: only the revocable key may, in security.revoked-key.
            {
              dimension: 'operations',
              point: o,
              possible: false,
              reason: `${o} revokes the key it is sent with; the run sends it only once, with ${names.revocable}, to judge revocation`,
              howToVerify: `a key of its own for each clause, which the suite does not ask for`,
            }
          : {
              dimension: 'operations',
              point: o,
              possible: true,
              reason: `no check judging ${clause} sent ${o}`,
              howToVerify: `a check of ${clause} that sends ${o} (the suite's gap, or a group not selected)`,
            }
    );
  }
  for (const o of absent)
    coverage.missing.push({
      dimension: 'operations',
      point: o,
      possible: false,
      reason: `${o} is not in this run's document`,
      howToVerify: `declare ${o} in the overlay`,
    });
}

/** The subjects (keys) of a domain whose tokens the checks used, and those left (a key the run lacks must be given). */
function coverSubjects(
  coverage: DomainCoverage,
  clause: string,
  domain: readonly string[],
  used: ReadonlySet<string>,
  { keysHeld, names }: Pick<DomainInputs, 'keysHeld' | 'names'>
): void {
  coverage.domain.subjects = [...domain];
  coverage.exercised.subjects = domain.filter((s) => used.has(s));
  for (const s of domain.filter((x) => !used.has(x))) {
    const held = keysHeld.has(s);
    coverage.missing.push(
      held
        ? {
            dimension: 'subjects',
            point: s,
            possible: true,
            reason: `no check judging ${clause} used the ${s} key's tokens`,
            howToVerify: `a check of ${clause} on the ${s} key (the suite's gap, or a group not selected)`,
          }
        : {
            dimension: 'subjects',
            point: s,
            possible: false,
            reason: `the run holds no ${s} key`,
            howToVerify: `give ${isKey(s) ? names[s] : 'the key'}`,
          }
    );
  }
}

/** The object conditions of a domain the checks met, and those left (another organization's needs its key). */
function coverObjects(
  coverage: DomainCoverage,
  clause: string,
  domain: readonly string[],
  met: ReadonlySet<string>,
  { keysHeld, names }: Pick<DomainInputs, 'keysHeld' | 'names'>
): void {
  const holdsSecond = keysHeld.has('second');
  coverage.domain.objects = [...domain];
  coverage.exercised.objects = domain.filter((o) => met.has(o));
  for (const o of domain.filter((x) => !met.has(x))) {
    const possible = o !== 'other-organization' || holdsSecond;
    coverage.missing.push({
      dimension: 'objects',
      point: o,
      possible,
      reason: possible
        ? `no check judging ${clause} met an object that is ${o === 'absent' ? 'absent' : o === 'exists' ? 'there' : "another organization's"}`
        : 'the run holds no key of a second organization',
      howToVerify: possible ? `a check of ${clause} on such an object` : `give ${names.second}`,
    });
  }
}

/**
 * The value classes of a domain the checks sent, and those left: within reach (the run chooses what it sends), except a
 * class the target refused every time where the clause is about accepted requests (which values it takes is its own).
 */
function coverValues(
  coverage: DomainCoverage,
  clause: string,
  domain: readonly string[],
  sent: ReadonlySet<string>,
  refused: ReadonlySet<string>,
  { pairs, names }: { pairs: boolean; names: Pick<InputNames, 'profile'> }
): void {
  coverage.domain.values = [...domain];
  coverage.exercised.values = domain.filter((v) => sent.has(v));
  for (const v of domain.filter((x) => !sent.has(x))) {
    const cls = VALUE_CLASSES[v];
    if (refused.has(v)) {
      coverage.missing.push({
        dimension: 'values',
        point: v,
        possible: false,
        reason: `the target refused every request with ${cls ? cls.what : v} (which values it accepts is not shown in the seed)`,
        howToVerify: `a target that accepts ${cls ? cls.what : v}`,
      });
      continue;
    }
    if (cls?.pair && !pairs) {
      coverage.missing.push({
        dimension: 'values',
        point: v,
        possible: false,
        reason: `pairs of classes are sent in certify; this profile varies one class at a time`,
        howToVerify: `${names.profile} certify`,
      });
      continue;
    }
    coverage.missing.push({
      dimension: 'values',
      point: v,
      possible: true,
      reason: `no check judging ${clause} sent ${cls ? `${cls.what} (${cls.operations.join(', ')})` : v} and had an answer`,
      howToVerify: `a check of ${clause} that sends it (the suite's gap, a budget spent first, or a group not selected)`,
    });
  }
}

/**
 * The views of the VM list (a filter × a page) in which a judging check decided the clause's property, and the rest
 * with why no check could (always within reach: a longer list, a tag the run sets, or a profile that makes them).
 */
function coverViews(
  coverage: DomainCoverage,
  clause: string,
  domain: readonly string[],
  judging: readonly Check[],
  examined: ReadonlyMap<string, Examined>
): void {
  coverage.domain.views = [...domain];
  const notes = judging.flatMap((c) => {
    const n = examined.get(c.id)?.views.get(clause);
    return n ? [n] : [];
  });
  const decided = (v: string) => notes.some((n) => n.get(v) === true);
  coverage.exercised.views = domain.filter(decided);
  for (const v of domain.filter((x) => !decided(x))) {
    const why = notes.flatMap((n) => {
      const u = n.get(v);
      return u && u !== true ? [u] : [];
    });
    coverage.missing.push({
      dimension: 'views',
      point: v,
      possible: true,
      reason: why.length
        ? [...new Set(why.map((w) => w.reason))].join('; ')
        : `no check judging ${clause} decided it on ${LIST_VIEWS[v] ?? v}`,
      howToVerify:
        why[0]?.howToVerify ??
        `a check of ${clause} that reads ${LIST_VIEWS[v] ?? v} (the suite's gap, or a group not selected)`,
    });
  }
}

/** Whether an exchange sent the named value class at its position (a body field, a query value, a header, the path). */
function sentValueOf(ex: Exchange, op: string | undefined, name: string, seen: LogIndex): boolean {
  const cls = VALUE_CLASSES[name];
  if (!cls) return false;
  const url = new URL(ex.request.url);
  if (cls.position === 'path') {
    const shaped = seen.shapedOperationOf(ex);
    return shaped !== undefined && cls.operations.includes(shaped) && cls.holds(url.pathname);
  }
  if (!op || !cls.operations.includes(op)) return false;
  if (cls.position === 'query') return url.searchParams.getAll(cls.field).some((v) => cls.holds(v));
  if (cls.position === 'header') return cls.holds(ex.request.headers[cls.field]);
  if (ex.request.body === undefined) return false;
  try {
    const body = JSON.parse(ex.request.body) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
    const b = body as Record<string, unknown>;
    return cls.holds(b[cls.field], b);
  } catch {
    return false;
  }
}

/** Verified clauses exercised on part of their domain, where the rest was within this run's reach. */
export function partlyVerified(verified: readonly string[], domains: readonly DomainCoverage[]): string[] {
  return domains.filter((d) => verified.includes(d.clause) && d.missing.some((m) => m.possible)).map((d) => d.clause);
}
