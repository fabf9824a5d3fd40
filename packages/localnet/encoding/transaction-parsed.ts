// getTransaction with encoding "jsonParsed": account keys as objects and the instructions a node knows
// how to parse (memo, the common System, SPL Token / Token-2022 and ATA instructions) rendered as
// {parsed, program, programId, stackHeight}; anything else partially decoded {accounts, data, programId}.
import { encodeBase58 } from './base58.js'
import type { TransactionRecord } from '../ledger.js'
import { isStaticKeyWritable } from './wire-transaction.js'
import { decodeMemoText } from './memos.js'
import { isTokenProgram } from './token-layout.js'
import { uiTokenAmount } from './ui-amount.js'
import { renderMeta } from './transaction-json.js'
import { MEMO_P_PROGRAM, MEMO_V1_PROGRAM, MEMO_V3_PROGRAM } from '../memo-programs.js'

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'
const MEMO_PROGRAMS = new Set<string>([MEMO_V1_PROGRAM, MEMO_V3_PROGRAM, MEMO_P_PROGRAM])

interface Parsed {
  program: string;
  parsed: unknown;
}

function view (data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength)
}

/** Authority or, for a multisig authority, multisigAuthority + signers (agave parse_signers). */
function authority (keys: string[], index: number, name = 'authority'): Record<string, unknown> {
  if (keys.length > index + 1) return { [`multisig${name[0].toUpperCase()}${name.slice(1)}`]: keys[index], signers: keys.slice(index + 1) }
  return { [name]: keys[index] }
}

function parseSystem (data: Uint8Array, keys: string[]): Parsed | null {
  if (data.length < 4) return null
  const tag = view(data).getUint32(0, true)
  if (tag === 2 && data.length === 12) {
    return { program: 'system', parsed: { info: { destination: keys[1], lamports: view(data).getBigUint64(4, true), source: keys[0] }, type: 'transfer' } }
  }
  if (tag === 0 && data.length === 52) {
    const info = {
      lamports: view(data).getBigUint64(4, true),
      newAccount: keys[1],
      owner: encodeBase58(data.subarray(20, 52)),
      source: keys[0],
      space: view(data).getBigUint64(12, true),
    }
    return { program: 'system', parsed: { info, type: 'createAccount' } }
  }
  return null
}

function parseToken (data: Uint8Array, keys: string[]): Parsed | null {
  const amount = () => view(data).getBigUint64(1, true)
  const checked = () => uiTokenAmount(amount(), data[9])
  let parsed: { info: Record<string, unknown>; type: string } | null = null
  switch (data[0]) {
    case 3:
      parsed = { info: { amount: amount().toString(), destination: keys[1], source: keys[0], ...authority(keys, 2) }, type: 'transfer' }
      break
    case 12:
      parsed = { info: { destination: keys[2], mint: keys[1], source: keys[0], tokenAmount: checked(), ...authority(keys, 3) }, type: 'transferChecked' }
      break
    case 7:
      parsed = { info: { account: keys[1], amount: amount().toString(), mint: keys[0], ...authority(keys, 2, 'mintAuthority') }, type: 'mintTo' }
      break
    case 14:
      parsed = { info: { account: keys[1], mint: keys[0], tokenAmount: checked(), ...authority(keys, 2, 'mintAuthority') }, type: 'mintToChecked' }
      break
    case 8:
      parsed = { info: { account: keys[0], amount: amount().toString(), mint: keys[1], ...authority(keys, 2) }, type: 'burn' }
      break
    case 15:
      parsed = { info: { account: keys[0], mint: keys[1], tokenAmount: checked(), ...authority(keys, 2) }, type: 'burnChecked' }
      break
    case 9:
      parsed = { info: { account: keys[0], destination: keys[1], ...authority(keys, 2, 'owner') }, type: 'closeAccount' }
      break
    case 18:
      parsed = { info: { account: keys[0], mint: keys[1], owner: encodeBase58(data.subarray(1, 33)) }, type: 'initializeAccount3' }
      break
    case 20: {
      const info: Record<string, unknown> = { decimals: data[1], mint: keys[0], mintAuthority: encodeBase58(data.subarray(2, 34)) }
      if (data[34] === 1) info.freezeAuthority = encodeBase58(data.subarray(35, 67))
      parsed = { info, type: 'initializeMint2' }
      break
    }
    case 21:
      parsed = { info: { mint: keys[0] }, type: 'getAccountDataSize' }
      break
    case 22:
      parsed = { info: { account: keys[0] }, type: 'initializeImmutableOwner' }
      break
    case 26:
      if (data[1] === 1 && data.length >= 19) {
        const feeView = new DataView(data.buffer, data.byteOffset + 1, data.byteLength - 1)
        const decimals = data[10]
        parsed = {
          info: {
            destination: keys[2],
            feeAmount: uiTokenAmount(feeView.getBigUint64(10, true), decimals),
            mint: keys[1],
            source: keys[0],
            tokenAmount: uiTokenAmount(feeView.getBigUint64(1, true), decimals),
            ...authority(keys, 3),
          },
          type: 'transferCheckedWithFee',
        }
      }
      break
  }
  // agave's parser labels both token programs "spl-token"; clients should match programId.
  return parsed ? { program: 'spl-token', parsed } : null
}

function parseAssociatedToken (data: Uint8Array, keys: string[]): Parsed | null {
  if (data.length > 1 || (data.length === 1 && data[0] > 1)) return null
  const type = data.length === 1 && data[0] === 1 ? 'createIdempotent' : 'create'
  const info = { account: keys[1], mint: keys[3], source: keys[0], systemProgram: keys[4], tokenProgram: keys[5], wallet: keys[2] }
  return { program: 'spl-associated-token-account', parsed: { info, type } }
}

function parseInstruction (programId: string, data: Uint8Array, keys: string[]): Parsed | null {
  try {
    if (MEMO_PROGRAMS.has(programId)) {
      const text = decodeMemoText(data)
      return text === null ? null : { program: 'spl-memo', parsed: text }
    }
    if (programId === SYSTEM_PROGRAM) return parseSystem(data, keys)
    if (isTokenProgram(programId)) return parseToken(data, keys)
    if (programId === ATA_PROGRAM) return parseAssociatedToken(data, keys)
  } catch {
    return null
  }
  return null
}

function renderInstruction (record: TransactionRecord, programIdIndex: number, accounts: number[], data: Uint8Array, stackHeight: number) {
  const programId = record.accountKeys[programIdIndex]
  const keys = accounts.map((index) => record.accountKeys[index])
  const parsed = parseInstruction(programId, data, keys)
  if (parsed) return { parsed: parsed.parsed, program: parsed.program, programId, stackHeight }
  return { accounts: keys, data: encodeBase58(data), programId, stackHeight }
}

export function renderParsedTransaction (record: TransactionRecord): { transaction: unknown; meta: Record<string, unknown> } {
  const tx = record.tx
  const staticCount = tx.staticAccountKeys.length
  const accountKeys = record.accountKeys.map((pubkey, index) => ({
    pubkey,
    signer: index < tx.header.numRequiredSignatures,
    source: index < staticCount ? 'transaction' : 'lookupTable',
    writable: index < staticCount ? isStaticKeyWritable(tx, index) : index < staticCount + record.loadedAddresses.writable.length,
  }))
  const message: Record<string, unknown> = {
    accountKeys,
    instructions: tx.instructions.map((ix) => renderInstruction(record, ix.programIdIndex, ix.accounts, ix.data, 1)),
    recentBlockhash: tx.recentBlockhash,
  }
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups
  const meta = renderMeta(record, { includeLoadedAddresses: false })
  meta.innerInstructions = record.meta.innerInstructions.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) => renderInstruction(record, ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight)),
  }))
  return { transaction: { message, signatures: tx.signatures.map((signature) => encodeBase58(signature)) }, meta }
}
