import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseShippedYaml } from './yaml.ts';
import { SPEC_DIR } from './load.ts';

export interface Clause {
  id: string;
  section: string;
  text: string;
  checkable?: false;
  reason?: string;
  deferred?: { issue: number; group: string };
  /** Why a conforming target may never show it within a run (a quota beyond the create budget): not verified is then not blocking. */
  conditional?: string;
  /** What the clause ranges over: the run reports which points of it its judging checks exercised. */
  domain?: ClauseDomain;
  /** The fault model: each plausible way to break the clause, the reference fault that realizes it and the check that kills it. */
  faults?: FaultModelEntry[];
}

export type DomainDimension = 'operations' | 'subjects' | 'objects' | 'values' | 'views';

/** The dimensions of a domain, in the order reports show them. */
export const DOMAIN_DIMENSIONS: readonly DomainDimension[] = ['operations', 'subjects', 'objects', 'values', 'views'];

/**
 * The views of the VM list a list property ranges over: each filter the list takes (none; the tag filter, the only
 * one the seed shows) × the first page and a later one. A view is exercised when a judging check decided the property
 * there (a per_page cap is decided on a page that would hold more than 100 items without it, or by a refusal).
 */
export const VIEW = {
  unfilteredFirst: 'unfiltered/first-page',
  unfilteredLater: 'unfiltered/later-page',
  tagFirst: 'tag/first-page',
  tagLater: 'tag/later-page',
} as const;

export const LIST_VIEWS: Readonly<Record<string, string>> = {
  'unfiltered/first-page': 'the first page of the whole list',
  'unfiltered/later-page': 'a later page of the whole list',
  'tag/first-page': 'the first page under a tag filter',
  'tag/later-page': 'a later page under a tag filter',
};

/**
 * operations: operation ids of the document (declared ones included) or sets of them (all, authenticated, reads,
 * writes, lists, long-running); subjects: the run's keys by role (primary, second, readonly, revocable); objects: the
 * object conditions (exists, absent, other-organization); values: the value classes of a request's fields
 * (src/spec/value-classes.ts), each exercised when a judging check sent a body whose field holds it; views: a filter
 * × a page of the VM list (LIST_VIEWS), each exercised when a judging check decided the property there.
 */
export interface ClauseDomain {
  operations?: string[];
  subjects?: string[];
  objects?: string[];
  values?: string[];
  /**
   * The value classes count only in requests the target accepted (a clause about what an accepted request gives, such
   * as its task): a class sent only in requests the target refused is its choice to refuse, out of the run's reach.
   */
  accepted?: boolean;
  /** Views of the VM list (LIST_VIEWS): a filter × a page. */
  views?: string[];
}

export interface FaultModelEntry {
  /** The dimension the fault came from: subject, object, time, scope, value, state or completeness. */
  dimension: 'subject' | 'object' | 'time' | 'scope' | 'value' | 'state' | 'completeness';
  /** The way an implementation breaks the clause, in a line. */
  breaks: string;
  /** The reference fault that realizes it (fixtures/reference/faults.ts). */
  fault: string;
  /** The check that kills it. */
  check: string;
}

export interface UnshownItem {
  id: string;
  section: string;
  text: string;
  /** Declared and should-level faults that concern the item (the seed leaves it open, so none is a MUST). */
  faults?: FaultModelEntry[];
}

export const FAULT_DIMENSIONS: ReadonlyArray<FaultModelEntry['dimension']> = [
  'subject',
  'object',
  'time',
  'scope',
  'value',
  'state',
  'completeness',
];

export interface ClauseList {
  seed: string;
  clauses: Clause[];
  unshown: UnshownItem[];
}

export async function loadClauses(): Promise<ClauseList> {
  const file = path.join(SPEC_DIR, 'clauses.yaml');
  return parseShippedYaml(file, await readFile(file, 'utf8')) as ClauseList;
}

/** The same, synchronously (for renderers, which are plain functions of the report). */
export function loadClausesSync(): ClauseList {
  const file = path.join(SPEC_DIR, 'clauses.yaml');
  return parseShippedYaml(file, readFileSync(file, 'utf8')) as ClauseList;
}
