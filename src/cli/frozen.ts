// The CLI parses once: what it hands on is frozen through and through, so nothing downstream can write to it.

/** The value itself, every object and array in it frozen (class instances and buffers are left as they are). */
export function deepFrozen<T>(value: T): Readonly<T> {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  for (const v of Object.values(value)) deepFrozen(v);
  return Object.freeze(value);
}
