import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { renderOverlay } from '../../src/report/overlay.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { readDeclarations } from '../../src/spec/declarations.ts';
import { runAgainstReference } from '../helpers.ts';

const GROUPS = ['auth', 'vms', 'tasks', 'pagination', 'errors', 'security', 'schema'];

describe('--emit-overlay', () => {
  it('writes what a run without an overlay discovered, and fed back it gives the same verdict', async () => {
    const first = await runAgainstReference({ only: GROUPS });
    expect(first.verdict).toBe('conformant');
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-emit-'));
    // The emitted document extends openapi.yaml; a copy of it beside the overlay keeps it self-contained.
    const file = path.join(dir, 'observed.yaml');
    writeFileSync(file, renderOverlay(first));
    const overlay = parse(readFileSync(file, 'utf8')) as { overlay: string; actions: Array<{ target: string }> };
    expect(overlay.overlay).toBe('1.0.0');
    expect(overlay.actions.map((a) => a.target)).toEqual(expect.arrayContaining(["$.paths['/v1/vms'].post.responses['2XX']", '$.components.parameters.per_page', '$.info']));

    const declared = readDeclarations(await loadSpec(file));
    expect(declared.taskIdOnCreateVm).toEqual({ in: 'body', pointer: '/task_id' });
    expect(declared.totalField).toBe('total');
    expect(declared.perPageOverMax).toBe('reject');
    expect(declared.errorCases['not-found']).toEqual([{ status: 404, code: 'not_found' }]);

    const second = await runAgainstReference({ only: GROUPS, overlay: file });
    expect(second.verdict).toBe(first.verdict);
    expect(second.checks.find((c) => c.id === 'schema.declared-choices')?.status).toBe('passed');
    const statuses = (r: typeof first) => r.checks.filter((c) => c.level !== 'declared').map((c) => `${c.id}:${c.status}`);
    expect(statuses(second)).toEqual(statuses(first));
  });
});
