const DAY_MS = 86_400_000

/** One counter row as both engines write it: requests of a service on a UTC day, by outcome. */
export interface UnpaidCount {
  service: string
  day: string
  outcome: string
  count: number
}

/**
 * Unpaid requests counted in memory between flushes, the same on every engine. Counting is on the
 * path of every 402, so it builds no key: the day's text is made once a day and the counters sit
 * in maps by day, service and outcome (names from fixed tables, bounded like the table rows).
 */
export function createUnpaidCounter () {
  let byDay = new Map<string, Map<string, Map<string, UnpaidCount>>>()
  let day = { start: 0, end: 0, text: '' }

  function dayOf (at: number): string {
    if (at < day.start || at >= day.end) {
      const start = at - (at % DAY_MS)
      day = { start, end: start + DAY_MS, text: new Date(start).toISOString().slice(0, 10) }
    }
    return day.text
  }

  function add (service: string, dayText: string, outcome: string, count: number): void {
    let services = byDay.get(dayText)
    if (services === undefined) byDay.set(dayText, services = new Map())
    let outcomes = services.get(service)
    if (outcomes === undefined) services.set(service, outcomes = new Map())
    const row = outcomes.get(outcome)
    if (row === undefined) outcomes.set(outcome, { service, day: dayText, outcome, count })
    else row.count += count
  }

  return {
    count (service: string, outcome: string, at = Date.now()): void {
      add(service, dayOf(at), outcome, 1)
    },

    /** The rows counted so far, leaving the counter empty. */
    take (): UnpaidCount[] {
      const rows: UnpaidCount[] = []
      for (const services of byDay.values()) {
        for (const outcomes of services.values()) rows.push(...outcomes.values())
      }
      byDay = new Map()
      return rows
    },

    /** Rows taken but not written: counted again, with what arrived meanwhile. */
    restore (rows: UnpaidCount[]): void {
      for (const row of rows) add(row.service, row.day, row.outcome, row.count)
    },

    /**
     * Hands the rows counted so far to `write` (one engine's statement); rows it fails to write are
     * counted again and written on a later flush, and the failure is thrown.
     */
    async flush (write: (rows: UnpaidCount[]) => Promise<unknown> | void): Promise<void> {
      const rows = this.take()
      if (rows.length === 0) return
      try {
        await write(rows)
      } catch (error) {
        this.restore(rows)
        throw error
      }
    }
  }
}
