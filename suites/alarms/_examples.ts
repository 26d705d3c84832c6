// Helpers of the alarms group: how its firing examples are told apart, in messages and in the events they deliver.

/** Each firing example named by the fields in which it differs from the others ("comparison lt, threshold 100"). */
export function exampleLabels(bodies: ReadonlyArray<Record<string, unknown>>): string[] {
  const keys = [...new Set(bodies.flatMap((b) => Object.keys(b)))];
  const differing = keys.filter((k) => new Set(bodies.map((b) => JSON.stringify(b[k]))).size > 1);
  return bodies.map((b) =>
    differing.length === 0 ? JSON.stringify(b) : differing.map((k) => `${k} ${JSON.stringify(b[k])}`).join(', ')
  );
}

/**
 * The values of an answer that can name one object (an id, a name made of one): strings of six characters or more with
 * a digit and no space, wherever they stand in it. A state word ("INSUFFICIENT_DATA") names no object.
 */
export function idsOf(json: unknown, out = new Set<string>()): Set<string> {
  if (typeof json === 'string') {
    if (json.length >= 6 && /\d/.test(json) && !/\s/.test(json)) out.add(json);
  } else if (Array.isArray(json)) for (const v of json) idsOf(v, out);
  else if (json && typeof json === 'object') for (const v of Object.values(json)) idsOf(v, out);
  return out;
}

/** Whether a delivery's body holds `value` as a JSON string of its own (not inside a longer one). */
export const mentions = (raw: Buffer, value: string): boolean => raw.includes(JSON.stringify(value));
