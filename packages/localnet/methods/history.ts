// getSignatureStatuses, getTransaction, getSignaturesForAddress. Every landed transaction is
// immediately "finalized" (one node, no forks).
import { invalidParams, RpcError, UNSUPPORTED_TRANSACTION_VERSION } from '../rpc-errors.js'
import { renderEncodedTransaction, renderMeta, statusOf, type BinaryTransactionEncoding } from '../encoding/transaction-json.js'
import { renderParsedTransaction } from '../encoding/transaction-parsed.js'
import { withContext, type MethodHandler } from './context.js'
import { checkCommitment, checkMinContextSlot, parseAddress, parseConfig, parseSignature, required, type Config } from './params.js'

const MAX_SIGNATURE_STATUSES = 256
const MAX_SIGNATURES_PAGE = 1000
const TRANSACTION_ENCODINGS = ['json', 'jsonParsed', 'base64', 'base58'] as const
type TransactionEncoding = (typeof TRANSACTION_ENCODINGS)[number]

function transactionConfig (value: unknown): Config {
  // the legacy form passes the encoding as a bare string
  return typeof value === 'string' ? { encoding: value } : parseConfig(value)
}

export const historyMethods: Record<string, MethodHandler> = {
  getSignatureStatuses: (params, { chain }) => {
    const signatures = required(params, 0, '1 or 2 parameters')
    if (!Array.isArray(signatures)) throw invalidParams('Invalid params: invalid type: expected a sequence of signatures.')
    if (signatures.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`)
    const parsed = signatures.map(parseSignature)
    parseConfig(params[1])
    return withContext(
      chain,
      parsed.map((signature) => {
        const record = chain.ledger.get(signature)
        if (!record) return null
        return { confirmationStatus: 'finalized', confirmations: null, err: record.meta.err, slot: record.slot, status: statusOf(record.meta.err) }
      })
    )
  },

  getTransaction: (params, { chain }) => {
    const signature = parseSignature(required(params, 0, '1 or 2 parameters'))
    const config = transactionConfig(params[1])
    checkCommitment(config, true)
    const encoding = (config.encoding ?? 'json') as TransactionEncoding
    if (!TRANSACTION_ENCODINGS.includes(encoding)) {
      throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`)
    }
    const maxVersion = config.maxSupportedTransactionVersion
    if (maxVersion !== undefined && maxVersion !== null && !(Number.isInteger(maxVersion) && (maxVersion as number) >= 0 && (maxVersion as number) <= 255)) {
      throw invalidParams('Invalid params: maxSupportedTransactionVersion must be an integer between 0 and 255.')
    }
    const record = chain.ledger.get(signature)
    if (!record) return null
    const hasMax = typeof maxVersion === 'number'
    if (record.tx.version === 0 && !hasMax) {
      throw new RpcError(
        UNSUPPORTED_TRANSACTION_VERSION,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0'
      )
    }
    const { transaction, meta } =
      encoding === 'jsonParsed'
        ? renderParsedTransaction(record)
        : { transaction: renderEncodedTransaction(record, encoding as BinaryTransactionEncoding), meta: renderMeta(record, { includeLoadedAddresses: true }) }
    const result: Record<string, unknown> = { blockTime: record.blockTime, meta, slot: record.slot, transaction, transactionIndex: 0 }
    // `version` is only sent to clients that declared which versions they understand
    if (hasMax) result.version = record.tx.version
    return result
  },

  getSignaturesForAddress: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    const config = parseConfig(params[1])
    checkCommitment(config, true)
    checkMinContextSlot(config, chain.slot)
    const limit = config.limit ?? MAX_SIGNATURES_PAGE
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_SIGNATURES_PAGE) {
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_PAGE}`)
    }
    const before = config.before === undefined || config.before === null ? undefined : parseSignature(config.before)
    const until = config.until === undefined || config.until === null ? undefined : parseSignature(config.until)
    return chain.ledger.signaturesForAddress(address, { before, until, limit: limit as number }).map((record) => ({
      blockTime: record.blockTime,
      confirmationStatus: 'finalized',
      err: record.meta.err,
      memo: record.memo,
      signature: record.signature,
      slot: record.slot,
      transactionIndex: 0,
    }))
  },
}
