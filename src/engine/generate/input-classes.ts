// Input classes: the ways a value the target accepts is varied at one position (a body field, a query value, a
// header, the path), one class at a time and then in pairs. The pairs come from a covering array (covertable): every
// two variants of two classes meet in some combination, in far fewer combinations than the product.
import { createRequire } from 'node:module';

// covertable ships CommonJS whose default export ESM loaders read differently (tsx, vite): required as CommonJS it is one thing.
const covertable = createRequire(import.meta.url)('covertable') as typeof import('covertable');

/** A class of inputs at one position: a way of varying an accepted value, and the variants that realise it. */
export interface InputClass<V> {
  name: string;
  variants: readonly V[];
}

/** One input: for each class varied, the variant it takes; the classes left out keep the accepted value. */
export type Combination<V> = Readonly<Record<string, V>>;

/** The classes a combination varies, in the order they were declared. */
export const classesOf = <V>(c: Combination<V>): string[] => Object.keys(c);

/** A label for a combination: its classes joined with "+", as the clause domains name pairs. */
export const labelOf = <V>(c: Combination<V>): string => classesOf(c).join('+');

/** Each class alone: its first variant, or (every) each of its variants in turn. */
export function oneAtATime<V>(classes: ReadonlyArray<InputClass<V>>, every = false): Array<Combination<V>> {
  return classes.flatMap((c) => (every ? c.variants : c.variants.slice(0, 1)).map((v) => ({ [c.name]: v })));
}

/**
 * Pairs of classes: a pairwise covering array over, for each class, "left as accepted" and each variant the target
 * accepted alone (a refused variant is learnt and left out). Only the combinations that vary two classes or more are
 * returned: the others were sent alone. Deterministic: covertable's hash sorter with a fixed seed.
 */
export function pairwise<V>(
  classes: ReadonlyArray<InputClass<V>>,
  acceptedAlone: (cls: string, variant: V) => boolean
): Array<Combination<V>> {
  // covertable works on scalars: each level is the variant's index, -1 for the accepted value left as it is.
  const factors: Record<string, number[]> = {};
  for (const c of classes) {
    const levels = c.variants.map((v, i) => (acceptedAlone(c.name, v) ? i : -1)).filter((i) => i >= 0);
    if (levels.length) factors[c.name] = [-1, ...levels];
  }
  if (Object.keys(factors).length < 2) return [];
  const rows = covertable.make(factors, { seed: 'input-classes' }) as Array<Record<string, number>>;
  const out: Array<Combination<V>> = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const combo: Record<string, V> = {};
    for (const c of classes) {
      const i = row[c.name];
      if (i !== undefined && i >= 0) combo[c.name] = c.variants[i]!;
    }
    const key = JSON.stringify(classes.map((c) => row[c.name] ?? -1));
    if (classesOf(combo).length >= 2 && !seen.has(key)) {
      seen.add(key);
      out.push(combo);
    }
  }
  return out;
}

/**
 * The pairs of classes (both accepted alone) that no accepted combination covers: a combination the target refused
 * as a whole hides the pairs inside it, so each is then sent on its own (the first variant of each class).
 */
export function uncoveredPairs<V>(
  classes: ReadonlyArray<InputClass<V>>,
  acceptedAlone: ReadonlySet<string>,
  accepted: ReadonlyArray<Combination<V>>
): Array<Combination<V>> {
  const usable = classes.filter((c) => acceptedAlone.has(c.name));
  const covered = (a: string, b: string) => accepted.some((c) => a in c && b in c);
  const out: Array<Combination<V>> = [];
  for (const [i, a] of usable.entries())
    for (const b of usable.slice(i + 1))
      if (!covered(a.name, b.name)) out.push({ [a.name]: a.variants[0]!, [b.name]: b.variants[0]! });
  return out;
}
