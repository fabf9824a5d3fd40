import { createHash } from 'node:crypto'
import { address, getAddressDecoder, type Address } from '@solana/kit'

/**
 * Meteora's dynamic vaults, where a DAMM v1 pool keeps its tokens: the pool holds LP of each
 * vault (a_vault_lp, b_vault_lp), and its reserve of a side is that LP's share of the vault's
 * total. Offsets from the vault program's state (dynamic-vault `Vault`: enabled u8 @8, bumps @9,
 * total_amount u64 @11, token_vault @19, fee_vault @51, token_mint @83, lp_mint @115), checked
 * against real vaults by test/mainnet/pools.mainnet.ts. `total_amount` includes profit the vault
 * still locks for a while, so the reserve is an upper bound by that much.
 */
export const METEORA_VAULT_PROGRAM = address('24Uqj9JCLxUeoC3hGfh5W3s9FM9uCHDS2SG3LYwBpyTi')
export const METEORA_VAULT_SOURCE = 'https://github.com/MeteoraAg/vault-sdk/blob/main/programs/vault/src/state.rs'

const DISCRIMINATOR = createHash('sha256').update('account:Vault').digest().subarray(0, 8)
const MIN_SIZE = 147
const addressDecoder = getAddressDecoder()

export interface MeteoraVault {
  totalAmount: bigint
  tokenMint: Address
  lpMint: Address
}

/** A Meteora vault, or undefined when owner, size or discriminator say it is not one. */
export function decodeMeteoraVault (account: { owner: string, data: Buffer } | undefined): MeteoraVault | undefined {
  if (account === undefined || account.owner !== METEORA_VAULT_PROGRAM || account.data.length < MIN_SIZE || !account.data.subarray(0, 8).equals(DISCRIMINATOR)) return undefined
  return {
    totalAmount: account.data.readBigUInt64LE(11),
    tokenMint: addressDecoder.decode(account.data.subarray(83, 115)),
    lpMint: addressDecoder.decode(account.data.subarray(115, 147))
  }
}

/** The pool's share of the vault's tokens: the vault LP it holds over the vault LP's supply, times the total (rounded down). */
export function vaultShare (vault: MeteoraVault, poolLp: bigint, lpSupply: bigint): bigint | undefined {
  if (lpSupply === 0n || poolLp > lpSupply) return undefined
  return poolLp * vault.totalAmount / lpSupply
}
