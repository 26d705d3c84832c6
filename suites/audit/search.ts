import type { CheckContext } from '../../src/engine/context.ts';
import type { Exchange } from '../../src/engine/exchange.ts';
import type { AuditDeclaration } from '../../src/spec/declarations.ts';
import { Unavailable } from '../../src/engine/check.ts';
import { isSuccess, statusText } from '../support.ts';

export type Entry = Record<string, unknown>;

export function auditOf(ctx: CheckContext): AuditDeclaration {
  const a = ctx.declarations.audit;
  if (!a) throw new Unavailable('the overlay declares no audit search operation (x-audit: search); see spec/README.md', 'declare the audit search operation (x-audit: search) in --overlay');
  return a;
}

const MAX_PAGES = 20;

/** Pages through the declared search operation (page/per_page as on every list) up to a bound. */
export async function searchAudit(ctx: CheckContext, query: Record<string, string>, maxPages = MAX_PAGES): Promise<{ entries: Entry[]; pages: Exchange[]; complete: boolean }> {
  const a = auditOf(ctx);
  const entries: Entry[] = [];
  const pages: Exchange[] = [];
  const first = ctx.declarations.firstPage ?? 1;
  for (let page = first; page < first + maxPages; page++) {
    const ex = await ctx.call({ method: a.search.method, path: a.search.path, query: { ...query, page, per_page: 100 } });
    pages.push(ex);
    if (!isSuccess(ex)) throw new Unavailable(`the audit search answered ${statusText(ex)}`, 'an audit search the target answers');
    const got = (ex.response?.json as Record<string, unknown> | undefined)?.[a.entriesField];
    const list = Array.isArray(got) ? (got as Entry[]) : [];
    entries.push(...list);
    if (list.length < 100) return { entries, pages, complete: true };
  }
  return { entries, pages, complete: false };
}

/** Requests of this run the audit must show: one that fails (an unknown task) and one that succeeds. */
export async function auditProbes(ctx: CheckContext): Promise<{ failing: Exchange; succeeding?: Exchange }> {
  const failing = await ctx.call({ method: 'GET', path: `/v1/tasks/cc-${ctx.config.runId}-audit-probe` });
  let succeeding: Exchange | undefined;
  try {
    const task = await ctx.fixtures.vmTask();
    succeeding = await ctx.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(task.id)}` });
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
  return { failing, succeeding };
}

/** Finds the newest entry for a request, retrying briefly: an audit log may be written a moment later. */
export async function findEntry(ctx: CheckContext, path: string): Promise<{ entry?: Entry; pages: Exchange[] }> {
  const a = auditOf(ctx);
  let pages: Exchange[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await searchAudit(ctx, {}, 3);
    pages = r.pages;
    const entry = r.entries.find((e) => e[a.fields.path] === path);
    if (entry) return { entry, pages };
    await ctx.sleepTarget(1);
  }
  return { pages };
}
