// The definition every check under suites/ implements. The outcome helpers (pass, fail, skip, judge...) live in
// outcome/ and are re-exported here, so a check imports one module.
import type { CheckContext } from './context.ts';
import type { Level, CheckOutcome } from '../outcome/outcome.ts';

export * from '../outcome/outcome.ts';

/** One conformance check: what it covers (clauses), how strongly (level), and how to run it. */
export interface Check {
  id: string;
  group: string;
  clauses: string[];
  /** The highest level among the check's assertions (the level its JUnit name carries). */
  level: Level;
  /** Why each level the check asserts at is that level, one line each (rule 1: each assertion carries its own). */
  why: Partial<Record<Level, string>>;
  title: string;
  /** Reviews every exchange of the run, so it runs after all other checks. */
  reviewsLog?: true;
  /**
   * The budgets and state the check shares with others (run/schedule.ts): checks that share nothing run
   * concurrently; those that share keep their order. Unset: the API target (tokens, budgets, VM list, the run's objects).
   */
  shares?: readonly string[];
  /**
   * Of what it shares, the check only reads (on a conforming target it changes nothing there: no VM joins or leaves
   * the list): it runs beside the checks next to it in order that only read too, after the last check before them
   * that may change it, and the next such check waits for all of them (run/schedule.ts).
   */
  onlyReads?: true;
  run(ctx: CheckContext): Promise<CheckOutcome>;
}
