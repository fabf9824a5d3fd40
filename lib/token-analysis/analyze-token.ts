import type { Address, GetAccountInfoApi, GetTokenLargestAccountsApi, GetTokenSupplyApi, Rpc, Slot } from '@solana/kit'
import type { TokenAnalysisBody, TokenExtensionBody, TokenMetadataBody } from '../../schemas/token-analysis.js'
import { normaliseExtension } from './extensions.js'
import { holderDistribution, readHolders } from './holders.js'
import type { NetworkName } from '../solana/networks.js'
import { knownIssuer } from './known-issuers.js'
import { readMetaplexMetadata } from './metaplex-metadata.js'
import { readMint } from './read-mint.js'
import { assessRisks, riskScore } from './score.js'
import { summarise } from './summary.js'

/** The RPC methods one analysis uses. */
export type TokenAnalysisRpc = Rpc<GetAccountInfoApi & GetTokenLargestAccountsApi & GetTokenSupplyApi>

export interface TokenAnalyzerOptions {
  /** The data RPC: the node of the cluster the analysed tokens live on. */
  rpc: TokenAnalysisRpc
  /** That cluster (DATA_NETWORK): named in every answer, and it decides which issuers are known. */
  network: NetworkName
  /** Runs before each read; throws (503) while the data RPC is not known to serve `network`. */
  ensureNetwork?: () => Promise<void>
  /** How long an answer is reused for the same mint; 0 still shares reads that overlap in time. */
  cacheTtlMs: number
  now?: () => number
}

/** Bound on cached mints; every analysis is paid for, so this is only a memory guard. */
const MAX_CACHED_MINTS = 1000

/**
 * The token-metadata extension of the mint if it has one, else its Metaplex metadata account.
 * Metadata is mutable when its update authority can rewrite it, or when a Token-2022 metadata
 * pointer authority can point the mint at other metadata.
 */
async function readMetadata (rpc: TokenAnalysisRpc, mint: Address, extensions: TokenExtensionBody[], slot: Slot): Promise<TokenMetadataBody | null> {
  const pointer = extensions.find(extension => extension.type === 'metadata_pointer')
  const movable = pointer !== undefined && pointer.authority !== null
  const own = extensions.find(extension => extension.type === 'token_metadata')
  if (own !== undefined) {
    const { name, symbol, uri, update_authority: updateAuthority } = own
    return { source: 'token-2022', address: mint, name, symbol, uri, update_authority: updateAuthority, mutable: updateAuthority !== null || movable }
  }
  const metaplex = await readMetaplexMetadata(rpc, mint, slot)
  if (metaplex === null) return null
  const { address, name, symbol, uri, updateAuthority, isMutable } = metaplex
  return { source: 'metaplex', address, name, symbol, uri, update_authority: updateAuthority, mutable: isMutable || movable }
}

/**
 * Security analysis of a mint from standard RPC reads: getAccountInfo of the mint, then together
 * getAccountInfo of its Metaplex metadata (unless the mint carries its own), getTokenLargestAccounts
 * and getTokenSupply. Everything but the holder reads is pinned to the slot of the mint read, and
 * the answer holds no clock time, so the same mint at the same slot gets the same answer.
 */
export function createTokenAnalyzer ({ rpc, network, ensureNetwork, cacheTtlMs, now = Date.now }: TokenAnalyzerOptions) {
  const cache = new Map<Address, { expiresAt: number, analysis: Promise<TokenAnalysisBody> }>()

  async function read (address: Address): Promise<TokenAnalysisBody> {
    await ensureNetwork?.()
    const { mint, slot } = await readMint(rpc, address)
    const extensions = mint.extensions.map(normaliseExtension)
    const [metadata, holders] = await Promise.all([readMetadata(rpc, address, extensions, slot), readHolders(rpc, address)])
    const issuer = knownIssuer(address, network)
    const risks = assessRisks({ ...mint, extensions, metadata, holders, issuer })
    const score = riskScore(risks)
    return {
      risk_score: score,
      authorities: {
        mint_authority_disabled: mint.mintAuthority === null,
        freeze_authority_disabled: mint.freezeAuthority === null,
        ...(mint.mintAuthority === null ? {} : { mint_authority: mint.mintAuthority }),
        ...(mint.freezeAuthority === null ? {} : { freeze_authority: mint.freezeAuthority })
      },
      summary: summarise(score, risks),
      mint: address,
      network,
      token_program: mint.programAddress,
      decimals: mint.decimals,
      supply: mint.supply.toString(),
      holders: holderDistribution(holders),
      extensions,
      metadata,
      ...(issuer === undefined ? {} : { issuer }),
      risks,
      slot: Number(slot)
    }
  }

  function forgetExpired (time: number) {
    for (const [mint, entry] of cache) if (entry.expiresAt <= time) cache.delete(mint)
    // Still full of fresh entries: drop the oldest (Map keeps insertion order).
    for (const mint of cache.keys()) {
      if (cache.size < MAX_CACHED_MINTS) break
      cache.delete(mint)
    }
  }

  /**
   * The analysis of one mint. Calls for a mint already being read share that read; answers are
   * reused for cacheTtlMs; failures are never cached.
   */
  function analyze (address: Address): Promise<TokenAnalysisBody> {
    const time = now()
    const cached = cache.get(address)
    if (cached !== undefined && cached.expiresAt > time) return cached.analysis
    if (cache.size >= MAX_CACHED_MINTS) forgetExpired(time)
    const entry = { expiresAt: Number.POSITIVE_INFINITY, analysis: read(address) }
    cache.set(address, entry)
    entry.analysis.then(() => {
      entry.expiresAt = now() + cacheTtlMs
      if (cacheTtlMs <= 0 && cache.get(address) === entry) cache.delete(address)
    }, () => {
      if (cache.get(address) === entry) cache.delete(address)
    })
    return entry.analysis
  }

  return { analyze }
}
