import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { passTemplateProbe } from '../../../lib/http/template-probe.js'
import { checkTokenInputs } from '../../../lib/prices/check-token-inputs.js'
import { PaymentRequired } from '../../../schemas/payment.js'
import { FetchPriceParams, FetchPriceQuery, PriceResponse } from '../../../schemas/price.js'
import { PROOF_HEADERS } from '../../../schemas/payment.js'
import { defaultResponse, documented, errorResponses, HEADERS, paymentRequiredResponse } from '../../../schemas/responses.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { prices } = fastify
  const { dataNetwork } = fastify.config

  fastify.get('/:token', {
    // The payment gate sets the fixed headers.
    config: { paidService: 'fetch-price', setsFixedHeaders: true },
    schema: {
      operationId: 'fetchPrice',
      tags: ['paid'],
      summary: `Price of a Solana token (${dataNetwork}, the merchant's data network), in USDC or another quote token`,
      description: 'Jupiter price v3: `price` = usdPrice(token) / usdPrice(vs). Symbols and mints resolve against the token ' +
        `list of ${dataNetwork}; Jupiter lists mainnet-beta tokens only. Unknown or ambiguous tokens are answered ` +
        '404/409 before any payment is asked; every failure after payment leaves the proof unredeemed.',
      params: FetchPriceParams,
      querystring: FetchPriceQuery,
      headers: PROOF_HEADERS,
      response: {
        200: documented(PriceResponse, 'the price, paid for; the receipt is in x-payment-response', HEADERS.receipt),
        402: paymentRequiredResponse(PaymentRequired),
        ...errorResponses('fetchPrice'),
        default: defaultResponse('fetchPrice')
      }
    },
    // Validation failures are thrown by the preHandler, but for a crawler's request of the template
    // itself (/api/fetch-price/%7Btoken%7D), which gets the 402 with the terms (lib/http/template-probe.ts).
    attachValidation: true,
    // Runs ahead of the payment gate (a preHandler too, so the request meets one hook stage, not
    // two), so nobody pays to learn that a symbol is unknown or ambiguous, or that a mint-like
    // string is not 32 bytes. Input the schema pattern refuses was answered by validation.
    preHandler: async (request) => {
      if (passTemplateProbe(request, 'token')) return
      await checkTokenInputs(prices, [
        { in: 'params', path: 'token', value: request.params.token },
        { in: 'querystring', path: 'vs', value: request.query.vs }
      ])
    }
  }, async (request) => ({ data: await prices.getPrice(request.params.token, request.query.vs) }))
}

export default routes
