// getTransaction results in the `json`, `base64` and `base58` encodings (agave
// EncodedConfirmedTransactionWithStatusMeta with UiRawMessage / binary transaction).
import { encodeBase58 } from './base58.js'
import type { RecordedMeta, TransactionRecord } from '../ledger.js'
import type { UiTransactionError } from './transaction-error.js'

export type BinaryTransactionEncoding = 'json' | 'base64' | 'base58'

export function statusOf (err: UiTransactionError | null): { Ok: null } | { Err: UiTransactionError } {
  return err === null ? { Ok: null } : { Err: err }
}

export function renderInnerInstructions (inner: RecordedMeta['innerInstructions']) {
  return inner.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((instruction) => ({
      accounts: instruction.accounts,
      data: encodeBase58(instruction.data),
      programIdIndex: instruction.programIdIndex,
      stackHeight: instruction.stackHeight,
    })),
  }))
}

export function renderReturnData (returnData: RecordedMeta['returnData']) {
  return returnData ? { data: [Buffer.from(returnData.data).toString('base64'), 'base64'], programId: returnData.programId } : null
}

/** The status meta shared by every encoding; jsonParsed drops loadedAddresses (OptionSerializer::Skip). */
export function renderMeta (record: TransactionRecord, options: { includeLoadedAddresses: boolean }): Record<string, unknown> {
  const meta = record.meta
  const rendered: Record<string, unknown> = {
    computeUnitsConsumed: meta.computeUnitsConsumed,
    costUnits: meta.costUnits,
    err: meta.err,
    fee: meta.fee,
    innerInstructions: renderInnerInstructions(meta.innerInstructions),
    logMessages: meta.logMessages,
    postBalances: meta.postBalances,
    postTokenBalances: meta.postTokenBalances,
    preBalances: meta.preBalances,
    preTokenBalances: meta.preTokenBalances,
    rewards: [],
    status: statusOf(meta.err),
  }
  if (options.includeLoadedAddresses) rendered.loadedAddresses = record.loadedAddresses
  const returnData = renderReturnData(meta.returnData)
  if (returnData) rendered.returnData = returnData
  return rendered
}

function renderRawMessage (record: TransactionRecord): Record<string, unknown> {
  const tx = record.tx
  const message: Record<string, unknown> = {
    accountKeys: tx.staticAccountKeys,
    header: tx.header,
    instructions: tx.instructions.map((instruction) => ({
      accounts: instruction.accounts,
      data: encodeBase58(instruction.data),
      programIdIndex: instruction.programIdIndex,
      stackHeight: 1,
    })),
    recentBlockhash: tx.recentBlockhash,
  }
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups
  return message
}

export function renderEncodedTransaction (record: TransactionRecord, encoding: BinaryTransactionEncoding): unknown {
  if (encoding === 'base64') return [Buffer.from(record.tx.bytes).toString('base64'), 'base64']
  if (encoding === 'base58') return [encodeBase58(record.tx.bytes), 'base58']
  return { message: renderRawMessage(record), signatures: record.tx.signatures.map((signature) => encodeBase58(signature)) }
}
