import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { isAddress, type Address } from '@solana/kit'
import { AppError } from '../../../lib/errors/app-error.js'
import { publicBaseUrl } from '../../../lib/http/public-url.js'
import { paidServiceAt } from '../../../lib/paywall/resource-match.js'
import { PAYMENT_TOKEN_DECIMALS } from '../../../lib/payment/catalog.js'
import { PreparedPayment, PreparePaymentRequest } from '../../../schemas/paywall.js'
import { defaultResponse, documented, errorResponses } from '../../../schemas/responses.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const paywall = fastify.paywall
  if (paywall === undefined) return
  const { config, x402 } = fastify

  fastify.post('/prepare', {
    schema: {
      operationId: 'prepareX402Payment',
      tags: ['browser'],
      summary: 'The unsigned x402 `exact` transaction for a buyer, and the buyer\'s balance: what the payment page has its wallet sign',
      description: 'For the payment page, which reaches no RPC: the merchant builds the transaction an x402 client would (compute budget within ' +
        'the merchant\'s priority-fee cap, one TransferChecked of exactly the price to payTo\'s token account, the merchant\'s fee payer, a memo ' +
        'nonce, a recent blockhash). It signs nothing and keeps nothing: the signed transaction is paid with like any other, in PAYMENT-SIGNATURE. ' +
        'Limited to a number of calls per client and window (429 RATE_LIMITED).',
      // A reference to the registered model, so the document names the body as a component.
      body: Type.Unsafe<Static<typeof PreparePaymentRequest>>({ $ref: PreparePaymentRequest.$id }),
      response: {
        200: documented(PreparedPayment, 'the unsigned transaction and the buyer\'s balance'),
        ...errorResponses('prepareX402Payment'),
        default: defaultResponse('prepareX402Payment')
      }
    }
  }, async (request) => {
    const { resource, buyer } = request.body
    if (!isAddress(buyer)) throw new AppError('VALIDATION_ERROR', 'body/buyer is not a base58 32-byte address')
    if (buyer === x402.feePayer.address) throw new AppError('VALIDATION_ERROR', 'body/buyer is the merchant\'s fee payer, which may pay fees only')
    const service = paidServiceAt(resource, publicBaseUrl(request, config.PUBLIC_BASE_URL), fastify.catalogue)
    if (service === undefined) throw new AppError('RESOURCE_NOT_FOR_SALE', `${JSON.stringify(resource.slice(0, 200))} is not a paid resource of this merchant`)
    // Counted once the request is known to be one the merchant would prepare: the reads below are what the limit protects.
    paywall.limit.take(request.ip)
    const price = fastify.catalogue.product(service).price
    const prepared = await paywall.preparer.prepare(buyer as Address, price)
    return {
      transaction: prepared.transaction,
      buyer,
      balance: prepared.balance.toString(),
      price: price.toString(),
      decimals: PAYMENT_TOKEN_DECIMALS,
      symbol: config.PAYMENT_TOKEN_SYMBOL,
      enough: prepared.balance >= price,
      lastValidBlockHeight: prepared.lastValidBlockHeight.toString()
    }
  })
}

export default routes
