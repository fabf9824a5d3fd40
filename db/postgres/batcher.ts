interface Waiting<I, O> {
  item: I
  resolve: (value: O) => void
  reject: (error: unknown) => void
}

/**
 * Groups calls that arrive while the database is busy into one statement: at most `maxInFlight`
 * statements run at once, and each takes up to `maxBatch` of the calls waiting when it starts.
 * An idle store sends every call at once, alone (no added wait); a busy one sends one statement
 * and one commit for many calls instead of one each. `run` answers each item, in order.
 */
export function createBatcher<I, O> (run: (items: I[]) => Promise<O[]>, options: { maxInFlight: number, maxBatch: number }) {
  const queue: Array<Waiting<I, O>> = []
  let inFlight = 0

  function pump () {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch)
      inFlight++
      run(batch.map(waiting => waiting.item)).then(results => {
        batch.forEach((waiting, index) => waiting.resolve(results[index]))
      }, (error: unknown) => {
        for (const waiting of batch) waiting.reject(error)
      }).finally(() => {
        inFlight--
        pump()
      })
    }
  }

  return async (item: I): Promise<O> => await new Promise<O>((resolve, reject) => {
    queue.push({ item, resolve, reject })
    pump()
  })
}
