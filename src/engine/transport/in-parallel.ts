/**
 * Runs `fn` over `items` with at most `limit` in flight, results in the items' order. Independent requests overlap this
 * way, so a target 100 ms away costs a round trip per `limit` requests rather than per request; the pacer still holds
 * each token under its budget.
 */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
