import { getAddressDecoder, type Address, type Base64EncodedBytes, type GetMultipleAccountsApi, type GetTokenLargestAccountsApi, type Rpc } from '@solana/kit'
import { decodePool, type DecodedPool } from './pool-decoders.js'
import { INCINERATOR, LOCKERS, POOL_PROGRAMS } from './pool-programs.js'
import { decodeMeteoraVault, vaultShare } from './meteora-vaults.js'

export type PoolReadRpc = Rpc<GetMultipleAccountsApi & GetTokenLargestAccountsApi>

/** LP holders are read for this many lp_token pools at most, the largest first (one getTokenLargestAccounts each). */
export const MAX_LP_HOLDER_POOLS = 3
/** getMultipleAccounts takes at most 100 addresses. */
const ACCOUNTS_PER_CALL = 100
const TOKEN_ACCOUNT_SIZE = 165
const MINT_SIZE = 82
const addressDecoder = getAddressDecoder()

interface RawAccount { owner: Address, data: Buffer }

/** Accounts by address, 100 per getMultipleAccounts, with the slot of the first answer; absent accounts are left out. */
async function readAccounts (rpc: PoolReadRpc, addresses: Address[], signal: AbortSignal): Promise<{ accounts: Map<Address, RawAccount>, slot: bigint | undefined }> {
  const accounts = new Map<Address, RawAccount>()
  const unique = [...new Set(addresses)]
  let slot: bigint | undefined
  const chunks: Address[][] = []
  for (let start = 0; start < unique.length; start += ACCOUNTS_PER_CALL) chunks.push(unique.slice(start, start + ACCOUNTS_PER_CALL))
  await Promise.all(chunks.map(async chunk => {
    const { context, value } = await rpc.getMultipleAccounts(chunk, { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: signal })
    slot ??= context.slot
    chunk.forEach((address, index) => {
      const account = value[index]
      if (account != null) accounts.set(address, { owner: account.owner, data: Buffer.from(account.data[0] as Base64EncodedBytes, 'base64') })
    })
  }))
  return { accounts, slot }
}

const isTokenProgram = (owner: string) => owner === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' || owner === 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'

/** An SPL token account's mint, authority and amount (both token programs; Token-2022 accounts are longer). */
export function tokenAccount (account: RawAccount | undefined): { mint: Buffer, authority: Buffer, amount: bigint } | undefined {
  if (account === undefined || !isTokenProgram(account.owner) || account.data.length < TOKEN_ACCOUNT_SIZE) return undefined
  return { mint: account.data.subarray(0, 32), authority: account.data.subarray(32, 64), amount: account.data.readBigUInt64LE(64) }
}

/** A mint's supply (both token programs). */
function mintSupply (account: RawAccount | undefined): bigint | undefined {
  if (account === undefined || !isTokenProgram(account.owner) || account.data.length < MINT_SIZE) return undefined
  return account.data.readBigUInt64LE(36)
}

/** One LP account that is burned (the incinerator's) or locked (a locker's), as found among the largest LP holders. */
export interface LpHolding {
  account: Address
  authority: Address
  amount: bigint
  /** The locker program; undefined for the incinerator. */
  locker?: Address
}

export interface PoolFacts {
  pool: DecodedPool
  /** The vaults' balances, fees owed deducted; undefined when a vault could not be read. */
  reserves: [bigint, bigint] | undefined
  lpSupply?: bigint
  /** Undefined when the LP holders were not read (see holdersReason). */
  holdings?: LpHolding[]
  holdersReason?: string
  evidence: Address[]
}

function reservesOf (pool: DecodedPool, accounts: Map<Address, RawAccount>): [bigint, bigint] | undefined {
  if (pool.program === 'meteora_damm_v1') return dammV1Reserves(pool, accounts)
  const [a, b] = pool.vaults.map(vault => tokenAccount(accounts.get(vault))?.amount)
  if (a === undefined || b === undefined) return undefined
  const net = (amount: bigint, pending: bigint) => amount > pending ? amount - pending : 0n
  return [net(a, pool.pending[0]), net(b, pool.pending[1])]
}

/**
 * DAMM v1 keeps its tokens in Meteora's vaults; its own vault accounts hold LP of those vaults.
 * Each side is that LP's share of its vault's total, the vault checked to hold the pool's mint.
 */
function dammV1Reserves (pool: DecodedPool, accounts: Map<Address, RawAccount>): [bigint, bigint] | undefined {
  if (pool.meteoraVaults === undefined) return undefined
  const sides = [0, 1].map(side => {
    const vault = decodeMeteoraVault(accounts.get(pool.meteoraVaults![side]))
    const share = tokenAccount(accounts.get(pool.vaults[side]))?.amount
    const supply = vault === undefined ? undefined : mintSupply(accounts.get(vault.lpMint))
    if (vault === undefined || vault.tokenMint !== pool.mints[side] || share === undefined || supply === undefined) return undefined
    return vaultShare(vault, share, supply)
  })
  return sides[0] === undefined || sides[1] === undefined ? undefined : [sides[0], sides[1]]
}

/** A DAMM v1 pool's Meteora vaults and their LP mints, as read. */
function dammV1Evidence (pool: DecodedPool, accounts: Map<Address, RawAccount>): Address[] {
  return (pool.meteoraVaults ?? []).flatMap(vault => {
    const decoded = decodeMeteoraVault(accounts.get(vault))
    return decoded === undefined ? [] : [vault, decoded.lpMint]
  })
}

/** The vaults' LP mints a DAMM v1 pool's reserves need, once its Meteora vaults are read. */
function dammV1VaultLpMints (pools: DecodedPool[], accounts: Map<Address, RawAccount>): Address[] {
  return pools.flatMap(pool => (pool.meteoraVaults ?? []).flatMap(vault => {
    const decoded = decodeMeteoraVault(accounts.get(vault))
    return decoded === undefined ? [] : [decoded.lpMint]
  }))
}

const LOCK_AUTHORITIES = new Map(LOCKERS.flatMap(locker => locker.authorities.map(authority => [authority as string, locker.program])))
const LOCKER_PROGRAMS = new Set<string>(LOCKERS.map(locker => locker.program))

/**
 * The largest LP holders of up to MAX_LP_HOLDER_POOLS pools, and which of them are burned or
 * locked: a holder whose authority is the incinerator is burned; one whose authority is a known
 * lock authority, or an account of a locker program, is locked. Three rounds whatever the pool
 * count: the largest accounts, their token accounts, their authorities' accounts.
 */
async function readHoldings (rpc: PoolReadRpc, pools: Array<{ pool: DecodedPool, lpMint: Address }>, signal: AbortSignal) {
  const listed = await Promise.all(pools.map(async ({ lpMint }) => {
    try {
      const { value } = await rpc.getTokenLargestAccounts(lpMint, { commitment: 'confirmed' }).send({ abortSignal: signal })
      return value.map(entry => entry.address)
    } catch (error) {
      if (signal.aborted) throw error
      return undefined
    }
  }))
  const holderAccounts = (await readAccounts(rpc, listed.flatMap(list => list ?? []), signal)).accounts
  const decodedAuthorities = new Map<Address, Address>()
  for (const account of listed.flatMap(list => list ?? [])) {
    const token = tokenAccount(holderAccounts.get(account))
    if (token !== undefined) decodedAuthorities.set(account, addressDecoder.decode(token.authority))
  }
  const toAsk = [...new Set([...decodedAuthorities.values()].filter(authority => authority !== INCINERATOR && !LOCK_AUTHORITIES.has(authority)))]
  const authorityAccounts = (await readAccounts(rpc, toAsk, signal)).accounts
  return pools.map(({ pool }, index): Pick<PoolFacts, 'holdings' | 'holdersReason' | 'evidence'> => {
    const list = listed[index]
    if (list === undefined) return { holdersReason: 'the data RPC refused to list the LP mint\'s largest accounts', evidence: [] }
    const holdings: LpHolding[] = []
    const evidence: Address[] = []
    for (const account of list) {
      const authority = decodedAuthorities.get(account)
      const amount = tokenAccount(holderAccounts.get(account))?.amount
      if (authority === undefined || amount === undefined || amount === 0n) continue
      if (authority === INCINERATOR) {
        holdings.push({ account, authority, amount })
        evidence.push(account)
        continue
      }
      const owner = authorityAccounts.get(authority)?.owner
      // DAMM v1's lock escrows are counted by the pool itself (total_locked_lp).
      const locker = LOCK_AUTHORITIES.get(authority) ?? (owner !== undefined && LOCKER_PROGRAMS.has(owner) && !(pool.program === 'meteora_damm_v1' && owner === POOL_PROGRAMS.meteora_damm_v1.id) ? owner : undefined)
      if (locker === undefined) continue
      holdings.push({ account, authority, amount, locker })
      evidence.push(account, authority)
    }
    return { holdings, evidence }
  })
}

/**
 * The pools at `addresses` that trade `mint`, read fresh: the pool accounts (one round; an absent
 * account, one of another program or layout, or a pool of other mints is left out), then their
 * vaults and LP mints (one round), then the LP holders of the largest lp_token pools (three rounds).
 */
export async function readPools (rpc: PoolReadRpc, mint: Address, addresses: Address[], signal: AbortSignal): Promise<{ facts: PoolFacts[], slot: bigint | undefined }> {
  const { accounts: poolAccounts, slot } = await readAccounts(rpc, addresses, signal)
  const pools = addresses.flatMap(address => {
    const account = poolAccounts.get(address)
    const pool = account === undefined ? null : decodePool(address, account.owner, account.data)
    return pool !== null && pool.mints.includes(mint) ? [pool] : []
  })
  const { accounts } = await readAccounts(rpc, pools.flatMap(pool => [...pool.vaults, ...(pool.lpMint === undefined ? [] : [pool.lpMint]), ...(pool.meteoraVaults ?? [])]), signal)
  // DAMM v1 only: one more round for its vaults' LP mints (their supplies price its LP of them).
  const vaultLpMints = dammV1VaultLpMints(pools, accounts)
  if (vaultLpMints.length > 0) for (const [at, account] of (await readAccounts(rpc, vaultLpMints, signal)).accounts) accounts.set(at, account)
  const facts: PoolFacts[] = pools.map(pool => ({
    pool,
    reserves: reservesOf(pool, accounts),
    ...(pool.lpMint === undefined ? {} : { lpSupply: mintSupply(accounts.get(pool.lpMint)) }),
    evidence: [pool.address, ...pool.vaults, ...(pool.lpMint === undefined ? [] : [pool.lpMint]), ...dammV1Evidence(pool, accounts)]
  }))
  const side = (fact: PoolFacts) => fact.reserves?.[fact.pool.mints[0] === mint ? 0 : 1] ?? -1n
  facts.sort((a, b) => side(a) === side(b) ? 0 : side(a) > side(b) ? -1 : 1)
  const withLp = facts.filter(fact => fact.pool.lpMint !== undefined && fact.lpSupply !== undefined)
  const chosen = withLp.slice(0, MAX_LP_HOLDER_POOLS)
  if (chosen.length > 0) {
    const read = await readHoldings(rpc, chosen.map(fact => ({ pool: fact.pool, lpMint: fact.pool.lpMint as Address })), signal)
    chosen.forEach((fact, index) => {
      const { holdings, holdersReason, evidence } = read[index]
      if (holdings !== undefined) fact.holdings = holdings
      if (holdersReason !== undefined) fact.holdersReason = holdersReason
      fact.evidence.push(...evidence)
    })
  }
  for (const fact of withLp.slice(MAX_LP_HOLDER_POOLS)) fact.holdersReason = `LP holders are read for the ${MAX_LP_HOLDER_POOLS} largest pools with an LP token only`
  return { facts, slot }
}
