// The reference target as its own tests drive it: targets started per test file and closed after it, and plain
// fetch calls with the body parsed when it is JSON.
import {
  startReference,
  type ReferenceOptions,
  type ReferenceSettings,
  type ReferenceTarget,
} from '../../fixtures/reference/server.ts';

const started: ReferenceTarget[] = [];

/** Closes every target this test file started (for its afterAll). */
export async function closeStarted(): Promise<void> {
  await Promise.all(started.splice(0).map((t) => t.close()));
}

export async function start(opts: ReferenceOptions = {}): Promise<ReferenceSettings> {
  const t = await startReference(opts);
  started.push(t);
  return t.settings;
}

export interface Res {
  status: number;
  headers: Headers;
  /** The body parsed as JSON (undefined when empty or not JSON; a list for the JSON audit export: exportedEntries). */
  body: Answer;
  text: string;
}

/**
 * The fields of the reference's JSON answers (and its variants'), by name: a test reads those the answer it asked for
 * has. They are typed as present, so that a test reads them plainly; one the answer lacks is undefined at run time, and
 * the expectation on it fails. (A type rather than an interface: it passes where a Record<string, unknown> is asked.)
 */
export type Answer = {
  // POST /v1/auth/tokens
  token: string;
  expires_in: number;
  organization: string;
  role: string;
  // A VM, a task, a backup, an alarm or a webhook, read alone
  id: string;
  name: string;
  status: string;
  state: string;
  operation: string;
  description: string;
  vcpus: number;
  memory_gb: number;
  system_disk_gb: number;
  tags: Record<string, string>;
  created_at: string;
  updated_at: string;
  message: string;
  // What a create answers: the task, and the VM or backup it makes
  task_id: string;
  vm_id: string;
  backup_id: string;
  /** Variants: the backup, or the webhook, made (rather than its id alone), or the operation's own link. */
  backup: { id: string };
  webhook?: { id: string };
  selfLink?: string;
  // Lists
  vms: VmAnswer[];
  webhooks: unknown[];
  entries: AuditEntryAnswer[];
  total: number;
  /** The page size the list says it applied. */
  per_page: number;
  /** Variants: the list's total elsewhere. */
  total_count?: number;
  count?: number;
  meta?: { total_items?: number; pagination?: { total: number } };
  // A refusal
  error: { code: string; message: string };
};

/** A VM as GET /v1/vms lists it. */
export interface VmAnswer {
  id: string;
  name: string;
  status: string;
  organization: string;
  tags: Record<string, string>;
  created_at: string;
  /** Variants: tags under another name, and fields beyond the seed's. */
  labels?: Record<string, string>;
  vcpuCount?: number;
  links?: { self: string };
}

/** An audit entry, as GET /v1/audit lists it and its export holds it. */
export interface AuditEntryAnswer {
  id: string;
  time: string;
  /** Who acted: the key's id, or (variant audit-actor-object) an object that names it. */
  actor: string | { type: string; api_key_id?: string; organization: string };
  organization: string;
  source_ip: string | null;
  method: string;
  path: string;
  status: number;
  result: string;
}

export async function call(
  s: ReferenceSettings,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; raw?: string; headers?: Record<string, string> } = {}
): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  } else if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] ??= 'application/json';
  }
  const r = await fetch(s.baseUrl + path, { method, headers, body });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed as Answer, text };
}

/** The JSON audit export's body: a list of entries (any other answer fails the test). */
export function exportedEntries(r: Res): AuditEntryAnswer[] {
  const body: unknown = r.body;
  if (!Array.isArray(body))
    throw new Error(`the export answered ${r.status}, not a JSON list: ${r.text.slice(0, 200)}`);
  return body as AuditEntryAnswer[];
}
