import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { address } from '@solana/kit'
import { passTemplateProbe } from '../../../lib/http/template-probe.js'
import { checkMintInput } from '../../../lib/token-analysis/check-mint-input.js'
import { PaymentRequired } from '../../../schemas/payment.js'
import { PROOF_HEADERS } from '../../../schemas/payment.js'
import { defaultResponse, documented, errorResponses, HEADERS, paymentRequiredResponse } from '../../../schemas/responses.js'
import { AnalyzeTokenParams, TokenAnalysis } from '../../../schemas/token-analysis.js'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { tokenAnalysis } = fastify
  const { dataNetwork } = fastify.config

  fastify.get('/:address', {
    // The payment gate sets the fixed headers.
    config: { paidService: 'analyze-token', setsFixedHeaders: true },
    schema: {
      operationId: 'analyzeToken',
      tags: ['paid'],
      summary: `Security analysis of a token mint from on-chain data (${dataNetwork}), with a 1-100 risk score`,
      description: 'Reads the mint (SPL Token or Token-2022, extensions included), its metadata and its largest holders ' +
        `with standard Solana RPC calls on ${dataNetwork} (the merchant's data network, which may differ from the network ` +
        'it is paid on), simulates a plain transfer, asks Jupiter\'s token API for market data and its swap quote API for sell quotes ' +
        '(Jupiter failing never fails the call: `checks` says what could not be read), and explains the score finding by finding. A malformed address is answered 400 ' +
        `before any payment is asked; a missing account on ${dataNetwork} (404) or an account that is not a mint (422) is ` +
        'found after payment, and leaves the proof unredeemed for another call; so does a data RPC that cannot answer (503).',
      params: AnalyzeTokenParams,
      headers: PROOF_HEADERS,
      response: {
        200: documented(TokenAnalysis, 'the analysis, paid for; the receipt is in x-payment-response', HEADERS.receipt),
        402: paymentRequiredResponse(PaymentRequired),
        ...errorResponses('analyzeToken'),
        default: defaultResponse('analyzeToken')
      }
    },
    // Validation failures are thrown by the preHandler, but for a crawler's request of the template
    // itself (/api/analyze-token/%7Baddress%7D), which gets the 402 with the terms (lib/http/template-probe.ts).
    attachValidation: true,
    // Before payment: the pattern lets through strings that do not decode to exactly 32 bytes,
    // and nobody should pay to learn that their address is malformed. A preHandler, ahead of the
    // payment gate's, rather than a preValidation hook: each hook stage costs every request
    // Fastify's hook runner (measured 3.5 us of a 402's 27). Callback style: a synchronous check
    // needs no promise.
    preHandler: (request, _reply, done) => {
      try {
        if (!passTemplateProbe(request, 'address')) checkMintInput({ in: 'params', path: 'address', value: request.params.address })
        done()
      } catch (error) {
        done(error as Error)
      }
    }
  }, async (request) => await tokenAnalysis.analyze(address(request.params.address)))
}

export default routes
