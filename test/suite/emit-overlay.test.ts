import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { renderOverlay } from '../../src/report/overlay.ts';
import { loadSpec, lintOverlay } from '../../src/spec/load.ts';
import { readDeclarations } from '../../src/spec/declarations.ts';
import type { RunReport } from '../../src/engine/run/report.ts';
import { runAgainstReference, type ReferenceRun } from '../helpers.ts';

const GROUPS = ['auth', 'vms', 'tasks', 'pagination', 'errors', 'security', 'schema'];

/** Emits the run's overlay to a file and checks it against the vocabulary, as overlay check would. */
async function emitted(report: RunReport): Promise<{
  file: string;
  overlay: { overlay: string; actions: Array<{ target: string; update: Record<string, unknown> }> };
}> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-emit-'));
  const file = path.join(dir, 'observed.yaml');
  writeFileSync(file, renderOverlay(report));
  const lint = await lintOverlay(file);
  expect(lint.problems).toEqual([]);
  return { file, overlay: parse(readFileSync(file, 'utf8')) };
}

/** Runs, emits, feeds the overlay back: the verdict and every check below declared level are unchanged. */
async function roundTrip(run: ReferenceRun): Promise<{
  first: RunReport;
  second: RunReport;
  file: string;
  overlay: Awaited<ReturnType<typeof emitted>>['overlay'];
}> {
  const first = await runAgainstReference(run);
  const { file, overlay } = await emitted(first);
  const second = await runAgainstReference({ ...run, overlay: file });
  expect(second.verdict).toBe(first.verdict);
  const statuses = (r: RunReport) => r.checks.filter((c) => c.level !== 'declared').map((c) => `${c.id}:${c.status}`);
  expect(statuses(second)).toEqual(statuses(first));
  return { first, second, file, overlay };
}

describe('--emit-overlay', () => {
  it('writes what a run without an overlay discovered, in the vocabulary; fed back it gives the same verdict', async () => {
    const { first, second, file, overlay } = await roundTrip({ only: GROUPS });
    expect(first.verdict).toBe('conformant');
    expect(overlay.overlay).toBe('1.0.0');
    expect(overlay.actions.map((a) => a.target)).toEqual(
      expect.arrayContaining([
        "$.paths['/v1/vms'].post.responses['2XX']",
        '$.components.parameters.per_page',
        '$.components.parameters.page',
        '$.info',
      ])
    );
    const declared = readDeclarations(await loadSpec(file));
    expect(declared.taskIdOnCreateVm).toEqual({ in: 'body', pointer: '/task_id' });
    expect(declared.totalField).toBe('total');
    expect(declared.perPageOverMax).toBe('reject');
    expect(declared.firstPage).toBe(1);
    expect(declared.errorCases['not-found']).toEqual([{ status: 404, code: 'not_found' }]);
    expect(second.checks.find((c) => c.id === 'schema.declared-choices')?.status).toBe('passed');
  });

  it('writes a valid overlay when the run observed nothing (Overlay 1.0 needs an action: it records the run)', async () => {
    const { overlay, second } = await roundTrip({ only: ['versioning'] });
    expect(overlay.actions).toHaveLength(1);
    expect(overlay.actions[0]).toMatchObject({
      target: '$.info',
      update: { 'x-generated-by': expect.stringContaining('cloud-api-conformance') },
    });
    expect(second.verdict).toBe('conformant');
  });

  it('round-trips a variant: a task id found only in a Location path is emitted as $response.header and read back as a path', async () => {
    const { first, second, file } = await roundTrip({
      only: ['vms', 'tasks', 'backups'],
      variants: ['task-location-only', 'validation-422'],
    });
    expect(first.verdict).toBe('conformant');
    const declared = readDeclarations(await loadSpec(file));
    expect(declared.taskIdOnCreateVm).toEqual({ in: 'header', name: 'location', template: '/v1/tasks/{id}' });
    expect(second.checks.find((c) => c.id === 'vms.create-returns-task')?.message).toMatch(
      /header location.*\(declared\)/
    );
  });

  it('round-trips a task named by a resource name: emitted as the field that holds operations/<id>, read back as the task it names', async () => {
    const { first, second, file } = await roundTrip({
      only: ['vms', 'tasks'],
      variants: ['task-id-operation-name', 'task-record-lro'],
    });
    expect(first.verdict).toBe('conformant');
    expect(readDeclarations(await loadSpec(file)).taskIdOnCreateVm).toEqual({ in: 'body', pointer: '/operation/name' });
    expect(second.checks.find((c) => c.id === 'vms.create-returns-task')?.message).toMatch(
      /body \/operation\/name \(declared\)/
    );
  });

  it('emits every status/code pair seen for a case as a list', async () => {
    const { overlay } = await roundTrip({ only: ['auth', 'errors'], variants: ['validation-422'] });
    const cases = overlay.actions.find((a) => a.update['x-error-cases'])!.update['x-error-cases'] as Record<
      string,
      unknown
    >;
    expect(cases['invalid-request']).toEqual(
      expect.arrayContaining([
        { status: 422, code: 'validation_error' },
        { status: 400, code: 'invalid_json' },
      ])
    );
  });
});
