/** What the run created on the target, for the report and for cleanup. */
export interface LedgerEntry {
  kind: 'vm' | 'backup' | 'webhook' | 'alarm' | 'api-key-revoked';
  /** The id, when the target revealed it. */
  id?: string;
  name?: string;
  createdBy: string;
  cleanup: 'deleted' | 'delete-failed' | 'not-declared' | 'pending';
  note?: string;
}

export class Ledger {
  readonly entries: LedgerEntry[] = [];

  record(entry: Omit<LedgerEntry, 'cleanup'>): LedgerEntry {
    const e: LedgerEntry = { ...entry, cleanup: 'pending' };
    this.entries.push(e);
    return e;
  }
}
