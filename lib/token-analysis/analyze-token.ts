import type { Address, GetAccountInfoApi, GetMultipleAccountsApi, GetTokenLargestAccountsApi, GetTokenSupplyApi, Rpc, SimulateTransactionApi, Slot } from '@solana/kit'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { TokenAnalysisBody, TokenExtensionBody, TokenMetadataBody } from '../../schemas/token-analysis.js'
import { normaliseExtension } from './extensions.js'
import { holderDistribution, readHolders } from './holders.js'
import type { NetworkName } from '../solana/networks.js'
import { knownIssuer } from './known-issuers.js'
import { readMetaplexMetadata } from './metaplex-metadata.js'
import { readMint } from './read-mint.js'
import { listChecks } from './checks.js'
import { marketBody, type MarketRead, type MarketReader } from './market.js'
import { assessRisks, riskScore } from './score.js'
import { checkSale, sellCheckBody, type SellRead } from './sell-check.js'
import { simulateTransfer, transferSimulationBody, type TransferSimulationRead } from './transfer-simulation.js'
import { summarise } from './summary.js'
import { describePowers, listPowers, readAuthorityHolders, type AuthorityHoldersRead } from './authority-holders.js'
import { isNativeMint } from './native-mint.js'
import type { AnalysisPart } from './analysis-part.js'
import { mergeFields, readParts } from './compose-parts.js'

/** The RPC methods one analysis uses. */
export type TokenAnalysisRpc = Rpc<GetAccountInfoApi & GetTokenLargestAccountsApi & GetTokenSupplyApi & GetMultipleAccountsApi & SimulateTransactionApi>

export interface TokenAnalyzerOptions {
  /** The data RPC: the node of the cluster the analysed tokens live on. */
  rpc: TokenAnalysisRpc
  /** That cluster (DATA_NETWORK): named in every answer, and it decides which issuers are known. */
  network: NetworkName
  /** Runs before each read; throws (503) while the data RPC is not known to serve `network`. */
  ensureNetwork?: () => Promise<void>
  /** How long an answer is reused for the same mint; 0 still shares reads that overlap in time. */
  cacheTtlMs: number
  /** Market data and sell quotes (Jupiter at PRICE_API_URL); without it both checks do not apply. */
  market?: MarketReader
  /**
   * Simulate a plain transfer after the holder reads, given this much time from the start of the
   * analysis (the chain reads' share of its budget); absent: no simulation. The read of the powers'
   * holders is given up at the same time (its holders are then unknown).
   */
  transferSimulation?: { budgetMs: number }
  /** The deeper parts (pools, curve, launch, clusters, creator), read side by side after the mint. */
  parts?: readonly AnalysisPart[]
  /** Time the parts get from the start of the analysis; a part still reading then is `unavailable`. */
  partsBudgetMs?: number
  now?: () => number
}

/** Inside the paid call's budget, leaving time to judge and answer. */
const DEFAULT_PARTS_BUDGET_MS = 3000

const NO_MARKET: MarketRead = { state: 'not_applicable', reason: 'Market data does not apply: the analysis has no price API configured.' }
const NO_SALE: SellRead = { state: 'not_applicable', reason: 'The sell check does not apply: the analysis has no price API configured.' }

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
 * and getTokenSupply. Everything but the holder reads is pinned to the slot of the mint read. Jupiter
 * (when configured) is asked in parallel: its token record from the start, the sell quotes once the
 * mint's decimals are known; a failing Jupiter never fails the analysis, its checks say so. Without
 * Jupiter the answer holds no clock time, so the same mint at the same slot gets the same answer.
 */
export function createTokenAnalyzer ({ rpc, network, ensureNetwork, cacheTtlMs, market, transferSimulation, parts = [], partsBudgetMs = DEFAULT_PARTS_BUDGET_MS, now = Date.now }: TokenAnalyzerOptions) {
  const cache = new Map<Address, { expiresAt: number, analysis: Promise<TokenAnalysisBody> }>()

  async function read (address: Address): Promise<TokenAnalysisBody> {
    await ensureNetwork?.()
    // The simulation and the authorities' accounts come after two rounds of reads; they get what is left of the budget.
    const deadline = transferSimulation === undefined ? undefined : AbortSignal.timeout(transferSimulation.budgetMs)
    const partsSignal = AbortSignal.timeout(partsBudgetMs)
    // Never rejects: started before the chain reads, awaited after them.
    const marketRead = market === undefined ? Promise.resolve(NO_MARKET) : market.readMarket(address)
    const { mint, slot } = await readMint(rpc, address)
    const extensions = mint.extensions.map(normaliseExtension)
    const sellRead = market === undefined ? Promise.resolve(NO_SALE) : marketRead.then(read => checkSale(market.client, address, mint.decimals, read))
    const holdersRead = readHolders(rpc, address)
    const transferRead: Promise<TransferSimulationRead | undefined> = deadline === undefined
      ? Promise.resolve(undefined)
      : holdersRead.then(holders => simulateTransfer({ rpc, mint: address, programAddress: mint.programAddress, decimals: mint.decimals, extensions, holders, signal: deadline }))
    const metadataRead = readMetadata(rpc, address, extensions, slot)
    const partsRead = readParts(parts, {
      mint: address,
      tokenProgram: mint.programAddress,
      decimals: mint.decimals,
      supply: mint.supply,
      mintAuthority: mint.mintAuthority,
      freezeAuthority: mint.freezeAuthority,
      slot,
      holders: holdersRead,
      market: marketRead,
      signal: partsSignal
    })
    // One getMultipleAccounts for every power's holder, once the metadata names its update
    // authority: two rounds on the metadata side, while the holder side takes up to four.
    const powersRead = metadataRead.then(async metadata => {
      const powers = listPowers(mint, extensions, metadata)
      const read: AuthorityHoldersRead = await readAuthorityHolders(rpc, powers.map(power => power.address), slot, deadline)
      return { described: describePowers(powers, read), read }
    })
    const [metadata, powers, holders, marketFacts, sell, transfer, partOutcomes] = await Promise.all([
      metadataRead,
      powersRead,
      holdersRead,
      marketRead,
      sellRead,
      transferRead,
      partsRead
    ])
    const issuer = knownIssuer(address, network)
    const nativeMint = isNativeMint(address, mint.programAddress)
    const partFindings = partOutcomes.flatMap(outcome => outcome.findings)
    const risks = assessRisks({ ...mint, extensions, metadata, holders, issuer, market: marketFacts, sell, transfer, powers: powers.described, nativeMint, partFindings })
    const score = riskScore(risks)
    const holderBody = holderDistribution(holders)
    return mergeFields({
      risk_score: score,
      authorities: {
        mint_authority_disabled: mint.mintAuthority === null,
        freeze_authority_disabled: mint.freezeAuthority === null,
        ...(mint.mintAuthority === null ? {} : { mint_authority: mint.mintAuthority }),
        ...(mint.freezeAuthority === null ? {} : { freeze_authority: mint.freezeAuthority }),
        powers: powers.described
      },
      summary: summarise(score, risks),
      mint: address,
      network,
      token_program: mint.programAddress,
      decimals: mint.decimals,
      supply: mint.supply.toString(),
      holders: holderBody,
      extensions,
      metadata,
      ...(issuer === undefined ? {} : { issuer }),
      market: marketBody(marketFacts),
      sell_check: sellCheckBody(sell),
      transfer_simulation: transferSimulationBody(transfer),
      checks: listChecks({
        tokenProgram: mint.programAddress === TOKEN_2022_PROGRAM_ADDRESS ? 'token-2022' : 'spl-token',
        extensions,
        slot: Number(slot),
        nativeMint,
        authorityHolders: powers.read,
        holders: holderBody,
        issuer,
        market: market === undefined ? undefined : marketFacts,
        sell: market === undefined ? undefined : sell,
        transfer,
        partChecks: partOutcomes.flatMap(outcome => outcome.checks),
        risks
      }),
      risks,
      slot: Number(slot)
    }, partOutcomes)
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
