import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { isAddress, type Address } from '@solana/kit'
import { AppError } from '../../../lib/errors/app-error.js'
import { isPayerSignature } from '../../../lib/refunds/refund-message.js'
import type { RefundAnswer as Answer } from '../../../lib/refunds/refunder.js'
import { RefundAnswer, RefundRequest } from '../../../schemas/refunds.js'
import { defaultResponse, documented, errorResponses } from '../../../schemas/responses.js'

const RECEIPT_VERSION = 1

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const refunds = fastify.refunds
  if (refunds === undefined) return
  const { x402, receipts } = fastify

  /** The signed refund receipt: issued at the chain's verdict, so asking again gives the same bytes. */
  function receiptOf (answer: Extract<Answer, { status: 'executed' }>) {
    const { refund } = answer
    const payload = { version: RECEIPT_VERSION, kind: 'refund', network: x402.network.v2, payment: refund.payment, refundTransaction: answer.refundTxHash, payer: refund.payer, amount: refund.amount.toString(), issuedAt: Math.floor((refund.decidedAt ?? Date.now()) / 1000) }
    return { format: 'jws' as const, signature: receipts.signer.jws(payload) }
  }

  fastify.post('/', {
    schema: {
      operationId: 'requestRefund',
      tags: ['payment'],
      summary: 'Refund of a payment that was never delivered, back to the token account it came from (x402 refund extension, REFUNDS)',
      description: 'The paying wallet signs "token-merchant refund <txHash> <amount> <idempotencyKey>" (ed25519, base58). The signature is checked ' +
        'before anything is read; then one getTransaction says what the payment moved, and one atomic store operation decides the refund against ' +
        'the payment\'s delivery: a delivered payment is never refunded, a refunded one never buys, and a payment is refunded once whatever the ' +
        'idempotency key or instance. Refundable: moved to the merchant, never delivered, inside windowSeconds. Limited per client and window (429 RATE_LIMITED).',
      body: Type.Unsafe<Static<typeof RefundRequest>>({ $ref: RefundRequest.$id }),
      response: {
        200: documented(RefundAnswer, 'executed (refundTxHash, refundReceipt) or denied (denialReason)'),
        202: documented(RefundAnswer, 'pending: the refund was sent or will be; ask again with the same idempotencyKey'),
        ...errorResponses('requestRefund'),
        default: defaultResponse('requestRefund')
      }
    }
  }, async (request, reply) => {
    const { paymentReference, payer, amount, idempotencyKey, reason, payerSignature } = request.body
    if (!isAddress(payer)) throw new AppError('VALIDATION_ERROR', 'body/payer is not a base58 32-byte address')
    if (paymentReference.network !== x402.network.v1 && paymentReference.network !== x402.network.v2) {
      throw new AppError('REFUND_NETWORK_MISMATCH', `this merchant is paid on ${x402.network.v2} (${x402.network.v1}), not ${paymentReference.network.slice(0, 64)}`)
    }
    const asked = BigInt(amount)
    if (asked === 0n) throw new AppError('VALIDATION_ERROR', 'body/amount must be above 0')
    refunds.limit.take(request.ip)
    // Before any RPC or storage: only the payer's key makes this signature.
    if (!await isPayerSignature(payerSignature, payer as Address, paymentReference.txHash, asked, idempotencyKey)) {
      return { status: 'denied' as const, denialReason: 'not_payer' as const }
    }
    const answer = await refunds.refunder.request({ txHash: paymentReference.txHash, payer: payer as Address, amount: asked, idempotencyKey, reason })
    if (answer.status === 'executed') return { status: 'executed' as const, refundTxHash: answer.refundTxHash, refundReceipt: receiptOf(answer) }
    if (answer.status === 'pending') return await reply.code(202).send(answer)
    return answer
  })
}

export default routes
