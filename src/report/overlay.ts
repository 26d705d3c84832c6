import { stringify } from 'yaml';
import type { RunReport } from '../engine/report.ts';

interface Action {
  target: string;
  description: string;
  update: Record<string, unknown>;
}

/**
 * What the run observed about the choices the seed leaves open, as an OpenAPI Overlay 1.0 document: an implementer
 * reviews it, commits it, and later runs with --overlay hold the target to it (drift fails at declared level).
 */
export function renderOverlay(report: RunReport): string {
  const o = report.observations;
  const actions: Action[] = [];
  const taskId = o['taskIdLocation'] as { in: 'body' | 'header'; pointer?: string; name?: string } | undefined;
  if (taskId) {
    const expr = taskId.in === 'body' ? `$response.body#${taskId.pointer}` : `$response.header.${taskId.name}`;
    actions.push({
      target: "$.paths['/v1/vms'].post.responses['2XX']",
      description: 'U-VM-CREATE-RESPONSE: where create VM puts its task id (observed)',
      update: { links: { task: { operationId: 'getTask', parameters: { id: expr } } } },
    });
  }
  const total = o['totalField'] as string | undefined;
  if (total) {
    const field = total.replace(/^\//, '').replace(/\//g, '.');
    actions.push({ target: "$.paths['/v1/vms'].get.responses['2XX']", description: "U-TOTAL-FIELD-NAME: the list's total field (observed)", update: { 'x-total-count': { required: true, field } } });
    if (!field.includes('.')) {
      actions.push({ target: '$.components.schemas.VmList', description: 'U-TOTAL-FIELD-NAME: the total is an integer', update: { required: [field], properties: { [field]: { type: 'integer', minimum: 0 } } } });
    }
  }
  const perPage = o['perPageOverMax'] as string | undefined;
  if (perPage === 'clamp' || perPage === 'reject') {
    actions.push({ target: '$.components.parameters.per_page', description: 'U-PER-PAGE-OVER-MAX (observed)', update: { 'x-per-page-over-max': perPage } });
  }
  const states = o['taskStates'] as { field?: string; seen?: string[] } | undefined;
  if (states?.field) {
    actions.push({ target: '$.components.schemas.Task', description: 'U-STATES: the state field and the values seen (terminal values are not declared: a run sees only some)', update: { 'x-state-field': states.field, 'x-observed-states': states.seen ?? [] } });
  }
  const cases = Object.fromEntries(Object.entries(o).filter(([k]) => k.startsWith('errorCase.')).map(([k, v]) => [k.slice('errorCase.'.length), v]));
  if (Object.keys(cases).length) {
    actions.push({ target: '$.info', description: 'U-ERROR-STATUS, U-ERROR-CODES, U-LIMIT-BEHAVIOUR: status and code per error case (observed)', update: { 'x-error-cases': cases } });
  }
  const doc = {
    overlay: '1.0.0',
    info: { title: `Choices observed on ${report.target.baseUrl}`, version: report.finishedAt, 'x-generated-by': `${report.tool.name} ${report.tool.version}` },
    extends: 'openapi.yaml',
    actions,
  };
  return `# Emitted by cloud-conformance --emit-overlay: review it, then pass it with --overlay to hold the target to it.\n${stringify(doc)}`;
}
