import type { Address } from '@solana/kit'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { getBase58Decoder, getBase58Encoder } from '@solana/kit'

/**
 * The part of a getTransaction result (encoding json or jsonParsed) the launch reads: keys,
 * instructions (outer and inner) and token balances. Loose on purpose: both encodings, any version.
 */
export interface RawTransaction {
  slot: number | bigint
  blockTime?: number | bigint | null
  transaction: {
    signatures: string[]
    message: { accountKeys: Array<string | { pubkey: string }>, instructions: RawInstruction[] }
  }
  meta: {
    err: unknown
    loadedAddresses?: { writable: string[], readonly: string[] } | null
    innerInstructions?: Array<{ instructions: RawInstruction[] }> | null
    preTokenBalances?: RawTokenBalance[] | null
    postTokenBalances?: RawTokenBalance[] | null
  } | null
}

type RawInstruction =
  | { programIdIndex: number, accounts: number[], data: string }
  | { programId: string, parsed?: { type: string, info: Record<string, unknown> }, accounts?: string[], data?: string }

interface RawTokenBalance { accountIndex: number, mint: string, owner?: string, uiTokenAmount: { amount: string } }

/** Tokens of the mint that reached one token account in one transaction. */
export interface Receipt {
  owner: Address
  tokenAccount: Address
  received: bigint
}

export interface LaunchTransaction {
  signature: string
  slot: bigint
  blockTime: number | null
  feePayer: Address
  failed: boolean
  /** Set when the transaction initialises the mint: the mint authority it was given. */
  initialisedWith?: { mintAuthority: Address }
  receipts: Receipt[]
}

const INITIALIZE_MINT = 0
const INITIALIZE_MINT_2 = 20
const TOKEN_PROGRAMS = new Set<string>([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS])
const base58 = getBase58Encoder()
const base58Text = getBase58Decoder()

function accountKeys (raw: RawTransaction): string[] {
  const keys = raw.transaction.message.accountKeys.map(key => typeof key === 'string' ? key : key.pubkey)
  // json encoding lists the lookup tables' addresses apart; jsonParsed has them in accountKeys already.
  const loaded = typeof raw.transaction.message.accountKeys[0] === 'string' ? raw.meta?.loadedAddresses : undefined
  return loaded == null ? keys : [...keys, ...loaded.writable, ...loaded.readonly]
}

/** The mint an InitializeMint(2) initialises and the mint authority it sets, from either encoding; undefined for any other instruction. */
function initialisation (instruction: RawInstruction, keys: string[]): { mint: Address, mintAuthority: Address } | undefined {
  if ('programIdIndex' in instruction) {
    if (!TOKEN_PROGRAMS.has(keys[instruction.programIdIndex])) return undefined
    const data = base58.encode(instruction.data)
    if ((data[0] !== INITIALIZE_MINT && data[0] !== INITIALIZE_MINT_2) || data.length < 34) return undefined
    return { mint: keys[instruction.accounts[0]] as Address, mintAuthority: base58Text.decode(data.subarray(2, 34)) as Address }
  }
  const { parsed } = instruction
  if (!TOKEN_PROGRAMS.has(instruction.programId) || parsed === undefined || typeof parsed !== 'object') return undefined
  if (parsed.type !== 'initializeMint' && parsed.type !== 'initializeMint2') return undefined
  const { mint, mintAuthority } = parsed.info
  return typeof mint === 'string' && typeof mintAuthority === 'string' ? { mint: mint as Address, mintAuthority: mintAuthority as Address } : undefined
}

function allInstructions (raw: RawTransaction): RawInstruction[] {
  return [...raw.transaction.message.instructions, ...(raw.meta?.innerInstructions ?? []).flatMap(group => group.instructions)]
}

/** The mints a successful transaction initialises, with its fee payer (the creator's history). */
export function initialisedMints (raw: RawTransaction): { feePayer: Address, mints: Address[] } {
  const keys = accountKeys(raw)
  const failed = raw.meta === null || raw.meta.err !== null
  const mints = failed ? [] : allInstructions(raw).map(instruction => initialisation(instruction, keys)?.mint).filter((mint): mint is Address => mint !== undefined)
  return { feePayer: keys[0] as Address, mints: [...new Set(mints)] }
}

/** Token balance increases of the mint's accounts: MintTo, TransferChecked and program buys alike. */
function receipts (raw: RawTransaction, keys: string[], mint: Address): Receipt[] {
  const before = new Map((raw.meta?.preTokenBalances ?? []).filter(entry => entry.mint === mint).map(entry => [entry.accountIndex, BigInt(entry.uiTokenAmount.amount)]))
  const found: Receipt[] = []
  for (const entry of raw.meta?.postTokenBalances ?? []) {
    if (entry.mint !== mint || entry.owner === undefined) continue
    const received = BigInt(entry.uiTokenAmount.amount) - (before.get(entry.accountIndex) ?? 0n)
    if (received > 0n) found.push({ owner: entry.owner as Address, tokenAccount: keys[entry.accountIndex] as Address, received })
  }
  return found
}

/** What one transaction did to `mint`: who paid, whether it created the mint, who received tokens. */
export function decodeLaunchTransaction (raw: RawTransaction, mint: Address): LaunchTransaction {
  const keys = accountKeys(raw)
  const mintAuthority = allInstructions(raw).map(instruction => initialisation(instruction, keys)).find(found => found?.mint === mint)?.mintAuthority
  return {
    signature: raw.transaction.signatures[0],
    slot: BigInt(raw.slot),
    blockTime: raw.blockTime == null ? null : Number(raw.blockTime),
    feePayer: keys[0] as Address,
    failed: raw.meta === null || raw.meta.err !== null,
    ...(mintAuthority === undefined ? {} : { initialisedWith: { mintAuthority } }),
    receipts: raw.meta === null || raw.meta.err !== null ? [] : receipts(raw, keys, mint)
  }
}
