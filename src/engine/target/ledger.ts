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
