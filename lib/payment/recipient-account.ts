import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { Address } from '@solana/kit'
import type { SolanaRpc } from '../solana/rpc-client.js'

const RETRY_MS = 30_000

/**
 * The merchant's associated token account for the payment mint, shown in the 402 so buyers
 * without an x402 library know where to send. It depends on the mint's token program, which
 * takes one RPC read; that read happens in the background, never on a request's path.
 */
export function createRecipientAccount (rpc: SolanaRpc, mint: Address, owner: Address) {
  let known: Address | undefined
  let knownProgram: Address | undefined
  let lastAttempt = 0

  async function resolve (): Promise<void> {
    lastAttempt = Date.now()
    const { value } = await rpc.getAccountInfo(mint, { encoding: 'base64' }).send()
    const tokenProgram = value?.owner
    if (tokenProgram !== TOKEN_PROGRAM_ADDRESS && tokenProgram !== TOKEN_2022_PROGRAM_ADDRESS) return
    const [ata] = await findAssociatedTokenPda({ mint, owner, tokenProgram })
    knownProgram = tokenProgram
    known = ata
  }

  return {
    /** The account if known; otherwise starts a lookup (at most one per 30 s) and returns undefined. */
    get (): Address | undefined {
      if (known === undefined && Date.now() - lastAttempt > RETRY_MS) resolve().catch(() => {})
      return known
    },
    /** The mint's token program, once the account is known (MPP's charge names it). */
    tokenProgram: (): Address | undefined => knownProgram,
    resolve
  }
}
