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
  body: any;
  text: string;
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
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}
