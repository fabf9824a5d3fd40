/**
 * A bounded TTL cache in front of an async loader, with coalescing: concurrent gets of one key
 * share one load. Failed loads are not cached. The value decides its own lifetime (a "not found"
 * can live shorter than a hit); a lifetime of 0 stores nothing. Past `maxEntries` the entry
 * stored longest ago is dropped first.
 */
export function createCachedLoader<V> (options: {
  load: (key: string) => Promise<V>
  ttlMs: (value: V) => number
  maxEntries: number
}) {
  const entries = new Map<string, { value: V, expiresAt: number }>()
  const inflight = new Map<string, Promise<V>>()

  function store (key: string, value: V): void {
    const ttlMs = options.ttlMs(value)
    if (ttlMs <= 0) return
    entries.delete(key)
    entries.set(key, { value, expiresAt: Date.now() + ttlMs })
    for (const oldest of entries.keys()) {
      if (entries.size <= options.maxEntries) break
      entries.delete(oldest)
    }
  }

  return {
    get (key: string): Promise<V> {
      const hit = entries.get(key)
      if (hit !== undefined) {
        if (hit.expiresAt > Date.now()) return Promise.resolve(hit.value)
        entries.delete(key)
      }
      const pending = inflight.get(key)
      if (pending !== undefined) return pending
      const loading = options.load(key)
        .then(value => {
          store(key, value)
          return value
        })
        .finally(() => inflight.delete(key))
      inflight.set(key, loading)
      return loading
    }
  }
}
