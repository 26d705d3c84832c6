// Which declared operations are lists (seed §4: every list takes page and per_page): one that takes them. An audit
// export that answers every entry at once, in an object (ruby-webrick, python-stdlib), is no list, whatever it holds.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_OVERLAY, runAgainstReference } from '../helpers.ts';

/** The reference overlay for variant audit-events-envelope: entries under audit_events, the JSON export an object. */
function overlayWithExportObject(): string {
  const text = readFileSync(REFERENCE_OVERLAY, 'utf8');
  const array = "                  schema: { type: array, items: { $ref: '#/components/schemas/AuditEntry' } }\n";
  expect(text).toContain(array);
  const object =
    '                  schema: { type: object, properties: { audit_events: { type: array }, total_count: { type: integer } } }\n';
  const file = join(mkdtempSync(join(tmpdir(), 'cc-export-object-')), 'export-object.yaml');
  const entries = 'x-audit-entries-field: entries';
  expect(text).toContain(entries);
  writeFileSync(file, text.replace(array, () => object).replace(entries, 'x-audit-entries-field: audit_events'));
  return file;
}

describe('pagination.declared-lists', () => {
  it('judges the lists that take page and per_page, not an export that answers every entry in one object', async () => {
    const report = await runAgainstReference({
      variants: ['audit-events-envelope'],
      overlay: overlayWithExportObject(),
      only: ['pagination', 'audit'],
    });
    const check = report.checks.find((c) => c.id === 'pagination.declared-lists')!;
    expect(check.status).toBe('passed');
    expect(check.message).toMatch(/listWebhooks: /);
    expect(check.message).not.toMatch(/exportAudit/);
    expect(report.checks.find((c) => c.id === 'audit.export')?.status).toBe('passed');
  });
});
