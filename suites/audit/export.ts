import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, type CheckOutcome } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { CsvReader, JsonLinesReader, type BodyReader } from '../../src/engine/transport/body-readers.ts';
import { isSuccess, describeExchange } from '../support.ts';
import { auditOf, auditProbes, field, locateEntries, searchAudit, unlessGuessed } from './_search.ts';

/** How an export's media type is read: one JSON array, JSON Lines (one entry per line), or CSV. */
function exportKind(mediaType: string): 'json' | 'json-lines' | 'csv' | undefined {
  const t = mediaType.toLowerCase();
  if (/ndjson|jsonl|json-lines|jsonlines|json-seq/.test(t)) return 'json-lines';
  if (/csv/.test(t)) return 'csv';
  if (/json/.test(t)) return 'json';
  return undefined;
}

/** The audit is exportable (seed §1): each declared format parses, and holds exactly what the search finds. */
async function judgeExport(ctx: CheckContext): Promise<CheckOutcome> {
  const a = auditOf(ctx);
  if (!a.export)
    return skip(
      'the overlay declares no audit export operation (x-audit: export)',
      'declare the audit export operation (x-audit: export) in --overlay'
    );
  if (!a.filters.result)
    return skip(
      'the overlay declares no result filter, so a stable set to compare cannot be chosen',
      'declare the result filter (x-audit-filters) in --overlay'
    );
  await auditProbes(ctx);
  // A failure whose audited path holds a comma: a CSV export must quote that field (RFC 4180) to keep its columns.
  await ctx.call({ method: 'GET', path: `/v1/tasks/cc-${ctx.config.runId}-csv,probe` });
  // Failures only: the suite's own searches succeed, so they do not change the set while it is compared.
  const filter = { [a.filters.result]: a.resultValues.failure };
  const searched = await searchAudit(ctx, filter);
  if (!searched.complete)
    return skip(
      'too many failure entries to compare within the page bound',
      'an organization whose audit trail holds fewer failures'
    );
  const want = new Set(searched.entries.map((e) => String(field(a, e, 'id'))));
  const findings: string[] = [];
  // A CSV column is the declared one (x-audit-csv-columns), else the id's pointer with / read as . (/request/id → request.id).
  const column = a.export.csvColumns['id'] ?? a.fields.id.replace(/^\//, '').split('/').join('.');
  for (const [format, type] of Object.entries(a.export.formats)) {
    const kind = exportKind(type);
    // Line formats are read whole as they arrive (an export of a real deployment is megabytes); JSON is parsed whole.
    const lines = kind === 'json-lines' ? new JsonLinesReader((e) => String(field(a, e, 'id'))) : undefined;
    // Rows whose field count is not the header's: a comma, quote or line break written unescaped.
    const ragged: string[][] = [];
    const csv =
      kind === 'csv'
        ? new CsvReader((row, header) => {
            if (row.length > 1 && row.length !== header.length && ragged.length < 3) ragged.push(row);
            return row.length > 1 ? row[header.indexOf(column)] : undefined;
          })
        : undefined;
    const read: BodyReader | undefined = lines ?? csv;
    const ex: Exchange = await ctx.call({
      method: a.export.method,
      path: a.export.path,
      query: { ...filter, [a.export.formatParam]: format },
      ...(read ? { read } : {}),
    });
    if (!isSuccess(ex)) return fail(`the ${format} export answered ${describeExchange(ex)}`, [ex]);
    if (ex.response!.truncated)
      return skip(
        `the ${format} export is larger than --max-body-bytes (${ctx.config.maxBodyBytes} bytes): it was not read whole`,
        `a larger --max-body-bytes (the export passed ${ex.response!.bodyBytes} bytes)`
      );
    let ids: string[];
    // Entries of a JSON object found by guess (no declaration, none of the run's own requests in them).
    let guessed = false;
    if (kind === 'json') {
      // One array, or an object that holds the entries (where declared, else found as the search's are).
      const found = locateEntries(ctx, ex.response!.json);
      if ('why' in found && (ex.response!.json === undefined || a.entriesPointer !== undefined))
        return fail(
          `the ${format} export (${type}) is neither a JSON array nor an object holding the entries: ${found.why}`,
          [ex]
        );
      if ('why' in found)
        return skip(
          `the ${format} export (${type}) is an object in which the entries cannot be told: ${found.why}`,
          'declare x-audit-entries-field on the audit search in --overlay'
        );
      guessed = !found.known;
      ids = found.list.map((e) => String(field(a, e, 'id')));
    } else if (lines) {
      const parsed = lines.result();
      if ('badLine' in parsed)
        return fail(
          `the ${format} export (${type}) is not JSON Lines: line ${parsed.badLine} is not JSON (${JSON.stringify(parsed.text.slice(0, 80))}; ${ex.response!.bodyBytes} bytes in all)`,
          [ex]
        );
      ids = parsed.entries;
    } else if (csv) {
      const { header, rows, error } = csv.result();
      if (error)
        return fail(
          `the ${format} export (${type}) is not CSV (RFC 4180): ${error}; ${ex.response!.bodyBytes} bytes in all`,
          [ex]
        );
      if (!header.includes(column))
        return fail(`the ${format} export has no ${column} column (header: ${header.join(',')})`, [ex]);
      if (ragged.length)
        return fail(
          `the ${format} export has rows of ${ragged[0]!.length} fields under a header of ${header.length} (a field with a comma, a quote or a line break written unescaped, RFC 4180), e.g. ${JSON.stringify(ragged[0]!.join(',').slice(0, 200))}`,
          [ex]
        );
      ids = rows.filter((id): id is string => id !== undefined);
    } else {
      findings.push(`${format} (${type}) not parsed by the suite`);
      continue;
    }
    const got = new Set(ids);
    const missing = [...want].filter((id) => !got.has(id));
    let extra = [...got].filter((id) => !want.has(id));
    const loggedAfter = extra.length;
    // Another client's failure (or a concurrent check's) may be logged between the search and the export: an entry
    // the export holds counts as extra only when a search made after the export does not find it either.
    if (extra.length) {
      const after = await searchAudit(ctx, filter);
      const later = new Set(after.entries.map((e) => String(field(a, e, 'id'))));
      extra = extra.filter((id) => !later.has(id));
      if (extra.length && !after.complete)
        return skip(
          `the ${format} export holds ${extra.length} entries the search did not, and the search made after it is beyond the page bound`,
          'an organization whose audit trail holds fewer failures'
        );
    }
    if ((missing.length || extra.length) && guessed)
      return skip(
        `the ${format} export disagrees with the search (${missing.length} entries missing, ${extra.length} extra), but the array read from it was a guess: it holds none of the run's own requests`,
        'declare x-audit-entries-field on the audit search in --overlay'
      );
    if (missing.length || extra.length)
      return fail(
        `the ${format} export disagrees with the search: ${missing.length} entries missing, ${extra.length} extra (search found ${want.size})`,
        [ex]
      );
    findings.push(
      `${format}: the same ${got.size} entries (${ex.response!.bodyBytes} bytes)${loggedAfter ? `, ${loggedAfter} of them logged after the search and found by a search made after the export` : ''}`
    );
  }
  return pass(findings.join('; '));
}

export const exportMatches: Check = {
  id: 'audit.export',
  group: 'audit',
  clauses: ['AUDIT-SEARCH-EXPORT'],
  level: 'must',
  why: { must: 'the seed says the log is exportable (the export operation and formats must be declared)' },
  title: 'Audit exports parse in each declared format and match the search',
  async run(ctx) {
    return unlessGuessed(ctx, await judgeExport(ctx));
  },
};
