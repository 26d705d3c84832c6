import type { Exchange } from '../transport/exchange.ts';

/** What the run created on the target, for the report and for cleanup. */
export interface LedgerEntry {
  kind: 'vm' | 'backup' | 'webhook' | 'alarm' | 'api-key-revoked';
  /** The id, when the target revealed it. */
  id?: string;
  name?: string;
  createdBy: string;
  /** The seq of the exchange that created it (its id is read from it at cleanup, where the overlay says). */
  createdIn?: number;
  cleanup: 'deleted' | 'delete-failed' | 'not-declared' | 'pending';
  /** The key whose organization holds it, when not the primary key's: cleanup deletes it with that key. */
  owner?: 'second';
  note?: string;
}

/** The ledger kind of what a POST to a top-level collection makes (`/v1/vms` makes a `vm`). */
export const COLLECTION_KINDS: Readonly<Record<string, Exclude<LedgerEntry['kind'], 'api-key-revoked'>>> = {
  vms: 'vm',
  backups: 'backup',
  webhooks: 'webhook',
  alarms: 'alarm',
};

/** The kind a POST to `path` makes, when `path` is a top-level collection (`/v1/vms`), else undefined. */
export function kindCreatedAt(path: string): LedgerEntry['kind'] | undefined {
  const collection = /^\/v1\/([a-z]+)$/.exec(path)?.[1];
  return collection ? COLLECTION_KINDS[collection] : undefined;
}

export class Ledger {
  readonly entries: LedgerEntry[] = [];

  record(entry: Omit<LedgerEntry, 'cleanup'>, from?: Exchange): LedgerEntry {
    const e: LedgerEntry = { ...entry, cleanup: 'pending' };
    if (from && e.createdIn === undefined) e.createdIn = from.seq;
    this.entries.push(e);
    return e;
  }
}

/** A resource the run created and did not remove: what it is, why it is still there, and how to delete it by hand. */
export interface LeftBehind {
  kind: Exclude<LedgerEntry['kind'], 'api-key-revoked'>;
  id?: string;
  name?: string;
  /** Why it is still there: what its delete answered, that nothing deletes it, or that its id could not be learnt. */
  reason: string;
  /** The key whose organization holds it (the one to delete it with). */
  owner: 'primary' | 'second';
  /** True when the run's last list showed it; false when only the ledger says so (the list could not be read whole). */
  listed?: boolean;
  /** The request that deletes it, where the run knows one and the id (its path with the id filled in). */
  delete?: { method: string; path: string };
  /** That request as a curl line, the token as "$CONFORMANCE_TOKEN" ("$CONFORMANCE_TOKEN_B" for the second key): never a secret. */
  deleteCommand?: string;
}

/** The ledger as the report carries it: everything the run created, and what of it is still on the target. */
export interface LedgerReport {
  entries: LedgerEntry[];
  leftBehind: LeftBehind[];
  /** The run's last look at the list for its own VMs (cc-<run id>-…), per organization it created VMs in. */
  sweeps?: Array<{
    owner: 'primary' | 'second';
    scope: string;
    complete: boolean;
    stoppedBecause: string;
    found: number;
  }>;
}

/** The ledger of a report, read as this version writes it or as reports before it did (a bare list of entries). */
export function ledgerOf(report: { ledger?: unknown }): LedgerReport {
  const l = report.ledger;
  if (Array.isArray(l)) return { entries: l as LedgerEntry[], leftBehind: [] };
  if (l && typeof l === 'object') {
    const o = l as Partial<LedgerReport>;
    return { ...o, entries: o.entries ?? [], leftBehind: o.leftBehind ?? [] };
  }
  return { entries: [], leftBehind: [] };
}
