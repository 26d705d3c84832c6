import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { readPointer } from '../../src/engine/target/discover.ts';
import { isSuccess, describe } from '../support.ts';
import { auditOf, auditProbes, field, searchAudit } from './search.ts';

/** How an export's media type is read: one JSON array, JSON Lines (one entry per line), or CSV. */
export function exportKind(mediaType: string): 'json' | 'json-lines' | 'csv' | undefined {
  const t = mediaType.toLowerCase();
  if (/ndjson|jsonl|json-lines|jsonlines|json-seq/.test(t)) return 'json-lines';
  if (/csv/.test(t)) return 'csv';
  if (/json/.test(t)) return 'json';
  return undefined;
}

/** The entries of a JSON Lines body, or the number of the first line that is not JSON. */
export function parseJsonLines(text: string): { entries: unknown[] } | { badLine: number } {
  const entries: unknown[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '' || line.trim() === '\u001e') continue;
    try {
      entries.push(JSON.parse(line.replace(/^\u001e/, '')));
    } catch {
      return { badLine: i + 1 };
    }
  }
  return { entries };
}

/** Minimal RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The audit is exportable (seed §1): each declared format parses, and holds exactly what the search finds. */
export const exportMatches: Check = {
  id: 'audit.export',
  group: 'audit',
  clauses: ['AUDIT-SEARCH-EXPORT'],
  level: 'must',
  why: { must: "the seed says the log is exportable (the export operation and formats must be declared)" },
  title: 'Audit exports parse in each declared format and match the search',
  async run(ctx) {
    const a = auditOf(ctx);
    if (!a.export) return skip('the overlay declares no audit export operation (x-audit: export)', 'declare the audit export operation (x-audit: export) in --overlay');
    if (!a.filters.result) return skip('the overlay declares no result filter, so a stable set to compare cannot be chosen', 'declare the result filter (x-audit-filters) in --overlay');
    await auditProbes(ctx);
    // Failures only: the suite's own searches succeed, so they do not change the set while it is compared.
    const filter = { [a.filters.result]: a.resultValues.failure };
    const searched = await searchAudit(ctx, filter);
    if (!searched.complete) return skip('too many failure entries to compare within the page bound', 'an organization whose audit trail holds fewer failures');
    const want = new Set(searched.entries.map((e) => String(field(a, e, 'id'))));
    const findings: string[] = [];
    for (const [format, type] of Object.entries(a.export.formats)) {
      const ex: Exchange = await ctx.call({ method: a.export.method, path: a.export.path, query: { ...filter, [a.export.formatParam]: format } });
      if (!isSuccess(ex)) return fail(`the ${format} export answered ${describe(ex)}`, [ex]);
      const kind = exportKind(type);
      let ids: string[];
      if (kind === 'json') {
        const body = ex.response!.json;
        const list = Array.isArray(body) ? body : readPointer(body, a.entriesPointer);
        if (!Array.isArray(list)) return fail(`the ${format} export (${type}) is neither a JSON array nor an object with ${a.entriesPointer}`, [ex]);
        ids = list.map((e) => String(field(a, e, 'id')));
      } else if (kind === 'json-lines') {
        const parsed = parseJsonLines(ex.response!.body);
        if ('badLine' in parsed) return fail(`the ${format} export (${type}) is not JSON Lines: line ${parsed.badLine} is not JSON`, [ex]);
        ids = parsed.entries.map((e) => String(field(a, e, 'id')));
      } else if (kind === 'csv') {
        // A CSV column is named by the id's pointer, / read as . (e.g. /id → id, /request/id → request.id).
        const column = a.fields.id.replace(/^\//, '').split('/').join('.');
        const rows = parseCsv(ex.response!.body);
        const col = rows[0]?.indexOf(column) ?? -1;
        if (col < 0) return fail(`the ${format} export has no ${column} column (header: ${rows[0]?.join(',')})`, [ex]);
        ids = rows.slice(1).filter((r) => r.length > 1).map((r) => r[col]!);
      } else {
        findings.push(`${format} (${type}) not parsed by the suite`);
        continue;
      }
      const got = new Set(ids);
      const missing = [...want].filter((id) => !got.has(id));
      const extra = [...got].filter((id) => !want.has(id));
      if (missing.length || extra.length) return fail(`the ${format} export disagrees with the search: ${missing.length} entries missing, ${extra.length} extra (search found ${want.size})`, [ex]);
      findings.push(`${format}: the same ${got.size} entries`);
    }
    return pass(findings.join('; '));
  },
};
