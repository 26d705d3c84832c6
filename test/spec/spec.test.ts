import { describe, it, expect } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { BASE_SPEC_PATH, SHIPPED_OVERLAYS_DIR, applyOverlay, loadSpec } from '../../src/spec/load.ts';
import { readdirSync } from 'node:fs';
import { loadClauses } from '../../src/spec/clauses.ts';
import { readDeclarations } from '../../src/spec/declarations.ts';
import { allChecks } from '../../suites/index.ts';
import { REFERENCE_OVERLAY } from '../helpers.ts';
import { UsageError } from '../../src/spec/errors.ts';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe('the derived OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const api = await SwaggerParser.validate(BASE_SPEC_PATH);
    expect((api as { openapi: string }).openapi).toBe('3.1.0');
  });

  // A run takes these on trust (src/spec/load.ts), as it takes the base.
  it.each(readdirSync(SHIPPED_OVERLAYS_DIR).filter((f) => f.endsWith('.yaml')))(
    'stays a valid OpenAPI 3.1 document under the shipped overlay %s',
    async (file) => {
      const overlayPath = path.join(SHIPPED_OVERLAYS_DIR, file);
      const { data } = await applyOverlay(
        parse(await readFile(BASE_SPEC_PATH, 'utf8')),
        parse(await readFile(overlayPath, 'utf8')),
        overlayPath
      );
      const api = await SwaggerParser.validate(data as never);
      expect((api as { openapi: string }).openapi).toBe('3.1.0');
    }
  );

  it('has every path under /v1 (VERSION-PATH-PREFIX)', async () => {
    const { base } = await loadSpec();
    expect(Object.keys(base.paths ?? {}).every((p) => p.startsWith('/v1/'))).toBe(true);
  });

  it('marks every unshown item it mentions with an id from the clause list', async () => {
    const text = await readFile(BASE_SPEC_PATH, 'utf8');
    const { unshown } = await loadClauses();
    const known = new Set(unshown.map((u) => u.id));
    const mentioned = [...text.matchAll(/U-[A-Z0-9-]+/g)].map((m) => m[0]);
    expect(mentioned.length).toBeGreaterThan(10);
    for (const id of mentioned) expect(known, id).toContain(id);
  });

  it('states the seed limits: expires_in 3600, per_page at most 100, no required create fields', async () => {
    const { base } = await loadSpec();
    const schemas = base.components!.schemas! as Record<string, Record<string, unknown>>;
    expect((schemas['Token']!['properties'] as Record<string, { const?: number }>)['expires_in']!.const).toBe(3600);
    expect((base.components!.parameters!['per_page'] as { schema: { maximum: number } }).schema.maximum).toBe(100);
    expect(schemas['VmCreateRequest']!['required']).toBeUndefined();
  });
});

describe('the clause list', () => {
  it('gives every clause a unique id, a section and a paraphrase', async () => {
    const { clauses, unshown } = await loadClauses();
    const ids = [...clauses, ...unshown].map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of [...clauses, ...unshown]) {
      expect(c.section, c.id).toBeTruthy();
      expect(c.text, c.id).toBeTruthy();
    }
  });

  it('has every clause cited by a check, marked not checkable with a reason, or deferred to an issue', async () => {
    const { clauses } = await loadClauses();
    const cited = new Set(allChecks.flatMap((c) => c.clauses));
    const uncovered = clauses.filter((c) => !cited.has(c.id) && !(c.checkable === false && c.reason) && !c.deferred);
    expect(uncovered.map((c) => c.id)).toEqual([]);
    // A clause marked not checkable or deferred must not also be claimed by a check, or the marking is stale.
    const stale = clauses.filter((c) => cited.has(c.id) && (c.checkable === false || c.deferred));
    expect(stale.map((c) => c.id)).toEqual([]);
  });

  it('gives every check a one-line reason for the level of each of its assertions, its own level among them', () => {
    for (const check of allChecks) {
      expect(Object.keys(check.why), check.id).toContain(check.level);
      for (const [level, reason] of Object.entries(check.why)) {
        expect(['must', 'should', 'declared'], `${check.id} why.${level}`).toContain(level);
        expect(reason, `${check.id} why.${level}`).toMatch(/\S{3,}/);
        expect(reason.includes('\n'), `${check.id} why.${level} is one line`).toBe(false);
      }
      // The check's level is the highest it asserts at.
      const rank = { should: 0, declared: 1, must: 2 } as const;
      expect(Math.max(...Object.keys(check.why).map((l) => rank[l as keyof typeof rank])), check.id).toBe(
        rank[check.level]
      );
    }
  });

  // What npm run new-check leaves for the author: a check passes here only once written.
  it('is cited by every check, and no check leaves a TODO in its title or reasons', () => {
    expect(allChecks.filter((c) => c.clauses.length === 0).map((c) => c.id)).toEqual([]);
    expect(
      allChecks.filter((c) => /\bTODO\b/.test(`${c.title} ${Object.values(c.why).join(' ')}`)).map((c) => c.id)
    ).toEqual([]);
  });

  it('is cited only by ids that exist', async () => {
    const { clauses, unshown } = await loadClauses();
    const known = new Set([...clauses, ...unshown].map((c) => c.id));
    for (const check of allChecks)
      for (const id of check.clauses) expect(known, `${check.id} cites ${id}`).toContain(id);
  });
});

describe('overlays', () => {
  it('applies the reference overlay and reads its declarations', async () => {
    const spec = await loadSpec(REFERENCE_OVERLAY);
    const d = readDeclarations(spec);
    expect(d.taskIdOnCreateVm).toEqual({ in: 'body', pointer: '/task_id' });
    expect(d.totalField).toBe('total');
    expect(d.perPageOverMax).toBe('reject');
    expect(d.task.terminal).toEqual(['succeeded', 'failed']);
    expect(d.deleteVm?.path).toBe('/v1/vms/{id}');
  });

  async function overlayFile(text: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cc-overlay-'));
    const file = path.join(dir, 'overlay.yaml');
    await writeFile(file, text);
    return file;
  }

  it('refuses an overlay action that targets nothing, naming the file and the action', async () => {
    const file = await overlayFile(
      'overlay: 1.0.0\ninfo: {title: t, version: "1"}\nactions:\n  - target: $.paths["/v1/nope"]\n    update: {x-a: 1}\n'
    );
    await expect(loadSpec(file)).rejects.toThrow(UsageError);
    await expect(loadSpec(file)).rejects.toThrow(
      /overlay .*overlay\.yaml: action #1 \(target \$\.paths\["\/v1\/nope"\]\): the target matches nothing/
    );
  });

  it('refuses a document that is not an Overlay 1.0 document', async () => {
    const file = await overlayFile('openapi: 3.1.0\n');
    await expect(loadSpec(file)).rejects.toThrow(/is not an OpenAPI Overlay 1.0 document/);
  });

  it('refuses YAML that does not parse', async () => {
    const file = await overlayFile('overlay: [1.0.0\n');
    await expect(loadSpec(file)).rejects.toThrow(/is not valid YAML/);
  });

  it('parses the reference overlay as YAML with an extends pointing at the derived spec', async () => {
    const doc = parse(await readFile(REFERENCE_OVERLAY, 'utf8')) as { extends: string };
    expect(doc.extends).toBe('../openapi.yaml');
  });
});
