import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { fromLog, describeExchange } from '../support.ts';

const RESOURCE = /^\/(v\d+\/)?(vms|tasks|backups|auth)(\/|$)/;
const LINK_HEADERS = ['location', 'content-location', 'operation-location', 'link'];
const LINK_KEY = /^(href|url|uri|link|links|location|next|prev|previous|self|first|last|.*_(url|uri|href))$/i;
/** Link relations that point at another version of the API by design (RFC 5829, RFC 9745, RFC 8594): not v1 paths. */
const OTHER_VERSION_RELS =
  /\brel\s*=\s*"?[^"]*\b(successor-version|latest-version|predecessor-version|deprecation|sunset)\b/i;

/** API paths the target hands out (headers and path-like strings in bodies), made relative to the target. */
function handedOut(ex: Exchange, origin: string): string[] {
  const out: string[] = [];
  const consider = (value: string) => {
    for (const raw of value.split(',').map((s) => s.trim().replace(/^<|>.*$/g, ''))) {
      let p = raw;
      if (/^https?:\/\//i.test(raw)) {
        try {
          const u = new URL(raw);
          if (u.origin !== origin) continue;
          p = u.pathname;
        } catch {
          continue;
        }
      }
      if (RESOURCE.test(p)) out.push(p);
    }
  };
  for (const h of LINK_HEADERS) {
    let v = ex.response?.headers[h];
    // A Link to the successor version (announced deprecation) names a later version's path on purpose.
    if (v && h === 'link')
      v = v
        .split(/,(?=\s*<)/)
        .filter((link) => !OTHER_VERSION_RELS.test(link))
        .join(',');
    if (v) consider(v);
  }
  // Only fields that are links by name: other strings may echo what a client sent (an audit entry's path).
  const visit = (v: unknown, key: string, depth: number) => {
    if (depth > 4) return;
    if (typeof v === 'string' && LINK_KEY.test(key) && (v.startsWith('/') || /^https?:\/\//i.test(v))) consider(v);
    else if (Array.isArray(v)) v.slice(0, 200).forEach((x) => visit(x, key, depth + 1));
    else if (v && typeof v === 'object') Object.entries(v).forEach(([k, x]) => visit(x, k, depth + 1));
  };
  visit(ex.response?.json, '', 0);
  return out;
}

/** Every API path the target hands out (Location headers, links in bodies) carries the /v1 prefix. */
export const handedOutPaths: Check = {
  id: 'versioning.handed-out-paths',
  group: 'versioning',
  clauses: ['VERSION-PATH-PREFIX'],
  level: 'must',
  why: { must: 'the seed says every API path carries the /v1 prefix' },
  title: 'API paths the target hands out begin with /v1',
  reviewsLog: true,
  async run(ctx) {
    const origin = new URL(ctx.config.baseUrl).origin;
    const found = fromLog(ctx, () => true).flatMap((ex) => handedOut(ex, origin).map((p) => ({ ex, p })));
    // Nothing handed out, nothing unprefixed: the clause holds for what the target showed (task ids in bodies only, say).
    if (found.length === 0)
      return pass(
        'the target handed out no API paths in this run (no Location headers or links), so none lacks the /v1 prefix'
      );
    const bad = found.filter((f) => !f.p.startsWith('/v1/'));
    if (bad.length)
      return fail(
        `${bad.length} handed-out paths lack the /v1 prefix, e.g. ${bad[0]!.p} in ${describeExchange(bad[0]!.ex)}`,
        bad.map((b) => b.ex)
      );
    return pass(`all ${found.length} handed-out paths begin with /v1`);
  },
};
