import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { address } from '@solana/kit'
import { validationError } from '../../../lib/errors/error-body.js'
import { SolanaAddress } from '../../../schemas/common.js'
import { ErrorResponse } from '../../../schemas/error.js'
import { PaymentRequired } from '../../../schemas/payment.js'
import { PAID_SECURITY, PROOF_HEADERS } from '../../../schemas/payment.js'
import { defaultResponse, documented, errorResponses, HEADERS, paymentRequiredResponse } from '../../../schemas/responses.js'
import { TokenAnalysis } from '../../../schemas/token-analysis.js'
import { isBase58Address } from '../../../lib/solana/base58.js'
import { boundedMemo } from '../../../lib/http/bounded-memo.js'

const ADDRESS_PROBLEM = 'must be a base58-encoded 32-byte Solana address'
// Decoding base58 was the costliest step of a 402 here; agents ask about the same mints again and
// again, so the last answers are kept (bounded: the addresses are the client's to vary).
const REMEMBERED_ADDRESSES = 1024

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { tokenAnalysis } = fastify
  const { dataNetwork } = fastify.config
  const decodesToAddress = boundedMemo(REMEMBERED_ADDRESSES, isBase58Address)

  fastify.get('/:address', {
    config: { paidService: 'analyze-token' },
    schema: {
      operationId: 'analyzeToken',
      tags: ['paid'],
      summary: `Security analysis of a token mint from on-chain data (${dataNetwork}), with a 1-100 risk score`,
      description: 'Reads the mint (SPL Token or Token-2022, extensions included), its metadata and its largest holders ' +
        `with standard Solana RPC calls on ${dataNetwork} (the merchant's data network, which may differ from the network ` +
        'it is paid on), and explains the score finding by finding. A malformed address is answered 400 ' +
        `before any payment is asked; a missing account on ${dataNetwork} (404) or an account that is not a mint (422) is ` +
        'found after payment, and leaves the proof unredeemed for another call; so does a data RPC that cannot answer (503).',
      params: Type.Object({
        address: Type.String({ pattern: SolanaAddress.pattern, description: 'mint address (base58, 32 bytes)', examples: SolanaAddress.examples })
      }),
      headers: PROOF_HEADERS,
      security: PAID_SECURITY,
      response: {
        200: documented(TokenAnalysis, 'the analysis, paid for; the receipt is in x-payment-response', HEADERS.receipt),
        402: paymentRequiredResponse(PaymentRequired),
        ...errorResponses('analyzeToken'),
        default: defaultResponse(ErrorResponse)
      }
    },
    // Before validation and payment: the pattern lets through strings that do not decode to
    // exactly 32 bytes, and nobody should pay to learn that their address is malformed.
    // Callback style: a synchronous check needs no promise.
    preValidation: (request, _reply, done) => {
      done(decodesToAddress(request.params.address) ? undefined : validationError([{ in: 'params', path: 'address', message: ADDRESS_PROBLEM }]))
    }
  }, async (request) => await tokenAnalysis.analyze(address(request.params.address)))
}

export default routes
