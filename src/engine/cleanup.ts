import type { Declarations, ResourceKind } from '../spec/declarations.ts';
import type { CallOptions } from './context.ts';
import type { Exchange } from './exchange.ts';
import { isSuccess, statusText } from './exchange.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import { readLocation } from './discover.ts';
import { vmsOf } from './fixtures.ts';

type Call = (o: CallOptions) => Promise<Exchange>;

/** The id of what an exchange created, where the overlay says its delete operation finds it (x-cleanup-for + link). */
export function createdId(declarations: Declarations, kind: ResourceKind, ex: Exchange | undefined): string | undefined {
  const loc = declarations.cleanup[kind]?.id;
  if (!ex || !loc) return undefined;
  const v = readLocation(ex, loc);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

// Children before parents: an alarm or a backup may hold its VM.
const ORDER: ResourceKind[] = ['alarm', 'webhook', 'backup'];

/**
 * Deletes what the run created, wherever the overlay declares a delete operation for its kind; otherwise leaves a
 * note in the ledger. Ids come from the entry, else from its creating exchange (found in the log by its seq).
 */
export async function cleanup(declarations: Declarations, ledger: Ledger, log: readonly Exchange[], call: Call): Promise<void> {
  const bySeq = new Map(log.map((ex) => [ex.seq, ex]));
  for (const kind of ORDER) {
    const del = declarations.cleanup[kind];
    for (const e of ledger.entries.filter((x) => x.kind === kind && x.cleanup === 'pending')) {
      if (!del) {
        e.cleanup = 'not-declared';
        e.note ??= `the overlay declares no delete operation for a ${kind} (x-cleanup-for)`;
        continue;
      }
      e.id ??= createdId(declarations, kind, e.createdIn !== undefined ? bySeq.get(e.createdIn) : undefined);
      await deleteOne(e, del, call);
    }
  }
  for (const e of ledger.entries.filter((x) => x.kind !== 'vm' && x.cleanup === 'pending')) {
    e.cleanup = 'not-declared';
    e.note ??= 'nothing deletes it';
  }
  const vms = ledger.entries.filter((e) => e.kind === 'vm' && e.cleanup === 'pending');
  if (vms.length === 0) return;
  const del = declarations.cleanup.vm;
  if (!del) {
    for (const e of vms) {
      e.cleanup = 'not-declared';
      e.note = 'the seed shows no delete operation and the overlay declares none';
    }
    return;
  }
  const missing = vms.filter((e) => !e.id);
  if (missing.length) {
    // Learn ids by name from the list (bounded walk at the maximum page size).
    for (let page = 1; page <= 20 && missing.some((e) => !e.id); page++) {
      const ex = await call({ method: 'GET', path: '/v1/vms', query: { page, per_page: 100 } });
      const items = vmsOf(ex);
      for (const item of items) {
        const entry = missing.find((e) => e.name === item['name'] && typeof item['id'] === 'string');
        if (entry) entry.id = item['id'] as string;
      }
      if (!isSuccess(ex) || items.length < 100) break;
    }
  }
  for (const e of vms) {
    if (!e.id) {
      e.cleanup = 'delete-failed';
      e.note = 'its id could not be found in the list';
      continue;
    }
    await deleteOne(e, del, call);
  }
}

async function deleteOne(e: LedgerEntry, del: { method: string; path: string }, call: Call): Promise<void> {
  if (!e.id) {
    e.cleanup = 'delete-failed';
    e.note = `${e.note ? `${e.note}; ` : ''}its id was not where the overlay says (the link to ${del.method} ${del.path})`;
    return;
  }
  const ex = await call({ method: del.method, path: del.path.replace('{id}', encodeURIComponent(e.id)) });
  e.cleanup = isSuccess(ex) ? 'deleted' : 'delete-failed';
  if (!isSuccess(ex)) e.note = `delete answered ${statusText(ex)}`;
}
