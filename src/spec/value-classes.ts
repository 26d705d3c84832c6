// The value classes a clause's domain may name (spec/clauses.yaml `domain.values`): each a position of one or more
// operations' requests (a body field, a query parameter, a header, the path) and a test of the value sent there, so
// the report can say which classes of a position the run exercised. A pair (two classes at once, "a+b") is sent in
// certify only: quick varies one class at a time.

/** Where in a request a value class sits. */
type Position = 'body' | 'query' | 'header' | 'path';

interface ValueClass {
  /** The operations whose requests carry it (a path class: the operations whose path was varied). */
  operations: readonly string[];
  position: Position;
  /** The body field, query parameter or header (lower case); "path" for the path. */
  field: string;
  /** What the class holds, in a few words. */
  what: string;
  /** Whether the value (undefined when left out) is of the class; `body` is the whole JSON object sent, for a body field. */
  holds(value: unknown, body?: Readonly<Record<string, unknown>>): boolean;
  /** Two classes at once: certify sends the pairs, quick does not. */
  pair?: true;
}

/** The fields of a create-VM request (seed §2), in the seed's order. */
export const CREATE_VM_FIELDS = ['name', 'vcpus', 'memory_gb', 'image', 'system_disk_gb', 'subnet_id'] as const;

const text = (test: (s: string) => boolean) => (v: unknown) => typeof v === 'string' && test(v);
const integer = (test: (n: number) => boolean) => (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && test(v);

/** A tag filter's value: what follows its first colon. */
const tagValue = (test: (s: string) => boolean) => text((s) => s.includes(':') && test(s.slice(s.indexOf(':') + 1)));
/** The scheme of an Authorization header as recorded (its credentials redacted). */
const scheme = (test: (scheme: string, rest: string) => boolean) =>
  text((s) => /^\S+ /.test(s) && test(s.slice(0, s.indexOf(' ')), s.slice(s.indexOf(' '))));

const mixedCase = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s);
const punctuation = (s: string) => /[._ ]/.test(s);
const beyondAscii = (s: string) => /[^\x00-\x7f]/.test(s);
const past32 = (s: string) => [...s].length > 32;

const SINGLES: Readonly<Record<string, ValueClass>> = {
  'name:mixed-case': {
    operations: ['createVm'],
    position: 'body',
    field: 'name',
    what: 'a name with upper- and lower-case letters',
    holds: text(mixedCase),
  },
  'name:punctuation': {
    operations: ['createVm'],
    position: 'body',
    field: 'name',
    what: 'a name with a dot or an underscore',
    holds: text((s) => /[._]/.test(s)),
  },
  'name:past-32-characters': {
    operations: ['createVm'],
    position: 'body',
    field: 'name',
    what: 'a name longer than 32 characters',
    holds: text(past32),
  },
  'name:beyond-ascii': {
    operations: ['createVm'],
    position: 'body',
    field: 'name',
    what: 'a name with letters beyond ASCII',
    holds: text(beyondAscii),
  },
  'vcpus:smallest': {
    operations: ['createVm'],
    position: 'body',
    field: 'vcpus',
    what: 'one vCPU, the smallest size',
    holds: integer((n) => n === 1),
  },
  'vcpus:middle': {
    operations: ['createVm'],
    position: 'body',
    field: 'vcpus',
    what: 'from 2 to 16 vCPUs',
    holds: integer((n) => n >= 2 && n <= 16),
  },
  'vcpus:large': {
    operations: ['createVm'],
    position: 'body',
    field: 'vcpus',
    what: '32 vCPUs or more',
    holds: integer((n) => n >= 32),
  },
  'description:past-64-characters': {
    operations: ['startBackup'],
    position: 'body',
    field: 'description',
    what: 'a description longer than 64 characters',
    holds: text((s) => [...s].length > 64),
  },
  'description:quotes-and-commas': {
    operations: ['startBackup'],
    position: 'body',
    field: 'description',
    what: 'a description with quotes and commas',
    holds: text((s) => s.includes('"') && s.includes(',')),
  },
  'description:beyond-ascii': {
    operations: ['startBackup'],
    position: 'body',
    field: 'description',
    what: 'a description with letters beyond ASCII',
    holds: text(beyondAscii),
  },
  'tag:mixed-case': {
    operations: ['listVms'],
    position: 'query',
    field: 'tag',
    what: 'a tag filter whose value has upper- and lower-case letters',
    holds: tagValue(mixedCase),
  },
  'tag:punctuation': {
    operations: ['listVms'],
    position: 'query',
    field: 'tag',
    what: 'a tag filter whose value has a dot, an underscore or a space',
    holds: tagValue(punctuation),
  },
  'tag:past-32-characters': {
    operations: ['listVms'],
    position: 'query',
    field: 'tag',
    what: 'a tag filter whose value is longer than 32 characters',
    holds: tagValue(past32),
  },
  'tag:beyond-ascii': {
    operations: ['listVms'],
    position: 'query',
    field: 'tag',
    what: 'a tag filter whose value has letters beyond ASCII',
    holds: tagValue(beyondAscii),
  },
  'authorization:scheme-lower-case': {
    operations: ['listVms', 'getTask'],
    position: 'header',
    field: 'authorization',
    what: 'the scheme written "bearer"',
    holds: scheme((s) => s !== 'Bearer' && s === s.toLowerCase()),
  },
  'authorization:scheme-upper-case': {
    operations: ['listVms', 'getTask'],
    position: 'header',
    field: 'authorization',
    what: 'the scheme written "BEARER"',
    holds: scheme((s) => s !== 'Bearer' && s === s.toUpperCase()),
  },
  'authorization:two-spaces': {
    operations: ['listVms', 'getTask'],
    position: 'header',
    field: 'authorization',
    what: 'two spaces between the scheme and the token',
    holds: scheme((_, rest) => rest.startsWith('  ')),
  },
  'path:trailing-slash': {
    operations: ['listVms', 'getTask'],
    position: 'path',
    field: 'path',
    what: 'a path ending in a slash',
    holds: text((p) => p.length > 1 && p.endsWith('/')),
  },
  'path:doubled-slash': {
    operations: ['listVms', 'getTask'],
    position: 'path',
    field: 'path',
    what: 'a path with two slashes in a row',
    holds: text((p) => p.includes('//')),
  },
  'path:upper-case': {
    operations: ['listVms', 'getTask'],
    position: 'path',
    field: 'path',
    what: 'a path whose version and collection are in upper case',
    holds: text((p) => /^\/+V1\/+[A-Z]/.test(p)),
  },
  ...Object.fromEntries(CREATE_VM_FIELDS.flatMap((field) => leftOutClasses(field))),
};

/**
 * A create field null, or left out, while every other create field is there: which fields are required is not shown
 * (U-VM-CREATE-REQUIRED), so such a create is valid where the target makes the field optional.
 */
function leftOutClasses(field: (typeof CREATE_VM_FIELDS)[number]): Array<[string, ValueClass]> {
  const othersThere = (body: Readonly<Record<string, unknown>>) =>
    CREATE_VM_FIELDS.every((f) => f === field || body[f] !== undefined);
  return [
    [
      `${field}:null`,
      {
        operations: ['createVm'],
        position: 'body',
        field,
        what: `${field} null, every other field there`,
        holds: (v, body) => v === null && !!body && othersThere(body),
      },
    ],
    [
      `${field}:absent`,
      {
        operations: ['createVm'],
        position: 'body',
        field,
        what: `${field} left out, every other field there`,
        holds: (v, body) => v === undefined && !!body && !(field in body) && othersThere(body),
      },
    ],
  ];
}

/** The single classes an operation's request body holds (a create's sizes, names, null and left-out fields), in VALUE_CLASSES order. */
export function classesOf(operation: string, body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const b = body as Record<string, unknown>;
  return Object.entries(VALUE_CLASSES)
    .filter(([, c]) => !c.pair && c.position === 'body' && c.operations.includes(operation) && c.holds(b[c.field], b))
    .map(([name]) => name);
}

/** Every pair of the named classes (of one position), but those of one kind (the scheme in two cases at once). */
function pairsOf(names: readonly string[], apart: ReadonlyArray<readonly string[]> = []): Record<string, ValueClass> {
  const out: Record<string, ValueClass> = {};
  for (const [i, a] of names.entries())
    for (const b of names.slice(i + 1)) {
      if (apart.some((group) => group.includes(a) && group.includes(b))) continue;
      const [x, y] = [SINGLES[a]!, SINGLES[b]!];
      out[`${a}+${b.slice(b.indexOf(':') + 1)}`] = {
        ...x,
        what: `both ${x.what} and ${y.what}`,
        holds: (v, body) => x.holds(v, body) && y.holds(v, body),
        pair: true,
      };
    }
  return out;
}

/** Every value class by name (`position-field:class`, a pair `field:class+class`). */
export const VALUE_CLASSES: Readonly<Record<string, ValueClass>> = {
  ...SINGLES,
  ...pairsOf(['name:mixed-case', 'name:punctuation', 'name:beyond-ascii', 'name:past-32-characters']),
  ...pairsOf(['tag:mixed-case', 'tag:punctuation', 'tag:beyond-ascii', 'tag:past-32-characters']),
  ...pairsOf(
    ['authorization:scheme-lower-case', 'authorization:scheme-upper-case', 'authorization:two-spaces'],
    [['authorization:scheme-lower-case', 'authorization:scheme-upper-case']]
  ),
  ...pairsOf(['path:trailing-slash', 'path:doubled-slash', 'path:upper-case']),
};
