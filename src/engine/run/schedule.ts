import type { Check } from './check.ts';

/** What a check shares when it declares nothing: the API target's tokens, budgets, VM list and the run's objects. */
export const API_TARGET = 'api';

/** The budgets and state a check shares with others (Check.shares, else the API target). */
export function sharesOf(check: Check): readonly string[] {
  return check.shares?.length ? check.shares : [API_TARGET];
}

/**
 * Runs checks in their order, each as soon as every earlier check that shares something with it has ended: checks
 * that share a budget or state keep the sequential order among themselves, and the others run beside them. Checks
 * next to each other in that order that only read what they share (Check.onlyReads) run beside each other, after the
 * last check that may change it; the next that may change it waits for them all. With `sequential`, every check waits
 * for the one before it. Results come back in the checks' order.
 */
export async function runScheduled<T>(
  checks: readonly Check[],
  run: (check: Check) => Promise<T>,
  sequential = false
): Promise<T[]> {
  // Per share: the last check that may change it, and the checks that only read it since.
  const lastChange = new Map<string, Promise<unknown>>();
  const readsSince = new Map<string, Array<Promise<unknown>>>();
  const runs: Array<Promise<T>> = [];
  for (const check of checks) {
    const shares = sequential ? ['*'] : sharesOf(check);
    const onlyReads = !sequential && check.onlyReads === true;
    const before = shares
      .flatMap((s) => [lastChange.get(s), ...(onlyReads ? [] : (readsSince.get(s) ?? []))])
      .filter((p) => p !== undefined);
    // A predecessor's failure belongs to that check; this one starts once it has settled either way.
    const started = Promise.allSettled(before).then(() => run(check));
    for (const s of shares) {
      if (onlyReads) readsSince.set(s, [...(readsSince.get(s) ?? []), started]);
      else {
        lastChange.set(s, started);
        readsSince.set(s, []);
      }
    }
    runs.push(started);
  }
  return Promise.all(runs);
}
