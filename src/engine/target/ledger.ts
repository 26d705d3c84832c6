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

export class Ledger {
  readonly entries: LedgerEntry[] = [];

  record(entry: Omit<LedgerEntry, 'cleanup'>, from?: Exchange): LedgerEntry {
    const e: LedgerEntry = { ...entry, cleanup: 'pending' };
    if (from && e.createdIn === undefined) e.createdIn = from.seq;
    this.entries.push(e);
    return e;
  }
}
