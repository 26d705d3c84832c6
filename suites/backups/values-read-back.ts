import type { Check, Finding } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import { vmsOf } from '../../src/engine/target/run-objects.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import { backupOnVm, describeExchange, documentedRefusal, isSuccess, ownDescription } from '../support.ts';
import { judgeField, objectWith, recordView, type Reading, type View } from '../read-back.ts';
import { backupIdOf } from '../own-backup.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A description of 120 characters with commas, quotes, a semicolon and letters beyond ASCII. */
export function longDescription(runId: string): string {
  const stem = `cc-${runId}-read-back two: "quoted", commas, a semicolon; Zürich café, `;
  return (stem + 'x'.repeat(120)).slice(0, 120);
}

/** Fields a backup's answer names its VM by, in the spellings targets use. */
const VM_FIELD = /^(vm|vm_?id|source_?vm(_?id)?|instance_?id)$/i;

/** The VM a backup's answer names: a string, a resource name ending in the id, or an object with an id. */
export function namedVm(record: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(record)) {
    if (!VM_FIELD.test(k)) continue;
    if (typeof v === 'string') return v;
    if (isRecord(v) && typeof v['id'] === 'string') return v['id'];
  }
  return undefined;
}

/** Whether a named VM is `id`: the id itself, or a resource name that ends in it (vms/<id>). */
const names = (value: string, id: string) => value === id || value.endsWith(`/${id}`);

/**
 * BACKUP-CREATE, "a backup of that VM": an answer that names the backup's VM as another VM of the organization (one
 * the list or the run's ledger knows) breaks it. A VM named in a form the run cannot match to an id is not judged.
 */
async function otherVmNamed(ctx: CheckContext, vmId: string, views: readonly View[]): Promise<Finding | undefined> {
  const named = views.flatMap((view) => {
    const value = namedVm(view.record);
    return value !== undefined && !names(value, vmId) ? [{ view, value }] : [];
  });
  if (named.length === 0) return undefined;
  const listed = await ctx.call({ method: 'GET', path: '/v1/vms', query: { per_page: 100 } });
  const known = new Set(
    [
      ...vmsOf(listed).map((v) => v['id']),
      ...ctx.ledger.entries.filter((e) => e.kind === 'vm').map((e) => e.id),
    ].filter((id): id is string => typeof id === 'string' && id !== vmId)
  );
  const wrong = named.find((n) => [...known].some((id) => names(n.value, id)));
  if (!wrong) return undefined;
  return finding(
    'must',
    `a backup started at POST /v1/vms/${vmId}/backups is of another VM of the organization: ${wrong.view.source} names ${JSON.stringify(wrong.value)}`,
    [wrong.view.ex, listed]
  );
}

/**
 * Values read back: the description each backup was started with is what the target later shows under
 * that name: in the start answer, or the backup's record (a declared GET /v1/backups/{id}, else that path tried). Two
 * backups with different descriptions, so a dropped description cannot hide behind a default that happens to match;
 * and the VM an answer names is the one in the path.
 */
export const backupValuesReadBack: Check = {
  id: 'backups.values-read-back',
  group: 'backups',
  clauses: ['BACKUP-CREATE', 'BACKUP-CREATE-FIELDS'],
  level: 'must',
  why: {
    must: 'the seed says a backup is started with a description: an answer that shows the backup under that name must show what was sent',
  },
  title: 'The description a backup was started with, and the VM it was started on, are what the target later shows',
  async run(ctx) {
    const vmId = await ctx.objects.createdVmId();
    // The second of other classes than the first: 120 characters (past a 64- or 100-character cut), punctuation, quotes
    // and letters beyond ASCII. A target may refuse it (a length or character rule is its own); taken, it must read back.
    const sent = [ownDescription(ctx, 'read-back one'), longDescription(ctx.config.runId)];
    const readings: Reading[] = [];
    const refused: string[] = [];
    const broken: Exchange[] = [];
    const allViews: View[] = [];
    for (const description of sent) {
      const ex = await backupOnVm(ctx, vmId, { json: { description } });
      if (!isSuccess(ex)) {
        if ((ex.response?.status ?? 500) >= 500) broken.push(ex);
        refused.push(`${JSON.stringify(description)}: ${documentedRefusal(ex) ?? describeExchange(ex)}`);
        continue;
      }
      ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}, description read back` }, ex);
      const views: View[] = [];
      const answer =
        objectWith(ex.response?.json, 'description', description) ??
        (isRecord(ex.response?.json) && 'description' in ex.response!.json ? ex.response!.json : undefined);
      if (answer) views.push({ source: 'the start answer', record: answer, ex });
      const id = backupIdOf(ex.response?.json) ?? (typeof answer?.['id'] === 'string' ? answer['id'] : undefined);
      if (id) {
        const record = await recordView(ctx, 'backups', id);
        if (record) views.push(record);
      }
      readings.push(
        ...views.map((view) => ({
          of: `the backup started with ${JSON.stringify(description)}`,
          sent: description,
          view,
          shown: view.record['description'],
        }))
      );
      allViews.push(...views);
    }
    if (broken.length)
      return judge([finding('must', `starting a backup answered ${describeExchange(broken[0]!)}`, broken)], '');
    if (readings.length === 0) {
      return skip(
        refused.length
          ? `no backup could be started (${refused.join('; ')}), so no description can be read back`
          : 'no answer shows a started backup (neither the start answer nor GET /v1/backups/{id})',
        'a backup the target starts, and an answer that shows it (the start answer or its record)'
      );
    }
    const ofOther = await otherVmNamed(ctx, vmId, allViews);
    const v = judgeField('description', 'string', readings);
    if (v.status === 'not-shown' && !ofOther)
      return skip(
        `no answer shows a backup's description: ${v.note}`,
        'a start answer or backup record (GET /v1/backups/{id}) that shows the description'
      );
    const sources = [...new Set(readings.map((r) => r.view.source))].join(', ');
    const findings = [
      ...(ofOther ? [ofOther] : []),
      ...(v.status === 'failed' ? [finding('must', `description: ${v.note}`, v.evidence)] : []),
    ];
    return judge(
      findings,
      `read back from ${sources}: ${v.note}${refused.length ? ` (refused: ${refused.join('; ')})` : ''}`,
      [],
      { verdict: { status: v.status, note: v.note } }
    );
  },
};
