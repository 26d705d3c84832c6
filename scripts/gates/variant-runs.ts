// How each conforming variant of the reference is run: shared by test/reference/variants.test.ts and
// scripts/variants.ts (npm run variants), as test/fault-runs.ts is for the faults. Every run is zero-config (no
// overlay): the suite must discover each choice, and never fail or newly warn on a target that made it.
import { VARIANTS, type VariantDef } from '../../fixtures/reference/variants.ts';
import { S3_VARIANTS } from '../../fixtures/s3/variants.ts';
import { ALL_BUT_LIMITS } from './fault-runs.ts';
import type { ReferenceRun } from './reference-run.ts';

/** Dimensions whose choice the limit probes meet (issuance, rejections, headers, write bodies): their variants also run the limits group. */
const LIMIT_DIMENSIONS = new Set([
  'limit-window',
  'limit-refused',
  'retry-after-format',
  'ratelimit-headers',
  'token-format',
  'token-status',
  'token-body',
  'error-codes',
  'error-extras',
  'validation-status',
  'charset',
  'quota',
  'deprecation',
]);

/** Variants whose choice shows only once a window is waited out (Retry-After readings, resets): a full-profile limits run at time scale 10. */
const WAITING_VARIANTS = new Set([
  'retry-after-http-date',
  'retry-after-real-seconds',
  'limit-sliding-window',
  'limit-window-aligned',
  'limit-refused-not-counted',
]);

/** Variants of the API target. */
export const API_VARIANTS: VariantDef[] = VARIANTS;

/** Variants of the embedded S3 endpoint: each alone, against the s3 group (test/s3/variants.test.ts runs them too). */
export { S3_VARIANTS };

export interface LabelledRun {
  /** Which configuration: the same label for a variant run and the clean run it is compared with. */
  config: string;
  run: ReferenceRun;
}

/** The clean reference in each configuration the variants use. */
export const CLEAN_RUNS: LabelledRun[] = [
  { config: 'all but limits', run: { only: ALL_BUT_LIMITS } },
  { config: 'limits, scale 1', run: { only: ['limits'], timeScale: 1 } },
  { config: 'limits, full, scale 10', run: { only: ['limits'], timeScale: 10, profile: 'full' } },
  { config: 's3', run: { only: ['s3'] } },
];

/** The run of an S3 variant: the s3 group against the embedded endpoint under it (the API target plays no part). */
export function s3RunsFor(name: string): LabelledRun[] {
  return [{ config: 's3', run: { s3Variants: [name], only: ['s3'] } }];
}

const dimensionOf = (name: string): string => VARIANTS.find((v) => v.name === name)?.dimension ?? '';

/** The runs of a variant or a combination: the whole suite but the probes, and the limits group where the probes meet the choice. */
export function runsFor(variants: string[]): LabelledRun[] {
  const runs: LabelledRun[] = [{ config: 'all but limits', run: { variants, only: ALL_BUT_LIMITS } }];
  if (variants.some((v) => LIMIT_DIMENSIONS.has(dimensionOf(v))))
    runs.push({ config: 'limits, scale 1', run: { variants, only: ['limits'], timeScale: 1 } });
  if (variants.some((v) => WAITING_VARIANTS.has(v)))
    runs.push({
      config: 'limits, full, scale 10',
      run: { variants, only: ['limits'], timeScale: 10, profile: 'full' },
    });
  return runs;
}

/** mulberry32: a small seeded generator, so the combinations are the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` seeded combinations, each of 5 to 9 variants, at most one per dimension (variants of one dimension make the
 * same choice differently). Deterministic for a given seed.
 */
export function combinations(count: number, seed = 11): string[][] {
  const rnd = random(seed);
  const byDimension = new Map<string, string[]>();
  for (const v of API_VARIANTS) byDimension.set(v.dimension, [...(byDimension.get(v.dimension) ?? []), v.name]);
  const dimensions = [...byDimension.keys()];
  const out: string[][] = [];
  for (let i = 0; i < count; i++) {
    const size = 5 + Math.floor(rnd() * 5);
    const pool = [...dimensions];
    const combo: string[] = [];
    while (combo.length < size && pool.length) {
      const [dim] = pool.splice(Math.floor(rnd() * pool.length), 1);
      const names = byDimension.get(dim!)!;
      combo.push(names[Math.floor(rnd() * names.length)]!);
    }
    out.push(
      combo.sort((a, b) => API_VARIANTS.findIndex((v) => v.name === a) - API_VARIANTS.findIndex((v) => v.name === b))
    );
  }
  return out;
}
