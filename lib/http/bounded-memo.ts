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

/**
 * `make(outer, inner)` remembered under two keys, at most `size` values in all (emptied at once
 * when full). A lookup concatenates nothing: the keys are hashed as they came (a Host and a path,
 * straight from the request), where one joined key would be a new string to hash per request.
 * When `make` throws, nothing is kept.
 */
export function boundedMemo2<V> (size: number, make: (outer: string, inner: string) => V): (outer: string, inner: string) => V {
  let outers = new Map<string, Map<string, V>>()
  let held = 0
  return (outer: string, inner: string): V => {
    let inners = outers.get(outer)
    const kept = inners?.get(inner)
    if (kept !== undefined) return kept
    const value = make(outer, inner)
    if (held >= size) {
      outers = new Map()
      held = 0
      inners = undefined
    }
    if (inners === undefined) outers.set(outer, inners = new Map())
    inners.set(inner, value)
    held++
    return value
  }
}
