/**
 * A map holding at most `size` keys, emptied at once when full. For values derived from what a
 * request says (its Host, its URL): the bound keeps a client that varies them from growing the
 * memory, and emptying costs one rebuild per key afterwards.
 */
export function boundedCache<V> (size: number) {
  const values = new Map<string, V>()
  return {
    get: (key: string): V | undefined => values.get(key),
    set (key: string, value: V): V {
      if (values.size >= size) values.clear()
      values.set(key, value)
      return value
    }
  }
}

/** `make(key)` remembered in a bounded cache. */
export function boundedMemo<V> (size: number, make: (key: string) => V): (key: string) => V {
  const cache = boundedCache<V>(size)
  return (key: string): V => cache.get(key) ?? cache.set(key, make(key))
}
