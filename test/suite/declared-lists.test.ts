// Which declared operations are lists (seed §4: every list takes page and per_page): one that takes them. An audit
// export that answers every entry at once, in an object (ruby-webrick, python-stdlib), is no list, whatever it holds.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { declaredLists } from '../../suites/pagination/declared-lists.ts';
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

/** A declared list (GET /v1/things, paged) whose items grow by one at the given reads (counted from 1). */
function growing(growAt: number[]): CheckContext {
  let reads = 0;
  let size = 22;
  const paged = [
    { name: 'page', in: 'query', schema: { type: 'integer' } },
    { name: 'per_page', in: 'query', schema: { type: 'integer' } },
  ];
  const ok = {
    content: { 'application/json': { schema: { type: 'object', properties: { things: { type: 'array' } } } } },
  };
  return {
    spec: {
      merged: {
        paths: { '/v1/things': { get: { operationId: 'listThings', parameters: paged, responses: { '200': ok } } } },
      },
    },
    declarations: { firstPage: 1 },
    call: async (o: { query: { page: number; per_page: number } }): Promise<Exchange> => {
      if (growAt.includes(++reads)) size++;
      const { page, per_page: perPage } = o.query;
      // Oldest first: a new item joins the end, and the total counts it.
      const things = Array.from({ length: size }, (_, i) => ({ id: `t-${i + 1}` })).slice(
        (page - 1) * perPage,
        page * perPage
      );
      const json = { things: perPage > 100 ? [] : things, total: size };
      return {
        seq: reads,
        sentBy: 't',
        request: { method: 'GET', url: `http://t/v1/things?page=${page}&per_page=${perPage}`, headers: {} },
        response: { status: perPage > 100 ? 400 : 200, headers: {}, body: JSON.stringify(json), json },
        startedAt: '',
        durationMs: 0,
      };
    },
  } as unknown as CheckContext;
}

describe('pagination.declared-lists on a list that moves', () => {
  it('does not judge the total of a walk during which the list grew (tasks the run starts meanwhile)', async () => {
    // Reads 1-2 see it still; it grows during the walk that follows.
    const outcome = await declaredLists.run(growing([7]));
    expect(outcome).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/the list moved while it was walked/),
    });
  });

  it('fails a total that disagrees with a walk of a list that stood still', async () => {
    const ctx = growing([]);
    const call = ctx.call.bind(ctx);
    // The total counts one item the pages never show.
    (ctx as { call: CheckContext['call'] }).call = async (o) => {
      const ex = await call(o);
      (ex.response!.json as { total: number }).total++;
      return ex;
    };
    const outcome = await declaredLists.run(ctx);
    expect(outcome).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/the total says 23, a walk .* found 22/),
    });
  });
});
