// The user's own mistakes are usage errors, never the target's failures: when the run's first VM create is refused and
// the target's answer names one of the run's inputs (the image, the subnet, or the primary key's role), the run stops
// with one line naming it as the user gave it (config.names). Decided narrowly: only that create, only a 4xx, only an answer that names the input, and
// never when the target lists the value it refused among those it accepts.
import type { RunConfig } from '../config/config.ts';
import type { Exchange } from '../transport/exchange.ts';

/** One of the run's inputs the target refused: its name as the user gave it, the one line to print, and the answer. */
export interface InputRefusal {
  flag: string;
  message: string;
  exchange: Exchange;
  /** The values the target says it accepts, where its answer lists them. */
  accepts?: string[];
}

/** What the token answers said of the keys: the primary key's role and organization, the read-only key's role. */
export interface KeyFacts {
  role?: string;
  organization?: string;
  readonlyRole?: string;
}

const IMAGE = /\bimages?\b|\bimage_?(id|name)\b/i;
const SUBNET = /\bsubnets?\b|\bsubnet_?id\b/i;
const ROLE = /\brole\b|permission|forbidden|not (allowed|permitted|authori[sz]ed)|access denied|insufficient|scope/i;
/** Statuses that are about the request's credentials, rate or framing, never about a value in it. */
const NOT_ABOUT_VALUES = new Set([401, 403, 405, 408, 413, 415, 429]);
/** Where an answer lists what it would accept: "must be one of a, b", "allowed: a|b", "valid images are a, b". */
const LIST =
  /\b(?:one of|allowed(?: values)?|accepted(?: values)?|valid(?: \w+)?(?: are| is)?|available(?: \w+)?(?: are| is)?|supported(?: \w+)?(?: are| is)?|expected)\s*[:=]?\s*(.+)$/i;

/** The error an answer carries, as text: code and message (the seed's error object), else the body itself. */
function answerText(ex: Exchange): string {
  const json = ex.response?.json as { error?: { code?: unknown; message?: unknown } } | undefined;
  const e = json?.error;
  if (e && (typeof e.message === 'string' || typeof e.code === 'string'))
    return [e.code, e.message].filter((v) => typeof v === 'string').join(': ');
  return (ex.response?.body ?? '').slice(0, 500);
}

/** The values an answer lists as accepted, where it lists them. */
export function acceptedValues(text: string): string[] | undefined {
  const m = LIST.exec(text);
  if (!m) return undefined;
  const values = m[1]!
    .replace(/[.\])}]+$/, '')
    .split(/\s*(?:,|\||;|\bor\b|\band\b)\s*/)
    .map((v) => v.replace(/^[\s"'`[({]+|[\s"'`\])}]+$/g, ''))
    .filter((v) => /^[\w.:/@+-]{1,100}$/.test(v));
  return values.length ? values : undefined;
}

/** Names the answer the input by its field's word, or by the value given (quoted or whole)? */
const names = (text: string, word: RegExp, value: string | undefined): boolean =>
  word.test(text) || (value !== undefined && value.length >= 3 && text.includes(value));

/**
 * Why the run's first create was refused, when the answer names one of the run's inputs; undefined otherwise (the
 * target is then judged on it). `attempts` are every create sent for the run's VM (sizes and the tentative tag):
 * each must be a 4xx naming the same input, so a size the target would take is never mistaken for a bad image.
 */
export async function inputRefusalOf(
  attempts: readonly Exchange[],
  config: Pick<RunConfig, 'image' | 'subnetId' | 'names'>,
  facts: () => Promise<KeyFacts>
): Promise<InputRefusal | undefined> {
  const { image, subnetId, primary, readOnly } = config.names;
  const last = attempts[attempts.length - 1];
  if (!last?.response || attempts.some((ex) => !ex.response || ex.response.status < 400 || ex.response.status >= 500))
    return undefined;
  const texts = attempts.map(answerText);
  const said = `${last.request.method} ${new URL(last.request.url).pathname} → ${last.response.status} "${texts[texts.length - 1]!.slice(0, 300)}"`;
  const valueRefusals = attempts.every((ex) => !NOT_ABOUT_VALUES.has(ex.response!.status));
  if (valueRefusals && texts.every((t) => names(t, IMAGE, config.image))) {
    const accepts = acceptedValues(texts[texts.length - 1]!);
    if (accepts?.includes(config.image ?? '')) return undefined;
    const also = accepts ? `; it accepts: ${accepts.join(', ')}` : '';
    return {
      flag: image,
      message: `${image} ${config.image}: the target refused the run's first VM create (${said})${also}`,
      exchange: last,
      ...(accepts ? { accepts } : {}),
    };
  }
  if (valueRefusals && texts.every((t) => names(t, SUBNET, config.subnetId))) {
    const accepts = acceptedValues(texts[texts.length - 1]!);
    if (accepts?.includes(config.subnetId ?? '')) return undefined;
    const org = (await facts()).organization;
    return {
      flag: subnetId,
      message: `${subnetId} ${config.subnetId}: the target refused the run's first VM create (${said}); give a subnet of the organization of ${primary}${org ? ` (${org})` : ''}${accepts ? `: it accepts ${accepts.join(', ')}` : ''}`,
      exchange: last,
      ...(accepts ? { accepts } : {}),
    };
  }
  return keyRefusal(attempts, texts, said, facts, { primary, readOnly });
}

/** Role words of an owner who reads and does not write. */
const READ_ONLY_ROLE = /view|read|audit|guest|observ|monitor/i;

/**
 * A create refused 401 or 403 for the key's role: the answer names a role or permission, and the role the key's
 * token reports is a reader's (the read-only key's own role, or a word that says so). A key whose role may
 * write (or says nothing) refused a create is the target's to answer for.
 */
async function keyRefusal(
  attempts: readonly Exchange[],
  texts: string[],
  said: string,
  facts: () => Promise<KeyFacts>,
  names: { primary: string; readOnly: string }
): Promise<InputRefusal | undefined> {
  if (!attempts.every((ex) => [401, 403].includes(ex.response!.status)) || !texts.every((t) => ROLE.test(t)))
    return undefined;
  const { role, readonlyRole } = await facts();
  if (typeof role !== 'string' || /operator/i.test(role)) return undefined;
  if (role !== readonlyRole && !READ_ONLY_ROLE.test(role)) return undefined;
  return {
    flag: names.primary,
    message: `${names.primary}: the target refused the run's first VM create with it (${said}); its tokens say role "${role}": give a key whose owner may create VMs (the seed's example role is operator), or run with ${names.readOnly}`,
    exchange: attempts[attempts.length - 1]!,
  };
}
