import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { validationError } from '../../../lib/errors/error-body.js'
import { parseTokenInput, TOKEN_INPUT_PATTERN } from '../../../lib/prices/token-input.js'
import { ErrorResponse } from '../../../schemas/error.js'
import { PaymentRequired } from '../../../schemas/payment.js'
import { PriceResponse } from '../../../schemas/price.js'
import { PAID_SECURITY, PROOF_HEADERS } from '../../../schemas/payment.js'
import { defaultResponse, documented, errorResponses, HEADERS, paymentRequiredResponse } from '../../../schemas/responses.js'

const TOKEN_INPUT = new RegExp(TOKEN_INPUT_PATTERN)

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { prices } = fastify
  const { dataNetwork } = fastify.config

  fastify.get('/:token', {
    config: { paidService: 'fetch-price' },
    schema: {
      operationId: 'fetchPrice',
      tags: ['paid'],
      summary: `Price of a Solana token (${dataNetwork}, the merchant's data network), in USDC or another quote token`,
      description: 'Jupiter price v3: `price` = usdPrice(token) / usdPrice(vs). Symbols and mints resolve against the token ' +
        `list of ${dataNetwork}; Jupiter lists mainnet-beta tokens only. Unknown or ambiguous tokens are answered ` +
        '404/409 before any payment is asked; every failure after payment leaves the proof unredeemed.',
      params: Type.Object({
        token: Type.String({
          pattern: TOKEN_INPUT_PATTERN,
          description: 'symbol (case-insensitive, optional leading $) or base58 mint address',
          examples: ['SOL', '$WIF', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN']
        })
      }),
      querystring: Type.Object({
        vs: Type.Optional(Type.String({
          pattern: TOKEN_INPUT_PATTERN,
          description: 'quote token, symbol or mint; USDC when absent',
          examples: ['SOL']
        }))
      }),
      headers: PROOF_HEADERS,
      security: PAID_SECURITY,
      response: {
        200: documented(PriceResponse, 'the price, paid for; the receipt is in x-payment-response', HEADERS.receipt),
        402: paymentRequiredResponse(PaymentRequired),
        ...errorResponses('fetchPrice'),
        default: defaultResponse(ErrorResponse)
      }
    },
    // Runs before validation and the payment preHandler, so nobody pays to learn that a symbol is
    // unknown or ambiguous, or that a mint-like string is not 32 bytes. Input the schema pattern
    // refuses is left to validation.
    preValidation: async (request) => {
      const inputs = [['params', 'token', request.params.token], ['querystring', 'vs', request.query.vs]] as const
      for (const [where, name, raw] of inputs) {
        if (typeof raw !== 'string' || !TOKEN_INPUT.test(raw)) continue
        const parsed = parseTokenInput(raw)
        if (parsed.kind === 'invalid') {
          throw validationError([{ in: where, path: name, message: parsed.reason }])
        }
        await prices.resolveToken(raw)
      }
    }
  }, async (request) => ({ data: await prices.getPrice(request.params.token, request.query.vs) }))
}

export default routes
