import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { TERMS, TERMS_BY_NAME, ERROR_CASES } from '../../src/spec/vocabulary.ts';
import { renderVocabulary, START_MARKER, END_MARKER } from '../../src/spec/vocabulary-doc.ts';
import { checkOverlay } from '../../src/spec/overlay-check.ts';
import { BASE_SPEC_PATH, loadSpec } from '../../src/spec/load.ts';
import { readDeclarations } from '../../src/spec/declarations.ts';
import { allChecks } from '../../suites/index.ts';
import { loadClauses } from '../../src/spec/clauses.ts';

const OVERLAYS = [
  'spec/overlays/reference.yaml',
  'spec/overlays/reference-alt.yaml',
  'spec/overlays/reference-claims.yaml',
  'spec/overlays/reference-quota.yaml',
];
const read = (f: string) => readFileSync(f, 'utf8');
const termsIn = (text: string) => new Set([...text.matchAll(/'(x-[a-z][a-z-]*)'/g)].map((m) => m[1]!));
const listTs = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listTs(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []
  );

/** Where the suite reads overlay terms (src/spec) and writes them (the emitted overlay). */
const CODE = [...listTs('src/spec').filter((f) => !/vocabulary/.test(f)), 'src/report/overlay.ts'];

async function overlayTerms(file: string): Promise<Record<string, number>> {
  const checked = await checkOverlay(parse(read(BASE_SPEC_PATH)), parse(read(file)));
  expect(checked.problems, file).toEqual([]);
  return checked.terms;
}

describe('spec/README.md and the vocabulary (src/spec/vocabulary.ts)', () => {
  it('agree: the reference section of spec/README.md is the vocabulary rendered (npm run vocabulary rewrites it)', () => {
    const readme = read('spec/README.md');
    const section = readme.slice(readme.indexOf(START_MARKER), readme.indexOf(END_MARKER) + END_MARKER.length);
    expect(section).toBe(renderVocabulary());
  });

  it('documents every term used in the code or in an overlay, and every term of the derived document', async () => {
    const used = new Set<string>();
    for (const f of CODE) for (const t of termsIn(read(f))) used.add(t);
    for (const f of OVERLAYS) for (const t of Object.keys(await overlayTerms(f))) used.add(t);
    for (const m of read(BASE_SPEC_PATH).matchAll(/^\s*(x-[a-z][a-z-]*):/gm)) used.add(m[1]!);
    expect([...used].filter((t) => !TERMS_BY_NAME.has(t))).toEqual([]);
  });

  it('has no term nothing uses: each declaration is read or written by the code and set by an overlay, each annotation is in the derived document', async () => {
    const code = new Set(CODE.flatMap((f) => [...termsIn(read(f))]));
    const inOverlays = new Set((await Promise.all(OVERLAYS.map(overlayTerms))).flatMap((t) => Object.keys(t)));
    const base = read(BASE_SPEC_PATH);
    for (const t of TERMS) {
      if (t.role === 'annotation') expect(base, t.name).toContain(`${t.name}:`);
      else {
        expect(code.has(t.name), `${t.name} is read or written by src/spec or src/report/overlay.ts`).toBe(true);
        // x-generated-by is written by --emit-overlay; x-audit-sort is the alternative to x-audit-order (tested below).
        if (!['x-generated-by', 'x-audit-sort'].includes(t.name))
          expect(inOverlays.has(t.name), `${t.name} is exercised by an overlay of spec/overlays`).toBe(true);
      }
    }
  });

  it('names only checks and unshown items that exist, with a meaning, a schema and an example for every term', async () => {
    const ids = new Set(allChecks.map((c) => c.id));
    const unshown = new Set((await loadClauses()).unshown.map((u) => u.id));
    for (const t of TERMS) {
      for (const c of t.checks) expect(ids, `${t.name} read by ${c}`).toContain(c);
      for (const u of t.unshown ?? []) expect(unshown, `${t.name} declares ${u}`).toContain(u);
      expect(t.meaning.length, t.name).toBeGreaterThan(10);
      expect(t.where.length, t.name).toBeGreaterThan(0);
      expect(t.example, t.name).not.toBeUndefined();
    }
  });

  it('lists every error case the suite observes, and the suite observes under no other name', () => {
    const observed = new Set(
      listTs('suites').flatMap((f) => [...read(f).matchAll(/observeErrorCase\(ctx, '([a-z-]+)'/g)].map((m) => m[1]!))
    );
    expect(observed.size).toBeGreaterThan(5);
    for (const name of observed) expect(Object.keys(ERROR_CASES), name).toContain(name);
  });
});

describe('the two reference overlays', () => {
  it('make different choices where the vocabulary offers one', async () => {
    const [ref, alt] = await Promise.all(OVERLAYS.map(async (f) => readDeclarations(await loadSpec(f))));
    expect(ref!.taskIdOnCreateVm).toEqual({ in: 'body', pointer: '/task_id' });
    expect(alt!.taskIdOnCreateVm).toEqual({ in: 'header', name: 'Location', template: '/v1/tasks/{id}' });
    expect(ref!.webhooks!.register.id).toEqual({ in: 'body', pointer: '/id' });
    expect(alt!.webhooks!.register.id).toEqual({ in: 'body', pointer: '/webhook/id' });
    expect(ref!.webhooks!.signature).toMatchObject({ scheme: 'hmac', format: 'sha256={signature}', payload: '{body}' });
    expect(alt!.webhooks!.signature).toMatchObject({
      scheme: 'hmac',
      format: 't={timestamp},v1={signature}',
      payload: '{timestamp}.{body}',
      toleranceSeconds: 300,
    });
    expect(ref!.webhooks!.retry).toEqual({ delays: [1, 1] });
    expect(alt!.webhooks!.retry).toEqual({ delays: [10, 30, 90, 270], timeoutSeconds: 2 });
    expect(alt!.webhooks!.subscriptions).toMatchObject({
      all: ['*'],
      'backup-job': ['backup.job.*'],
      test: ['webhook.test'],
    });
    expect(alt!.webhooks!.testEvent).toMatchObject({ method: 'POST', path: '/v1/webhooks/{id}/test' });
    expect(ref!.revokeKey).toMatchObject({ mode: 'current', path: '/v1/api-keys/current' });
    expect(alt!.revokeKey).toMatchObject({
      mode: 'by-id',
      path: '/v1/api-keys/{id}',
      lookup: { from: { path: '/v1/api-keys/current' }, id: { in: 'body', pointer: '/id' } },
    });
    expect(ref!.audit).toMatchObject({
      order: 'newest-first',
      fields: { actor: '/actor' },
      export: { formats: { json: 'application/json' } },
    });
    expect(alt!.audit).toMatchObject({
      order: 'oldest-first',
      fields: { actor: '/actor/api_key_id' },
      totalPointer: '/total',
      export: { formats: { jsonl: 'application/x-ndjson' } },
    });
    expect(ref!.errorCases['invalid-request']).toEqual([{ status: 400, code: 'invalid_request' }]);
    expect(alt!.errorCases['invalid-request']).toEqual([
      { status: 400, code: 'invalid_json' },
      { status: 422, code: 'validation_error' },
    ]);
    for (const d of [ref!, alt!]) expect(Object.keys(d.cleanup).sort()).toEqual(['alarm', 'backup', 'vm', 'webhook']);
    expect(alt!.cleanup.backup!.id).toEqual({ in: 'body', pointer: '/backup_id' });
    expect(alt!.cleanup.vm!.id).toEqual({ in: 'body', pointer: '/vm_id' });
  });

  it("declare the other choices: the claims overlay the reference's, the alt overlay the other", async () => {
    const [claims, alt] = await Promise.all(
      ['spec/overlays/reference-claims.yaml', 'spec/overlays/reference-alt.yaml'].map(async (f) =>
        readDeclarations(await loadSpec(f))
      )
    );
    expect(claims!.rateLimitAccounting).toEqual({ refused: 'counted', retryAfterClock: 'target', window: 'fixed' });
    expect(alt!.rateLimitAccounting).toEqual({ refused: 'free', retryAfterClock: 'wall', window: 'sliding' });
    // Beside it: where a tag filter's key ends, and the delivery timeout.
    expect(claims!.tagFilter).toEqual({ case: 'insensitive', repeated: 'all', keyEnd: 'first' });
    expect(alt!.tagFilter).toEqual({ keyEnd: 'last' });
    expect(claims!.webhooks!.retry).toEqual({ delays: [1, 1], eventIdHeader: 'X-Hook-Event', timeoutSeconds: 5 });
    const [ref] = await Promise.all(OVERLAYS.slice(0, 1).map(async (f) => readDeclarations(await loadSpec(f))));
    expect(ref!.rateLimitAccounting).toBeUndefined();
  });

  it('read the older retry form and a sorting parameter', async () => {
    const base = parse(read(BASE_SPEC_PATH));
    const overlay = {
      overlay: '1.0.0',
      info: { title: 't', version: '1' },
      actions: [
        {
          target: '$.paths',
          update: {
            '/v1/hooks': {
              post: {
                operationId: 'reg',
                'x-webhook-registration': {},
                'x-webhook-retry': { attempts: 3, 'after-seconds': 5 },
                responses: { '201': { description: 'ok' } },
              },
            },
          },
        },
        {
          target: '$.paths',
          update: {
            '/v1/log': {
              get: {
                operationId: 'log',
                'x-audit': 'search',
                'x-audit-sort': { param: 'order', 'newest-first': 'desc' },
                responses: { '200': { description: 'ok' } },
              },
            },
          },
        },
      ],
    };
    const checked = await checkOverlay(base, overlay);
    expect(checked.problems).toEqual([]);
    const d = readDeclarations({ base, merged: checked.data, overlayActions: 2 } as never);
    expect(d.webhooks!.retry).toEqual({ delays: [5, 5] });
    expect(d.audit!.sort).toEqual({ param: 'order', newestFirst: 'desc' });
  });
});
