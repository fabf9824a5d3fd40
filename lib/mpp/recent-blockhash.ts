import type { SolanaRpc } from '../solana/rpc-client.js'

/** A blockhash lives ~60 s; one this young still leaves the buyer time to sign and send. */
const REFRESHED_AFTER_MS = 20_000

/**
 * The recent blockhash a pull challenge hands the buyer (it saves the buyer an RPC round trip).
 * Read in the background, never on a request's path: unpaid traffic costs one getLatestBlockhash
 * per 20 s at most, however much of it comes; until the first read returns there is none (the
 * buyer's client then fetches its own).
 */
export function createRecentBlockhash (rpc: SolanaRpc, now: () => number = Date.now) {
  let known: string | undefined
  let readAt = -Infinity
  let reading: Promise<void> | undefined

  function refresh (): void {
    if (reading !== undefined) return
    readAt = now()
    reading = rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
      .then(({ value }) => { known = value.blockhash }, () => {})
      .finally(() => { reading = undefined })
  }

  return {
    /** The blockhash last read (undefined before the first read); starts a read when it is old. */
    get (): string | undefined {
      if (now() - readAt > REFRESHED_AFTER_MS) refresh()
      return known
    },
    /** Resolves once the read under way (if any) is done. */
    async settled (): Promise<void> { await reading }
  }
}
