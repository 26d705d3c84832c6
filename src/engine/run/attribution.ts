// What each check judged, beyond the requests it sent: exchanges the run's shared objects handed it, exchanges it picked
// from the log, and the keys whose token answers it read. A clause's domain (domains.ts) counts these points too.
import type { Exchange } from '../transport/exchange.ts';

/** Why a check could not decide a clause's property in one view of a list, and what would decide it. */
export interface Undecided {
  reason: string;
  howToVerify: string;
}

export interface Examined {
  /** seq of every exchange the check was handed or picked. */
  seqs: Set<number>;
  /** Keys whose token answer the check read (ctx.tokens.response('readonly')): their issuance was judged. */
  tokenKeys: Set<string>;
  /** Per clause, the list views (LIST_VIEWS) the check decided (true) or could not decide (why). */
  views: Map<string, Map<string, true | Undecided>>;
}

export const newExamined = (): Examined => ({ seqs: new Set(), tokenKeys: new Set(), views: new Map() });

/** Records a view of a clause as decided, or why not; once decided it stays decided. */
export function noteView(examined: Examined, clause: string, view: string, undecided?: Undecided): void {
  const views = examined.views.get(clause) ?? new Map<string, true | Undecided>();
  examined.views.set(clause, views);
  if (views.get(view) !== true) views.set(view, undecided ?? true);
}

const isExchange = (v: unknown): v is Exchange =>
  !!v &&
  typeof v === 'object' &&
  typeof (v as Exchange).seq === 'number' &&
  typeof (v as Exchange).request === 'object';

/** Records the exchanges in a value a check was handed (an exchange, a list of them, an object holding them), two levels deep. */
function note(value: unknown, examined: Examined, depth = 0): void {
  if (isExchange(value)) {
    examined.seqs.add(value.seq);
    return;
  }
  if (depth >= 2 || !value || typeof value !== 'object') return;
  for (const v of Array.isArray(value) ? value : Object.values(value)) note(v, examined, depth + 1);
}

/** An object whose every method's answer is recorded as judged (after `before` has seen the call, when given). */
function recording<T extends object>(
  target: T,
  examined: Examined,
  before?: (prop: string | symbol, args: unknown[]) => void
): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        before?.(prop, args);
        const result = (value as (...a: unknown[]) => unknown).apply(t, args);
        if (result instanceof Promise) return result.then((r) => (note(r, examined), r));
        note(result, examined);
        return result;
      };
    },
  });
}

/** The run's objects as one check sees them: every answer they give it is recorded as judged by it. */
export function recordingObjects<T extends object>(objects: T, examined: Examined): T {
  return recording(objects, examined);
}

/** The token manager as one check sees it: a key whose token answer it reads is a subject it judged. */
export function recordingTokens<T extends object>(tokens: T, examined: Examined): T {
  return recording(tokens, examined, (prop, args) => {
    if ((prop === 'response' || prop === 'issue') && typeof args[0] === 'string') examined.tokenKeys.add(args[0]);
  });
}

/** The run's log as one check sees it: what it picks out with filter, find or findLast is recorded as judged. */
export function recordingLog(log: readonly Exchange[], examined: Examined): readonly Exchange[] {
  return new Proxy(log, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== 'filter' && prop !== 'find' && prop !== 'findLast')
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        note(result, examined);
        return result;
      };
    },
  });
}
