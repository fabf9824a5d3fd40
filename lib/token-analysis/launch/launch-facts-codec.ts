import type { Address } from '@solana/kit'
import type { LaunchFacts } from './launch-part.js'

/** Launch facts as kept in the store: JSON, amounts and slots as strings (exact beyond 2^53). */
export function encodeLaunchFacts (facts: LaunchFacts): string {
  return JSON.stringify({
    ...facts,
    slot: facts.slot.toString(),
    bundledInCreation: facts.bundledInCreation.toString(),
    earlyBuyers: facts.earlyBuyers.map(buyer => ({ ...buyer, received: buyer.received.toString(), slot: buyer.slot.toString() }))
  })
}

interface StoredFacts extends Omit<LaunchFacts, 'slot' | 'bundledInCreation' | 'earlyBuyers'> {
  slot: string
  bundledInCreation: string
  earlyBuyers: Array<{ owner: Address, tokenAccount: Address, received: string, slot: string, signature: string }>
}

/** The facts back from their JSON (written by encodeLaunchFacts: the store's own rows). */
export function decodeLaunchFacts (json: string): LaunchFacts {
  const stored = JSON.parse(json) as StoredFacts
  return {
    ...stored,
    slot: BigInt(stored.slot),
    bundledInCreation: BigInt(stored.bundledInCreation),
    earlyBuyers: stored.earlyBuyers.map(buyer => ({ ...buyer, received: BigInt(buyer.received), slot: BigInt(buyer.slot) }))
  }
}
