// The value classes a clause's domain may name (spec/clauses.yaml `domain.values`): each a field of one operation's
// request body and a test of the value sent, so the report can say which classes of a field the run exercised.

export interface ValueClass {
  /** The operation whose request body carries the field. */
  operation: string;
  field: string;
  /** What the class holds, in a few words. */
  what: string;
  /** Whether the field's value (undefined when left out) is of the class; `body` is the whole JSON object sent. */
  holds(value: unknown, body: Readonly<Record<string, unknown>>): boolean;
}

/** The fields of a create-VM request (seed §2), in the seed's order. */
export const CREATE_VM_FIELDS = ['name', 'vcpus', 'memory_gb', 'image', 'system_disk_gb', 'subnet_id'] as const;

const text = (test: (s: string) => boolean) => (v: unknown) => typeof v === 'string' && test(v);
const integer = (test: (n: number) => boolean) => (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && test(v);

/** Every value class by name (`field:class`). */
export const VALUE_CLASSES: Readonly<Record<string, ValueClass>> = {
  'name:mixed-case': {
    operation: 'createVm',
    field: 'name',
    what: 'a name with upper- and lower-case letters',
    holds: text((s) => /[a-z]/.test(s) && /[A-Z]/.test(s)),
  },
  'name:dots-and-digits': {
    operation: 'createVm',
    field: 'name',
    what: 'a name with a dot and digits',
    holds: text((s) => s.includes('.') && /\d/.test(s)),
  },
  'name:past-32-characters': {
    operation: 'createVm',
    field: 'name',
    what: 'a name longer than 32 characters',
    holds: text((s) => [...s].length > 32),
  },
  'name:beyond-ascii': {
    operation: 'createVm',
    field: 'name',
    what: 'a name with letters beyond ASCII',
    holds: text((s) => /[^\x00-\x7f]/.test(s)),
  },
  'vcpus:smallest': {
    operation: 'createVm',
    field: 'vcpus',
    what: 'one vCPU, the smallest size',
    holds: integer((n) => n === 1),
  },
  'vcpus:middle': {
    operation: 'createVm',
    field: 'vcpus',
    what: 'from 2 to 16 vCPUs',
    holds: integer((n) => n >= 2 && n <= 16),
  },
  'vcpus:large': { operation: 'createVm', field: 'vcpus', what: '32 vCPUs or more', holds: integer((n) => n >= 32) },
  'description:past-64-characters': {
    operation: 'startBackup',
    field: 'description',
    what: 'a description longer than 64 characters',
    holds: text((s) => [...s].length > 64),
  },
  'description:quotes-and-commas': {
    operation: 'startBackup',
    field: 'description',
    what: 'a description with quotes and commas',
    holds: text((s) => s.includes('"') && s.includes(',')),
  },
  'description:beyond-ascii': {
    operation: 'startBackup',
    field: 'description',
    what: 'a description with letters beyond ASCII',
    holds: text((s) => /[^\x00-\x7f]/.test(s)),
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
        operation: 'createVm',
        field,
        what: `${field} null, every other field there`,
        holds: (v, body) => v === null && othersThere(body),
      },
    ],
    [
      `${field}:absent`,
      {
        operation: 'createVm',
        field,
        what: `${field} left out, every other field there`,
        holds: (v, body) => v === undefined && !(field in body) && othersThere(body),
      },
    ],
  ];
}

/** The classes of an operation's request body holds (a create's sizes, names, null and left-out fields), in VALUE_CLASSES order. */
export function classesOf(operation: string, body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const b = body as Record<string, unknown>;
  return Object.entries(VALUE_CLASSES)
    .filter(([, c]) => c.operation === operation && c.holds(b[c.field], b))
    .map(([name]) => name);
}
