/**
 * The payment claims this process holds, kept by wrapping the store's claim operations (sync for
 * SQLite, async for PostgreSQL: both shapes pass through unchanged). At the end of a shutdown,
 * a claim still held belongs to a request that could not finish: giving it back makes the proof
 * usable at once, instead of after its lease (a claim whose transaction may have been sent only
 * ends its lease: the chain decides it).
 */
interface ClaimOperations {
  // Method syntax: the store's claim, markSent and redeem take fuller requests; only the fields named here are read.
  claim (request: { signature: string, claimId: string, flow: string }): unknown
  markSent (request: { claimId: string }): unknown
  redeem (request: { claimId: string }): unknown
  release (signature: string, claimId: string): unknown
}

function whenDone<T> (value: T | Promise<T>, then: (result: T) => void): T | Promise<T> {
  if (value instanceof Promise) return value.then(result => { then(result); return result })
  then(value)
  return value
}

export function trackClaims (claims: ClaimOperations) {
  const held = new Map<string, string>() // claimId → signature
  const revoked = new Set<string>()
  let refusing = false
  const claim = claims.claim.bind(claims)
  const redeem = claims.redeem.bind(claims)
  const markSent = claims.markSent.bind(claims)
  const release = claims.release.bind(claims)

  claims.claim = (request) => {
    // After the final release nothing new is taken: the request hears 409 PAYMENT_IN_PROGRESS
    // (retry with the same proof), and its retry reaches a process that is not stopping.
    if (refusing) return { claimed: false, status: 'pending', flow: request.flow }
    return whenDone(claim(request), result => {
      if ((result as { claimed?: boolean }).claimed === true) held.set(request.claimId, request.signature)
    })
  }
  claims.redeem = (request) => {
    // A revoked claim was given back: its request must not deliver.
    if (revoked.has(request.claimId)) return false
    held.delete(request.claimId)
    return redeem(request)
  }
  // A revoked claim sends nothing: its request answers 409 and its retry reaches another process.
  claims.markSent = (request) => revoked.has(request.claimId) ? 'not-held' : markSent(request)
  claims.release = (signature, claimId) => {
    held.delete(claimId)
    return release(signature, claimId)
  }

  return {
    get held (): number { return held.size },
    /** Gives back every claim still held and refuses new ones; resolves with the number released. */
    async releaseAll (): Promise<number> {
      refusing = true
      const entries = [...held]
      held.clear()
      for (const [claimId] of entries) revoked.add(claimId)
      let released = 0
      for (const [claimId, signature] of entries) {
        if (await release(signature, claimId) === true) released++
      }
      return released
    }
  }
}

export type ClaimLedger = ReturnType<typeof trackClaims>
