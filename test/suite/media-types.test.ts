// A response is validated against the schema of its own media type: an export declared as JSON and as JSON Lines
// (ruby-webrick, node-fastify, java-httpserver) answers JSON Lines, which no JSON schema holds.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ALT_VARIANTS } from '../../fixtures/reference/variants.ts';
import { ALT_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { mediaFor } from '../../src/engine/schema/schema.ts';
import { runAgainstReference } from '../helpers.ts';

const content: Record<string, OpenAPIV3_1.MediaTypeObject> = {
  'application/json': { schema: { type: 'object' } },
  'application/x-ndjson': { schema: { type: 'string' } },
  'application/problem+json': { schema: { type: 'object', required: ['title'] } },
  'text/*': { schema: { type: 'string' } },
};

describe('mediaFor: the schema a response is held to', () => {
  it.each([
    ['application/json; charset=utf-8', content['application/json']],
    ['application/problem+json', content['application/problem+json']],
    ['application/x-ndjson', undefined],
    ['text/csv', undefined],
    ['application/vnd.other+json', content['application/json']],
    ['', content['application/json']],
  ])('%j: its own type, JSON only; an undeclared type the JSON one', (type, want) =>
    expect(mediaFor(content, type)).toBe(want)
  );
});

/** The second overlay with the export also declaring a JSON object (as the members that offer json do). */
function overlayWithJsonExport(): string {
  const text = readFileSync(ALT_OVERLAY, 'utf8');
  const lines = '                application/x-ndjson:\n                  schema: { type: string }\n';
  expect(text).toContain(lines);
  const json = '                application/json:\n                  schema: { type: object, required: [entries] }\n';
  const file = join(mkdtempSync(join(tmpdir(), 'cc-media-')), 'json-and-lines.yaml');
  writeFileSync(
    file,
    text.replace(lines, () => json + lines)
  );
  return file;
}

describe('schema.declared-responses', () => {
  it('holds a JSON Lines export to its own media type, not to the JSON schema declared beside it', async () => {
    const report = await runAgainstReference({
      overlay: overlayWithJsonExport(),
      variants: [...ALT_VARIANTS],
      only: ['audit', 'schema'],
    });
    expect(report.checks.find((c) => c.id === 'audit.export')?.status).toBe('passed');
    expect(report.checks.find((c) => c.id === 'schema.declared-responses')?.status).toBe('passed');
  });
});
