// How a run is done again, as the CLI prints it: the rerun line and the token line the evidence's curl lines need. Both
// are made from what the user gave (their flags, and the variables and .env entries the CLI read), never from the
// engine's configuration, and neither carries a secret: the CLI reads keys from the environment and .env, so the lines
// name the variables they read instead, where `ps` cannot show them.
import type { Reproduction } from '../engine/run/runner.ts';
import { TOKEN_VARIABLE } from '../engine/transport/exchange.ts';
import { RUN_FLAGS, variableOf, type GivenSetting, type OptionSpec, type RunOptions } from './options.ts';

const TABLE = RUN_FLAGS as Record<string, OptionSpec>;

/** The settings the token command takes from the run's: where the target is and how it is reached. */
const TOKEN_SETTINGS = new Set(['time-scale', 'request-timeout', 'ca-file', 'client-cert', 'client-key', 'insecure']);

/**
 * The rerun line: the profile and seed the run had (the seed the CLI chose when none was given), then every other
 * setting the user gave, as a flag whatever gave it; a secret is left to its variable, which `reads` names.
 */
export function rerunOf(opts: Pick<RunOptions, 'given' | 'profile' | 'seed'>): Omit<Reproduction, 'tokenCommand'> {
  const words = ['npx cloud-conformance run', `--profile ${opts.profile}`, `--seed ${opts.seed}`];
  const reads: string[] = [];
  for (const g of opts.given) {
    const o = TABLE[g.flag]!;
    if (o.output || g.flag === 'profile' || g.flag === 'seed') continue;
    if (o.secret) reads.push(variableOf(g.flag)!);
    else words.push(...asFlags(g));
  }
  return { rerun: words.join(' '), reads };
}

/**
 * The line that sets TOKEN_VARIABLE for the curl lines: `cloud-conformance token` reads the key as the run did
 * (CONFORMANCE_API_KEY, in the environment or .env), waits out a spent issuance budget as Retry-After says, and fails
 * with the target's answer rather than set an empty token.
 */
export function tokenCommandOf(opts: Pick<RunOptions, 'given'>, baseUrl: string): string {
  const words = ['npx cloud-conformance token', `--base-url ${shellWord(baseUrl)}`];
  for (const g of opts.given) if (TOKEN_SETTINGS.has(g.flag)) words.push(...asFlags(g));
  return `${TOKEN_VARIABLE}="$(${words.join(' ')})" && export ${TOKEN_VARIABLE}`;
}

/** A given setting as the words of its flag. */
function asFlags(g: GivenSetting): string[] {
  if (typeof g.value === 'boolean') return g.value ? [`--${g.flag}`] : [];
  const values = typeof g.value === 'string' ? [g.value] : g.value;
  return values.map((v) => `--${g.flag} ${shellWord(v)}`);
}

/** A value as one shell word: bare when it is plain, else in single quotes. */
function shellWord(v: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}
