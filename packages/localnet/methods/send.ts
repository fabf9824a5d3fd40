// sendTransaction (with preflight simulation), simulateTransaction and the faucet's requestAirdrop.
import { decodeBase58 } from '../encoding/base58.js'
import { invalidParams, RpcError, SEND_TRANSACTION_PREFLIGHT_FAILURE, TRANSACTION_SIGNATURE_VERIFICATION_FAILURE } from '../rpc-errors.js'
import { parseWireTransaction, UnsupportedVersionError, WireFormatError, type WireTransaction } from '../encoding/wire-transaction.js'
import { describeTransactionError } from '../encoding/transaction-error.js'
import { renderSimulationResult } from '../encoding/simulation-result.js'
import { signatureOf } from '../chain.js'
import { withContext, type MethodHandler } from './context.js'
import { checkCommitment, checkMinContextSlot, parseAccountEncoding, parseAddress, parseConfig, parseU64, required, type Config } from './params.js'

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const MAX_AIRDROP_LAMPORTS = 1_000_000n * 1_000_000_000n

function decodeTransaction (value: unknown, config: Config): WireTransaction {
  if (typeof value !== 'string') throw invalidParams('Invalid params: invalid type: expected an encoded transaction string.')
  const encoding = config.encoding ?? 'base58'
  let bytes: Uint8Array
  if (encoding === 'base58') {
    try {
      bytes = Uint8Array.from(decodeBase58(value))
    } catch {
      throw invalidParams('invalid base58 encoding: InvalidCharacter')
    }
  } else if (encoding === 'base64') {
    if (!BASE64.test(value)) throw invalidParams('invalid base64 encoding: InvalidByte')
    bytes = Uint8Array.from(Buffer.from(value, 'base64'))
  } else {
    throw invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`)
  }
  try {
    return parseWireTransaction(bytes)
  } catch (error) {
    if (error instanceof WireFormatError) throw invalidParams(error.message)
    if (error instanceof UnsupportedVersionError) throw invalidParams(`invalid transaction: ${error.message}`)
    throw error
  }
}

export const sendMethods: Record<string, MethodHandler> = {
  sendTransaction: (params, { chain }) => {
    const config = parseConfig(params[1])
    const tx = decodeTransaction(required(params, 0, '1 or 2 parameters'), config)
    if (config.preflightCommitment !== undefined) checkCommitment({ commitment: config.preflightCommitment })
    checkMinContextSlot(config, chain.slot)
    const signature = signatureOf(tx)

    if (config.skipPreflight !== true) {
      const simulation = chain.simulate(tx, { verifySignatures: true, replaceRecentBlockhash: false })
      if (simulation.report.err === 'SignatureFailure') {
        throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure')
      }
      if (chain.ledger.has(signature)) simulation.report.err = 'AlreadyProcessed'
      if (simulation.report.err !== null) {
        throw new RpcError(
          SEND_TRANSACTION_PREFLIGHT_FAILURE,
          `Transaction simulation failed: ${describeTransactionError(simulation.report.err, simulation.report.logs)}`,
          renderSimulationResult(chain, simulation)
        )
      }
    }
    const { report, record } = chain.submit(tx)
    if (!record && report.err === 'SignatureFailure') {
      throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure')
    }
    // Without preflight a transaction that cannot land is dropped silently, as by a real leader.
    return signature
  },

  simulateTransaction: (params, { chain }) => {
    const config = parseConfig(params[1])
    const tx = decodeTransaction(required(params, 0, '1 or 2 parameters'), config)
    checkCommitment(config)
    checkMinContextSlot(config, chain.slot)
    const verifySignatures = config.sigVerify === true
    const replaceRecentBlockhash = config.replaceRecentBlockhash === true
    if (verifySignatures && replaceRecentBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash')
    const accountsConfig = config.accounts ? parseConfig(config.accounts) : undefined
    const accounts = accountsConfig
      ? {
          addresses: ((accountsConfig.addresses as unknown[]) ?? []).map(parseAddress),
          encoding: parseAccountEncoding(accountsConfig, 'base64'),
        }
      : undefined
    if (accounts && (accounts.encoding === 'binary' || accounts.encoding === 'base58')) {
      throw invalidParams('base58 encoding not supported')
    }
    const simulation = chain.simulate(tx, { verifySignatures, replaceRecentBlockhash })
    return withContext(
      chain,
      renderSimulationResult(chain, simulation, {
        accounts,
        innerInstructions: config.innerInstructions === true,
        replacementBlockhash: replaceRecentBlockhash ? chain.latestBlockhash() : null,
      })
    )
  },

  requestAirdrop: async (params, { faucet }) => {
    const address = parseAddress(required(params, 0, '2 or 3 parameters'))
    const lamports = parseU64(required(params, 1, '2 or 3 parameters'), 'lamports')
    checkCommitment(parseConfig(params[2]))
    if (lamports > MAX_AIRDROP_LAMPORTS) throw new RpcError(-32600, 'Invalid request: airdrop request exceeds the faucet limit')
    const { report } = await faucet.airdrop(address as never, lamports)
    return report.signature
  },
}
