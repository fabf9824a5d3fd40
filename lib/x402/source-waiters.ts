/**
 * Settlements of this process waiting for a source token account another settlement holds. A
 * release here wakes them at once; a release by another process sharing the store is seen when
 * their poll comes round. Without it, a wallet paying for calls in parallel waited up to a whole
 * poll interval per payment after the one before it had landed.
 */
export function createSourceWaiters () {
  const waiting = new Map<string, Set<() => void>>()
  return {
    /** Resolves when `source` is released by this process, or after `ms`. */
    async wait (source: string, ms: number): Promise<void> {
      await new Promise<void>(resolve => {
        let wakers = waiting.get(source)
        if (wakers === undefined) waiting.set(source, wakers = new Set())
        const wake = () => {
          clearTimeout(timer)
          wakers.delete(wake)
          if (wakers.size === 0) waiting.delete(source)
          resolve()
        }
        const timer = setTimeout(wake, ms)
        wakers.add(wake)
      })
    },
    released (source: string): void {
      for (const wake of waiting.get(source) ?? []) wake()
    }
  }
}
