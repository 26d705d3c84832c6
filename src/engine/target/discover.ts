import type { ValueLocation, TaskDeclaration } from '../../spec/declarations.ts';
import type { Exchange } from '../transport/exchange.ts';

/** Reads a JSON pointer (RFC 6901) from a value. */
export function readPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return value;
  let cur: unknown = value;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * The id in a header value that may be the bare id, a path or a URL: for a path or URL, the segment that the linked
 * operation's path template (e.g. /v1/tasks/{id}) puts its parameter in, the template matched against the path's end
 * (a base path before it is allowed). A path the template does not match names no id.
 */
export function idFromHeaderValue(value: string, template?: string): string | undefined {
  if (!template || !value.includes('/')) return value;
  let pathname: string;
  try {
    pathname = new URL(value, 'http://relative.invalid').pathname;
  } catch {
    return undefined;
  }
  const got = pathname.split('/').filter(Boolean);
  const want = template.split('/').filter(Boolean);
  if (got.length < want.length) return undefined;
  const tail = got.slice(got.length - want.length);
  let id: string | undefined;
  for (const [i, w] of want.entries()) {
    if (/^\{[^}]+\}$/.test(w)) {
      try {
        id = decodeURIComponent(tail[i]!);
      } catch {
        return undefined;
      }
    } else if (w !== tail[i]) return undefined;
  }
  return id;
}

export function readLocation(ex: Exchange, loc: ValueLocation): unknown {
  let v: unknown;
  if (loc.in === 'header') {
    const h = ex.response?.headers[loc.name.toLowerCase()];
    v = h === undefined ? undefined : idFromHeaderValue(h, loc.template);
  } else v = readPointer(ex.response?.json, loc.pointer);
  return loc.claim === undefined ? v : tokenClaim(v, loc.claim);
}

/** A claim of a JWT, from its payload or else its protected header, read without verifying it (undefined otherwise). */
export function tokenClaim(token: unknown, claim: string): unknown {
  if (typeof token !== 'string') return undefined;
  const parts = token.replace(/^Bearer\s+/i, '').split('.');
  if (parts.length !== 3) return undefined;
  for (const part of [parts[1]!, parts[0]!]) {
    try {
      const json = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (json && typeof json === 'object' && claim in json) return json[claim];
    } catch {
      // Not JSON: not a JWT part.
    }
  }
  return undefined;
}

export function describeLocation(loc: ValueLocation): string {
  const at =
    loc.in === 'header' ? `header ${loc.name}${loc.template ? ` (as ${loc.template})` : ''}` : `body ${loc.pointer}`;
  return loc.claim === undefined ? at : `claim ${loc.claim} of the token at ${at}`;
}

export interface Candidate {
  location: ValueLocation;
  value: unknown;
}

const TASK_PATH = /\/v\d+\/tasks\/([^/?#\s>]+)/;
const TASK_WORDS = /task|operation|job/i;
/** A value that could be an opaque identifier: one token, not a path, a URL or a sentence. */
const ID_LIKE = /^[^\s/]{1,200}$/;
/** Fallback candidates confirmed at most (each costs a GET). */
const MAX_FALLBACK = 6;

/** Collections whose members are tasks, as resource names and URLs name them (operations/<id>, jobs/<id>). */
const TASK_COLLECTION = /^(tasks?|operations?|jobs?)$/i;

/** The path segments of a resource name or URL: operations/x, projects/p/tasks/x, https://host/v1/operations/x. */
function segmentsOf(value: string): string[] | undefined {
  if (!value.includes('/') || /\s/.test(value.trim())) return undefined;
  let path = value.trim();
  // An absolute URL, or a full resource name (//service.example.com/projects/p/operations/x): its path alone.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || path.startsWith('//')) {
    try {
      path = new URL(path, 'http://relative.invalid').pathname;
    } catch {
      return undefined;
    }
  }
  return path
    .replace(/[?#].*$/, '')
    .split('/')
    .filter(Boolean);
}

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

/**
 * The task a resource name or URL names as a member of a task collection (operations/<id>, tasks/<id>,
 * https://host/v1/operations/<id>): its last segment. Anything else names no task.
 */
export function taskIdInName(value: string): string | undefined {
  const segments = segmentsOf(value);
  if (!segments || segments.length < 2) return undefined;
  return TASK_COLLECTION.test(segments[segments.length - 2]!) ? decoded(segments[segments.length - 1]!) : undefined;
}

/** The last segment of a value that is a path, resource name or URL (under a task-named field it is the likeliest id). */
export function lastSegment(value: string): string | undefined {
  const segments = segmentsOf(value);
  return segments && segments.length > 1 ? decoded(segments[segments.length - 1]!) : undefined;
}

/** The task id a value names: itself, or the id in a task path, resource name or URL it holds (/v1/tasks/{id}, operations/{id}). */
export function taskIdIn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = TASK_PATH.exec(value);
  return m ? decodeURIComponent(m[1]!) : (taskIdInName(value) ?? value);
}

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Where might a create response carry its task id? The seed does not say, so every plausible place is a
 * candidate, most likely first: task-named fields and task objects up to four levels deep (a path-like value there by
 * its last segment first), the body itself when it is a task, headers holding a task path or named after a task, task
 * paths and resource names of a task collection in any body string (links, "operations/<id>", a URL), and at last
 * other id-like strings (an "action_id"). The caller verifies each through GET /v1/tasks/{id}.
 */
export function taskIdCandidates(ex: Exchange): Candidate[] {
  const named: Candidate[] = [];
  const linked: Candidate[] = [];
  const other: Candidate[] = [];
  const body = ex.response?.json;
  const visit = (obj: unknown, pointer: string, depth: number) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj) || depth > 3) return;
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      const p = `${pointer}/${escapePointer(k)}`;
      // A task path, or a resource name or URL whose collection is a task's (operations/<id>): the id is its last segment.
      if (typeof v === 'string' && (TASK_PATH.test(v) || taskIdInName(v) !== undefined))
        linked.push({ location: { in: 'body', pointer: p }, value: taskIdIn(v) });
      else if (TASK_WORDS.test(k)) {
        // Under a task-named field, a path-like value's last segment before the value itself (a resource name, a URL).
        const tail = typeof v === 'string' ? lastSegment(v) : undefined;
        if (tail !== undefined) named.push({ location: { in: 'body', pointer: p }, value: tail });
        if (typeof v === 'string' || typeof v === 'number')
          named.push({ location: { in: 'body', pointer: p }, value: v });
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          const id = (v as Record<string, unknown>)['id'];
          if (id !== undefined) named.push({ location: { in: 'body', pointer: `${p}/id` }, value: id });
        }
      } else if (typeof v === 'string' && ID_LIKE.test(v))
        other.push({ location: { in: 'body', pointer: p }, value: v });
      if (v && typeof v === 'object') visit(v, p, depth + 1);
    }
  };
  visit(body, '', 0);
  // The body may be the task itself: { id, status }.
  if (
    body &&
    typeof body === 'object' &&
    'id' in body &&
    /status|state|phase|done/i.test(Object.keys(body).join(' '))
  ) {
    named.push({ location: { in: 'body', pointer: '/id' }, value: (body as Record<string, unknown>)['id'] });
  }
  const headers: Candidate[] = [];
  const all = ex.response?.headers ?? {};
  const known = ['location', 'operation-location', 'content-location', 'azure-asyncoperation'];
  for (const h of [
    ...known,
    ...Object.keys(all)
      .filter((h) => !known.includes(h))
      .sort(),
  ]) {
    const v = all[h];
    if (!v) continue;
    if (TASK_PATH.test(v) || taskIdInName(v) !== undefined)
      headers.push({ location: { in: 'header', name: h }, value: taskIdIn(v) });
    // A header named after the task that holds a bare id (X-Task-Id).
    else if (TASK_WORDS.test(h) && ID_LIKE.test(v.trim()))
      headers.push({ location: { in: 'header', name: h }, value: v.trim() });
  }
  // Id-like fields first among the rest: "action_id" before a name or an image.
  other.sort(
    (a, b) => Number(/id$/i.test(describeLocation(b.location))) - Number(/id$/i.test(describeLocation(a.location)))
  );
  return [...named, ...headers, ...linked, ...other.slice(0, MAX_FALLBACK)];
}

const SUCCESS_WORDS = new Set([
  'succeeded',
  'success',
  'successful',
  'completed',
  'complete',
  'done',
  'finished',
  'ok',
]);
const FAILURE_WORDS = new Set([
  'failed',
  'failure',
  'error',
  'errored',
  'cancelled',
  'canceled',
  'aborted',
  'rejected',
  'timed_out',
  'timeout',
  'expired',
]);
const STATE_KEYS = ['status', 'state', 'phase', 'stage', 'task_status', 'taskStatus'];

export interface TaskState {
  field?: string;
  value?: string;
  terminal: boolean;
  success?: boolean;
  /** True when the state vocabulary came from the overlay. */
  declared: boolean;
}

/** Reads a task's state, by the overlay's declaration or by recognising a common vocabulary. */
export function readTaskState(body: unknown, decl: TaskDeclaration): TaskState {
  if (!body || typeof body !== 'object') return { terminal: false, declared: false };
  const obj = body as Record<string, unknown>;
  if (decl.stateField && decl.terminal) {
    const value = readPointer(obj, '/' + decl.stateField.replace(/\./g, '/'));
    const v = typeof value === 'string' ? value : undefined;
    const terminal = v !== undefined && decl.terminal.includes(v);
    const success = terminal ? (decl.success ? decl.success.includes(v!) : undefined) : undefined;
    return { field: decl.stateField, value: v, terminal, success, declared: true };
  }
  const containers: Record<string, unknown>[] = [obj];
  for (const k of ['task', 'data', 'operation']) {
    const inner = obj[k];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) containers.push(inner as Record<string, unknown>);
  }
  for (const c of containers) {
    for (const key of STATE_KEYS) {
      const v = c[key];
      if (typeof v !== 'string') continue;
      const word = v.toLowerCase();
      if (SUCCESS_WORDS.has(word)) return { field: key, value: v, terminal: true, success: true, declared: false };
      if (FAILURE_WORDS.has(word)) return { field: key, value: v, terminal: true, success: false, declared: false };
      return { field: key, value: v, terminal: false, declared: false };
    }
    for (const key of ['done', 'completed', 'finished']) {
      if (c[key] === true)
        return { field: key, value: 'true', terminal: true, success: c['error'] ? false : true, declared: false };
      if (c[key] === false) return { field: key, value: 'false', terminal: false, declared: false };
    }
  }
  return { terminal: false, declared: false };
}

interface TotalCandidate {
  pointer: string;
  value: number;
}

/** Integer fields whose name says "total" or "count", up to three levels deep: where the list's total may sit. */
function totalCandidates(body: unknown): TotalCandidate[] {
  const out: TotalCandidate[] = [];
  const visit = (obj: unknown, pointer: string, depth: number) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj) || depth > 2) return;
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      if (typeof v === 'number' && Number.isInteger(v) && /total|count/i.test(k))
        out.push({ pointer: `${pointer}/${k}`, value: v });
      else if (v && typeof v === 'object' && !Array.isArray(v)) visit(v, `${pointer}/${k}`, depth + 1);
    }
  };
  visit(body, '', 0);
  // Prefer names that say total over names that say count (count may be the page's count).
  return out.sort((a, b) => Number(/total/i.test(b.pointer)) - Number(/total/i.test(a.pointer)));
}

/** Response headers that carry a list's total count by common convention. */
const TOTAL_HEADERS = ['x-total-count', 'x-total', 'total-count', 'x-total-items', 'x-pagination-total-count'];
const HEADER_POINTER = 'header:';

/** Where a list response's total may sit: body fields (totalCandidates), then a total-count header ("header:x-total-count"). */
export function totalCandidatesOf(ex: Exchange): TotalCandidate[] {
  const out = totalCandidates(ex.response?.json);
  for (const h of TOTAL_HEADERS) {
    const v = ex.response?.headers[h];
    if (v !== undefined && /^\s*\d+\s*$/.test(v)) out.push({ pointer: HEADER_POINTER + h, value: Number(v) });
  }
  return out;
}

/** A declared total field (x-total-count's field, dotted for a nested one) as the pointer readTotal takes. */
export const declaredTotalPointer = (field: string | undefined): string | undefined =>
  field ? '/' + field.replace(/\./g, '/') : undefined;

/** Reads a total at a body pointer or at a "header:name" from totalCandidatesOf. */
export function readTotal(ex: Exchange, pointer: string): unknown {
  if (!pointer.startsWith(HEADER_POINTER)) return readPointer(ex.response?.json, pointer);
  const v = ex.response?.headers[pointer.slice(HEADER_POINTER.length)];
  return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
}

/** True when a total pointer names a header rather than a body field. */
export const isHeaderTotal = (pointer: string): boolean => pointer.startsWith(HEADER_POINTER);

/** A VM path at the end of a URL or path: /v1/vms/<id>, vms/<id>. */
const VM_PATH = /(?:^|\/)vms\/([^/?#\s]+)\/?(?:[?#].*)?$/;

/** The VM id a path, resource name or URL names (/v1/vms/<id>, vms/<id>, https://host/v1/vms/<id>); undefined otherwise. */
function vmIdInPath(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = VM_PATH.exec(value.trim());
  return m ? decoded(m[1]!) : undefined;
}

/**
 * Where an answer that made a VM names that VM, beyond doubt: a vm_id field, a vm object's id (or a vm resource name),
 * the id of a body that is the VM record itself (it carries the VM's name), and VM paths in the Location header or in a
 * self link. A bare id of any other body may be the task's: it is never taken. Used on a create answer and on a task record.
 */
export function vmIdsNamedIn(ex: Exchange | undefined, name: string): Array<{ where: string; id: string }> {
  const out: Array<{ where: string; id: string }> = [];
  const add = (where: string, v: unknown) => {
    if (typeof v === 'string' && ID_LIKE.test(v) && !out.some((o) => o.id === v)) out.push({ where, id: v });
  };
  const body = ex?.response?.json;
  const obj = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const inner = (k: string) => {
    const v = obj[k];
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  };
  add('body /vm_id', obj['vm_id']);
  add('body /vm/id', inner('vm')?.['id']);
  add('body /vm', vmIdInPath(obj['vm']));
  if (obj['name'] === name) add('body /id', obj['id']);
  if (inner('data')?.['name'] === name) add('body /data/id', inner('data')?.['id']);
  // A task record naming what it works on: the resource it made.
  add('body /resource_id', obj['resource_id']);
  if (['vm', 'virtual_machine', 'instance'].includes(String(inner('target')?.['type'])))
    add('body /target/id', inner('target')?.['id']);
  for (const h of ['location', 'content-location']) add(`header ${h}`, vmIdInPath(ex?.response?.headers[h]));
  const links = inner('_links');
  add('body /_links/self/href', vmIdInPath((links?.['self'] as Record<string, unknown> | undefined)?.['href']));
  add('body /targetLink', vmIdInPath(obj['targetLink']));
  return out;
}

/** A backup path at the end of a URL or path: /v1/backups/<id>. */
const BACKUP_PATH = /(?:^|\/)backups\/([^/?#\s]+)\/?(?:[?#].*)?$/;

/** Where an answer that started a backup names the backup, beyond doubt: backup_id, a backup object's id, a backup path in Location. */
export function backupIdsNamedIn(ex: Exchange | undefined): Array<{ where: BackupIdPlace; id: string }> {
  const body = ex?.response?.json as Record<string, unknown> | undefined;
  const backup =
    body && typeof body['backup'] === 'object' ? (body['backup'] as Record<string, unknown> | null) : undefined;
  const location = BACKUP_PATH.exec(ex?.response?.headers['location'] ?? '')?.[1];
  const named: Array<[BackupIdPlace, unknown]> = [
    ['backup_id', body?.['backup_id']],
    ['backup.id', backup?.['id']],
    ['location', location && decoded(location)],
    // Last: the answer's own id, which is the backup's where the answer is the backup record (OCI, EC2), or a task's.
    ['id', body?.['id']],
  ];
  const seen = new Set<string>();
  return named.flatMap(([where, id]) =>
    typeof id === 'string' && ID_LIKE.test(id) && !seen.has(id) && seen.add(id) ? [{ where, id }] : []
  );
}

/** Where a backup start's answer may name the backup: backup_id, a backup object, a Location path, its own id. */
type BackupIdPlace = 'backup_id' | 'backup.id' | 'location' | 'id';

/**
 * How tags travel, in records and create bodies: a map of strings ({env: prod}, Azure and GCE labels, OCI
 * freeformTags), "key:value" strings, {key, value} objects, or {Key, Value} objects (EC2).
 */
export type TagShape = 'map' | 'strings' | 'objects' | 'pascal-objects';
export const TAG_SHAPES: readonly TagShape[] = ['map', 'strings', 'objects', 'pascal-objects'];

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The shape of a value that holds tags, and its pairs; undefined for a value that is not a tag collection. */
export function readTags(value: unknown): { shape: TagShape; pairs: Array<[string, string]> } | undefined {
  if (isPlain(value)) {
    const entries = Object.entries(value);
    if (!entries.every(([, v]) => typeof v === 'string')) return undefined;
    return { shape: 'map', pairs: entries as Array<[string, string]> };
  }
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.every((x) => typeof x === 'string' && x.indexOf(':') > 0))
    return {
      shape: 'strings',
      pairs: (value as string[]).map((x) => [x.slice(0, x.indexOf(':')), x.slice(x.indexOf(':') + 1)]),
    };
  for (const [shape, k, v] of [
    ['objects', 'key', 'value'],
    ['pascal-objects', 'Key', 'Value'],
  ] as const) {
    if (value.every((x) => isPlain(x) && typeof x[k] === 'string' && ['string', 'undefined'].includes(typeof x[v])))
      return {
        shape,
        pairs: (value as Array<Record<string, unknown>>).map((x) => [String(x[k]), String(x[v] ?? '')]),
      };
  }
  return undefined;
}

/** Tags as a create body carries them, in one shape. */
export function tagsInShape(shape: TagShape, tags: ReadonlyArray<readonly [string, string]>): unknown {
  if (shape === 'map') return Object.fromEntries(tags);
  if (shape === 'strings') return tags.map(([k, v]) => `${k}:${v}`);
  if (shape === 'objects') return tags.map(([key, value]) => ({ key, value }));
  return tags.map(([Key, Value]) => ({ Key, Value }));
}

/** A field of a record that may hold the VM's tags: its name, the shape it shows, and the pairs records show there. */
export interface TagFieldCandidate {
  field: string;
  /** Undefined where every record holds an empty list there: any list shape may set it. */
  shape?: TagShape;
  /** Each record (by index) and the pairs it shows under the field. */
  carriers: Array<{ record: Record<string, unknown>; pairs: Array<[string, string]> }>;
}

const TAG_NAMED = /tag|label/i;

/**
 * The fields of VM records that may hold their tags, whatever their name (the seed says VMs carry tags, not where): a
 * top-level field holding tag pairs in one of the shapes, on some record. A field named for tags or labels that is
 * empty everywhere ({} or []) is kept too, without carriers: a place to set tags, not to read them. Named ones first,
 * then by how many records carry pairs there.
 */
export function tagFieldCandidates(records: ReadonlyArray<Record<string, unknown>>): TagFieldCandidate[] {
  const found = new Map<string, TagFieldCandidate>();
  const empty = new Map<string, TagShape | undefined>();
  for (const record of records) {
    for (const [field, value] of Object.entries(record)) {
      if (
        TAG_NAMED.test(field) &&
        (Array.isArray(value) ? value.length === 0 : isPlain(value) && !Object.keys(value).length)
      )
        empty.set(field, empty.get(field) ?? (Array.isArray(value) ? undefined : 'map'));
      const tags = readTags(value);
      if (!tags || tags.pairs.length === 0) continue;
      const c = found.get(field) ?? { field, shape: tags.shape, carriers: [] };
      // One field, one shape: a record that shows another shape there is not counted.
      if (c.shape === tags.shape) c.carriers.push({ record, pairs: tags.pairs });
      found.set(field, c);
    }
  }
  for (const [field, shape] of empty) if (!found.has(field)) found.set(field, { field, shape, carriers: [] });
  return [...found.values()].sort(
    (a, b) => Number(TAG_NAMED.test(b.field)) - Number(TAG_NAMED.test(a.field)) || b.carriers.length - a.carriers.length
  );
}
