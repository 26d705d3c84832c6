import { createRequire } from 'node:module';
import type { RunReport } from '../engine/run/report.ts';
import { observedCases, type ObservedCase } from '../engine/outcome/observations.ts';

// Loaded when an overlay is emitted, not by every run.
const stringify = (doc: unknown): string =>
  (createRequire(import.meta.url)('yaml') as typeof import('yaml')).stringify(doc);

interface Action {
  target: string;
  description: string;
  update: Record<string, unknown>;
}

const asDeclared = (p: ObservedCase) => (p.code === null ? { status: p.status } : { status: p.status, code: p.code });

/**
 * What the run observed about the choices the seed leaves open, in the overlay vocabulary (spec/README.md), as an
 * OpenAPI Overlay 1.0 document: an implementer reviews it, commits it, and later runs with --overlay hold the target
 * to it (drift fails at declared level). It is always a valid overlay: its first action records the run (Overlay 1.0
 * requires at least one), even when nothing was observed.
 */
export function renderOverlay(report: RunReport): string {
  const o = report.observations;
  const generatedBy = `${report.tool.name} ${report.tool.version}, ${report.finishedAt}, seed ${report.seed}`;
  const actions: Action[] = [
    { target: '$.info', description: 'the run that emitted this overlay', update: { 'x-generated-by': generatedBy } },
    ...taskIdActions(o),
    ...totalFieldActions(o),
    ...pagingActions(o),
    ...taskStateActions(o),
    ...errorCaseActions(o),
  ];
  const doc = {
    overlay: '1.0.0',
    info: { title: `Choices observed on ${report.target.baseUrl}`, version: report.finishedAt },
    extends: 'openapi.yaml',
    actions,
  };
  const note =
    actions.length === 1
      ? '# The run observed none of the choices this overlay can declare; it records the run only.\n'
      : '';
  return `# Emitted by cloud-conformance --emit-overlay: review it, then pass it with --overlay to hold the target to it.\n${note}${stringify(doc)}`;
}

type Observations = RunReport['observations'];

/** U-VM-CREATE-RESPONSE: where create VM puts its task id, as a link to getTask. */
function taskIdActions(o: Observations): Action[] {
  const taskId = o.taskIdLocation;
  if (!taskId) return [];
  const expr = taskId.in === 'body' ? `$response.body#${taskId.pointer}` : `$response.header.${taskId.name}`;
  return [
    {
      target: "$.paths['/v1/vms'].post.responses['2XX']",
      description:
        'U-VM-CREATE-RESPONSE: where create VM puts its task id (observed; a header may hold the id, a path or a URL)',
      update: { links: { task: { operationId: 'getTask', parameters: { id: expr } } } },
    },
  ];
}

/** U-TOTAL-FIELD-NAME: the list's total field, and (a top-level one) its type in the list's schema. */
function totalFieldActions(o: Observations): Action[] {
  const total = o.totalField;
  if (!total) return [];
  const field = total.replace(/^\//, '').replace(/\//g, '.');
  const actions: Action[] = [
    {
      target: "$.paths['/v1/vms'].get.responses['2XX']",
      description: "U-TOTAL-FIELD-NAME: the list's total field (observed)",
      update: { 'x-total-count': { required: true, field } },
    },
  ];
  if (!field.includes('.')) {
    actions.push({
      target: '$.components.schemas.VmList',
      description: 'U-TOTAL-FIELD-NAME: the total is an integer',
      update: { required: [field], properties: { [field]: { type: 'integer', minimum: 0 } } },
    });
  }
  return actions;
}

/** U-PAGE-DEFAULTS and U-PER-PAGE-OVER-MAX: the first page's number, and what a per_page over the maximum does. */
function pagingActions(o: Observations): Action[] {
  const actions: Action[] = [];
  const firstPage = o.firstPage;
  if (firstPage === 0 || firstPage === 1) {
    actions.push({
      target: '$.components.parameters.page',
      description: 'U-PAGE-DEFAULTS: the number of the first page (observed)',
      update: { 'x-first-page': firstPage },
    });
  }
  const perPage = o.perPageOverMax;
  if (perPage === 'clamp' || perPage === 'reject') {
    actions.push({
      target: '$.components.parameters.per_page',
      description: 'U-PER-PAGE-OVER-MAX (observed)',
      update: { 'x-per-page-over-max': perPage },
    });
  }
  return actions;
}

/** U-STATES: the task's state field. */
function taskStateActions(o: Observations): Action[] {
  const states = o.taskStates;
  if (!states?.field) return [];
  // Terminal values are not declared: a run sees only some of them.
  return [
    {
      target: '$.components.schemas.Task',
      description: `U-STATES: the state field (observed values: ${(states.seen ?? []).join(', ') || 'none'})`,
      update: { 'x-state-field': states.field },
    },
  ];
}

/** U-ERROR-STATUS, U-ERROR-CODES, U-LIMIT-BEHAVIOUR: the status and code seen for each error case. */
function errorCaseActions(o: Observations): Action[] {
  const cases = Object.fromEntries(
    Object.entries(observedCases(o))
      .filter(([, pairs]) => pairs.length)
      .map(([name, pairs]) => [name, pairs.length === 1 ? asDeclared(pairs[0]!) : pairs.map(asDeclared)])
  );
  if (!Object.keys(cases).length) return [];
  return [
    {
      target: '$.info',
      description: 'U-ERROR-STATUS, U-ERROR-CODES, U-LIMIT-BEHAVIOUR: status and code per error case (observed)',
      update: { 'x-error-cases': cases },
    },
  ];
}
