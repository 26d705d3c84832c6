// Values read back: what a request sent, compared with what the target later shows under the same name, in
// any answer. Shared by vms.values-read-back and backups.values-read-back.
import type { CheckContext } from '../src/engine/run/context.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import { isSuccess } from './support.ts';

/** One answer that shows the resource: which (the list element, the create answer, ...), the object, the exchange. */
export interface View {
  source: string;
  record: Record<string, unknown>;
  ex: Exchange;
}

/** What one view showed under a field's name for one value the run sent. */
export interface Reading {
  /** Which of the run's objects (its name). */
  of: string;
  sent: string | number;
  view: View;
  shown: unknown;
}

/** equal; larger or smaller (a number); other (a string, or a null: not what was sent); not comparable; absent. */
type Comparison = 'equal' | 'larger' | 'smaller' | 'other' | 'not-comparable' | 'absent';

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The object in a JSON value whose `key` holds `value`: the value itself, or one nested up to three levels (not in arrays). */
export function objectWith(json: unknown, key: string, value: unknown, depth = 3): Record<string, unknown> | undefined {
  if (!isRecord(json) || depth < 0) return undefined;
  if (json[key] === value) return json;
  for (const v of Object.values(json)) {
    const found = objectWith(v, key, value, depth - 1);
    if (found) return found;
  }
  return undefined;
}

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : undefined;

/**
 * Whether what a view shows under a field's name says what was sent. A string is equal, or other (null says the value
 * was dropped); a size may be larger (the target's size that holds it) or smaller; an object under the name shows the
 * value when one of its members is it (an image as {id, name}), and is no evidence otherwise (units, shapes unknown).
 */
export function compare(type: 'string' | 'integer', sent: string | number, shown: unknown): Comparison {
  if (shown === undefined) return 'absent';
  if (shown === null) return 'other';
  if (isRecord(shown))
    return Object.values(shown).some((v) => v === sent || (type === 'integer' && asNumber(v) === sent))
      ? 'equal'
      : 'not-comparable';
  if (type === 'string')
    return typeof shown === 'string' || typeof shown === 'number'
      ? String(shown) === sent
        ? 'equal'
        : 'other'
      : 'not-comparable';
  const n = asNumber(shown);
  if (n === undefined) return 'not-comparable';
  return n === sent ? 'equal' : n > (sent as number) ? 'larger' : 'smaller';
}

/** 1000 or 1024 where a size is shown that many times what was sent (a unit mistaken), else undefined. */
function unitFactor(sent: unknown, shown: unknown): 1000 | 1024 | undefined {
  const n = asNumber(shown);
  if (typeof sent !== 'number' || sent <= 0 || n === undefined) return undefined;
  return n === sent * 1024 ? 1024 : n === sent * 1000 ? 1000 : undefined;
}

/** How a field read back: the verdict and what it rests on. */
export interface FieldVerdict {
  field: string;
  /**
   * verified: shown as sent for two values or more; rounded: shown as the target's own sizes, each at least what was
   * sent, larger requests larger; one-value: shown as sent, but only one value was sent; ambiguous: two requests show the
   * same larger size (rounded, or ignored with that default); not-shown: no answer shows it; failed.
   */
  status: 'verified' | 'rounded' | 'one-value' | 'ambiguous' | 'not-shown' | 'failed';
  note: string;
  evidence: Exchange[];
}

const show = (v: unknown) => JSON.stringify(v);

/**
 * Judges one field over every reading of it. Sent and shown differ (a smaller size, another string, null): failed. A
 * larger request that shows a smaller size: failed (no size ladder maps so). Sizes shown larger than sent are the
 * target's own sizes: distinct for distinct requests, the field is read (rounded); the same for all, it may be ignored
 * behind a default, and the run cannot tell (ambiguous). The two values the run sends keep a default from hiding.
 */
export function judgeField(field: string, type: 'string' | 'integer', readings: Reading[]): FieldVerdict {
  const compared = readings
    .map((r) => ({ ...r, c: compare(type, r.sent, r.shown) }))
    .filter((r) => r.c !== 'absent' && r.c !== 'not-comparable');
  if (compared.length === 0) {
    const odd = readings.filter((r) => r.shown !== undefined);
    return {
      field,
      status: 'not-shown',
      note: odd.length
        ? `shown only in a form the run cannot compare (${odd[0]!.view.source}: ${show(odd[0]!.shown)})`
        : 'shown in no answer',
      evidence: [],
    };
  }
  const wrong = compared.filter((r) => r.c === 'smaller' || r.c === 'other');
  if (wrong.length) {
    const w = wrong[0]!;
    return {
      field,
      status: 'failed',
      note: `${w.of} was created with ${field} ${show(w.sent)}, and ${w.view.source} shows ${show(w.shown)}${wrong.length > 1 ? ` (and ${wrong.length - 1} more reading${wrong.length > 2 ? 's' : ''})` : ''}`,
      evidence: wrong.map((r) => r.view.ex),
    };
  }
  // A size shown exactly 1,000 or 1,024 times what was sent, on every larger reading, is the size in another unit (MB,
  // MiB under a field the seed names in gigabytes), not a size the target rounded up to.
  const larger = compared.filter((r) => r.c === 'larger');
  const unit = larger.length ? unitFactor(larger[0]!.sent, larger[0]!.shown) : undefined;
  if (unit && larger.every((r) => unitFactor(r.sent, r.shown) === unit))
    return {
      field,
      status: 'failed',
      note: `${larger[0]!.of} was created with ${field} ${show(larger[0]!.sent)}, and ${larger[0]!.view.source} shows ${show(larger[0]!.shown)}: ${unit} times as much, the size in another unit than the field's`,
      evidence: larger.map((r) => r.view.ex),
    };
  const distinct = [...new Set(compared.map((r) => r.sent))];
  if (compared.every((r) => r.c === 'equal')) {
    return distinct.length > 1
      ? { field, status: 'verified', note: `${distinct.map(show).join(' and ')} read back as sent`, evidence: [] }
      : {
          field,
          status: 'one-value',
          note: `${show(distinct[0])} read back as sent (the only value the run sent)`,
          evidence: [],
        };
  }
  // Sizes: what each request shows (the largest reading where answers differ), in the order of what was sent.
  const byValue = new Map<number, number>();
  for (const r of compared)
    byValue.set(
      r.sent as number,
      Math.max(byValue.get(r.sent as number) ?? -Infinity, r.c === 'equal' ? (r.sent as number) : asNumber(r.shown)!)
    );
  const pairs = [...byValue.entries()].sort((a, b) => a[0] - b[0]);
  const mapping = pairs.map(([s, g]) => `${s}→${g}`).join(', ');
  for (let i = 1; i < pairs.length; i++) {
    if (pairs[i]![1] < pairs[i - 1]![1])
      return {
        field,
        status: 'failed',
        note: `a larger request shows a smaller ${field} (${mapping})`,
        evidence: compared.map((r) => r.view.ex),
      };
  }
  const shownSizes = new Set(pairs.map(([, g]) => g));
  if (pairs.length > 1 && shownSizes.size === pairs.length)
    return { field, status: 'rounded', note: `rounded up to the target's sizes (${mapping})`, evidence: [] };
  return {
    field,
    status: 'ambiguous',
    note:
      pairs.length > 1
        ? `${mapping}: rounded up to one size, or ignored behind a default of ${pairs[0]![1]}; the run cannot tell`
        : `${mapping}: rounded up, or ignored behind a default; only one value was sent`,
    evidence: [],
  };
}

/**
 * The resource's own record, by a declared GET on its path (`/v1/vms/{id}`) or, where none is declared, that conventional
 * path tried: an answer is the record only when it is the object with that id (a 404 is no evidence).
 */
export async function recordView(ctx: CheckContext, collection: string, id: string): Promise<View | undefined> {
  const declared = Object.keys(ctx.spec.merged.paths ?? {}).find(
    (p) =>
      new RegExp(`^/v1/${collection}/\\{[^}/]+\\}$`).test(p) &&
      (ctx.spec.merged.paths?.[p] as Record<string, unknown> | undefined)?.['get']
  );
  const template = declared ?? `/v1/${collection}/{id}`;
  const ex = await ctx.call({ method: 'GET', path: template.replace(/\{[^}]+\}/, encodeURIComponent(id)) });
  const record = isSuccess(ex) ? objectWith(ex.response?.json, 'id', id) : undefined;
  return record && { source: `${declared ? 'the declared record' : 'the record at'} GET ${template}`, record, ex };
}
