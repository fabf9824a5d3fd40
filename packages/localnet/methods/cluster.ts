// Node and cluster state: health, version, genesis, slot/height, blockhashes, rent, fees.
import { getBase64Encoder } from '@solana/kit'
import { invalidParams } from '../rpc-errors.js'
import { LOCALNET_GENESIS_HASH, transactionFee } from '../chain.js'
import { parseWireTransaction } from '../encoding/wire-transaction.js'
import { FEATURE_SET, SOLANA_CORE_VERSION, withContext, type MethodHandler } from './context.js'
import { checkReadConfig, parseConfig, parseUsize, required } from './params.js'

const base64 = getBase64Encoder()

export const clusterMethods: Record<string, MethodHandler> = {
  getHealth: () => 'ok',

  getVersion: () => ({ 'feature-set': FEATURE_SET, 'solana-core': SOLANA_CORE_VERSION }),

  getGenesisHash: () => LOCALNET_GENESIS_HASH,

  getSlot: (params, { chain }) => {
    checkReadConfig(parseConfig(params[0]), chain.slot)
    return chain.slot
  },

  getBlockHeight: (params, { chain }) => {
    checkReadConfig(parseConfig(params[0]), chain.slot)
    return chain.blockHeight
  },

  getLatestBlockhash: (params, { chain }) => {
    checkReadConfig(parseConfig(params[0]), chain.slot)
    return withContext(chain, chain.latestBlockhash())
  },

  isBlockhashValid: (params, { chain }) => {
    const blockhash = required(params, 0, '1 or 2 parameters')
    if (typeof blockhash !== 'string') throw invalidParams('Invalid params: blockhash must be a base58 string.')
    checkReadConfig(parseConfig(params[1]), chain.slot)
    return withContext(chain, chain.isBlockhashValid(blockhash))
  },

  getMinimumBalanceForRentExemption: (params, { chain }) => {
    const length = parseUsize(required(params, 0, '1 or 2 parameters'), 'data length')
    parseConfig(params[1])
    return chain.engine.minimumBalanceForRentExemption(length)
  },

  /** The fee a message would pay: base fee per signature plus its prioritization fee. */
  getFeeForMessage: (params, { chain }) => {
    const message = required(params, 0, '1 or 2 parameters')
    if (typeof message !== 'string') throw invalidParams('Invalid params: message must be a base64 string.')
    checkReadConfig(parseConfig(params[1]), chain.slot)
    let messageBytes: Uint8Array
    try {
      messageBytes = Uint8Array.from(base64.encode(message))
    } catch {
      throw invalidParams('invalid base64 encoding')
    }
    // Parse it as a transaction with zero signature slots filled by the header count.
    const signatureCount = messageBytes[0] & 0x80 ? messageBytes[1] : messageBytes[0]
    const wire = new Uint8Array(1 + 64 * signatureCount + messageBytes.length)
    wire[0] = signatureCount
    wire.set(messageBytes, 1 + 64 * signatureCount)
    let tx
    try {
      tx = parseWireTransaction(wire)
    } catch (error) {
      throw invalidParams(`invalid message: ${(error as Error).message}`)
    }
    return withContext(chain, chain.isBlockhashValid(tx.recentBlockhash) ? transactionFee(tx) : null)
  },
}
