import { getBase58Encoder } from '@solana/kit'
import { identifyTokenInstruction, TOKEN_PROGRAM_ADDRESS, TokenInstruction } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { CompiledInstruction, PaymentTransaction } from './verify-transaction.js'

// Transfer and TransferChecked data is 9 and 10 bytes (at most 14 base58 characters): longer data
// is another instruction and is not decoded.
const MAX_TRANSFER_DATA_CHARS = 16
const base58 = getBase58Encoder()

/** Where each transfer instruction keeps its source and its authority (the token program's account order). */
const ACCOUNTS_OF: Partial<Record<TokenInstruction, { source: number, authority: number }>> = {
  [TokenInstruction.Transfer]: { source: 0, authority: 2 },
  [TokenInstruction.TransferChecked]: { source: 0, authority: 3 }
}

function transferAccounts (instruction: CompiledInstruction, keys: readonly string[]): { source: number, authority: string } | undefined {
  const program = keys[Number(instruction.programIdIndex)]
  if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM_ADDRESS) return undefined
  if (instruction.data.length === 0 || instruction.data.length > MAX_TRANSFER_DATA_CHARS) return undefined
  let kind: TokenInstruction
  try {
    kind = identifyTokenInstruction(base58.encode(instruction.data))
  } catch {
    return undefined
  }
  const at = ACCOUNTS_OF[kind]
  if (at === undefined) return undefined
  const source = instruction.accounts[at.source]
  const authority = keys[Number(instruction.accounts[at.authority])]
  return source === undefined || authority === undefined ? undefined : { source: Number(source), authority }
}

/**
 * The delegates that moved the payment mint in a landed transaction: for each transfer
 * authority that is not the owner of the account it spent from (an SPL `Approve` made it that
 * account's delegate, or the token program would have refused it), the owners it spent for. Read
 * from the top-level and the inner instructions (a program may transfer as a delegate by CPI).
 */
export function delegatedOwners (tx: PaymentTransaction, mint: string): Map<string, Set<string>> {
  const keys = tx.transaction.message.accountKeys
  const ownerOf = new Map<number, string>()
  for (const balance of tx.meta?.preTokenBalances ?? []) {
    if (balance.mint === mint && balance.owner !== undefined) ownerOf.set(Number(balance.accountIndex), balance.owner)
  }
  const delegated = new Map<string, Set<string>>()
  const instructions = [
    ...(tx.transaction.message.instructions ?? []),
    ...(tx.meta?.innerInstructions ?? []).flatMap(group => group.instructions)
  ]
  for (const instruction of instructions) {
    const transfer = transferAccounts(instruction, keys)
    const owner = transfer === undefined ? undefined : ownerOf.get(transfer.source)
    if (transfer === undefined || owner === undefined || owner === transfer.authority) continue
    const owners = delegated.get(transfer.authority) ?? new Set<string>()
    owners.add(owner)
    delegated.set(transfer.authority, owners)
  }
  return delegated
}
