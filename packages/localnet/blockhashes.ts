// One blockhash per slot, valid for 150 blocks like on a real cluster (LiteSVM alone only accepts the
// very latest hash). Hashes are derived from the genesis hash and the slot, so they are stable per run.
import { encodeBase58 } from './encoding/base58.js'
import { createHash } from 'node:crypto'

/** MAX_PROCESSING_AGE of the Solana runtime. */
export const BLOCKHASH_VALID_BLOCKS = 150
const KEPT_SLOTS = BLOCKHASH_VALID_BLOCKS * 2

export class RecentBlockhashes {
  private readonly slotByHash = new Map<string, number>()
  private readonly hashBySlot = new Map<number, string>()

  constructor (private readonly genesisHash: string) {}

  /** Records the hash of a new slot and forgets hashes long expired. */
  produce (slot: number): string {
    const hash = encodeBase58(createHash('sha256').update(`${this.genesisHash}/slot/${slot}`).digest())
    this.slotByHash.set(hash, slot)
    this.hashBySlot.set(slot, hash)
    const forgotten = this.hashBySlot.get(slot - KEPT_SLOTS)
    if (forgotten !== undefined) {
      this.hashBySlot.delete(slot - KEPT_SLOTS)
      this.slotByHash.delete(forgotten)
    }
    return hash
  }

  hashOf (slot: number): string {
    const hash = this.hashBySlot.get(slot)
    if (hash === undefined) throw new Error(`no blockhash kept for slot ${slot}`)
    return hash
  }

  lastValidBlockHeight (slot: number): number {
    return slot + BLOCKHASH_VALID_BLOCKS
  }

  /** Whether a transaction landing in `landingSlot` may use `hash`. */
  isValidFor (hash: string, landingSlot: number): boolean {
    const slot = this.slotByHash.get(hash)
    return slot !== undefined && landingSlot <= this.lastValidBlockHeight(slot)
  }
}
