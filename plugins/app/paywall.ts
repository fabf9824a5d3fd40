import fp from 'fastify-plugin'
import type { Address } from '@solana/kit'
import type { HttpExchange } from '../../lib/doors/http-door.js'
import { wantsHtml } from '../../lib/paywall/accept.js'
import { loadPaywallAssets, type PaywallAssets } from '../../lib/paywall/assets.js'
import { createPaywallPage } from '../../lib/paywall/page.js'
import { createErrorPage } from '../../lib/paywall/error-page.js'
import { createRequestLimit } from '../../lib/paywall/request-limit.js'
import { createPaymentPreparer, type PaymentPreparer } from '../../lib/x402/prepare-payment.js'

/** Where the page's files and the preparation endpoint live. */
export const PAYWALL_ASSET_PREFIX = '/paywall'
export const PREPARE_PATH = '/api/x402/prepare'

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment page for people (issue #41); undefined when PAYWALL=false or its bundle was not built. */
    paywall: {
      assets: PaywallAssets
      /** For the HTTP door: which unpaid requests get the page, and the page. */
      door: { wanted: (request: Pick<HttpExchange, 'headers'>) => boolean, page: ReturnType<typeof createPaywallPage> }
      /** A paid route's 4xx for a person's browser, as a page (plugins/app/error-handler.ts). */
      errorPage: ReturnType<typeof createErrorPage>
      preparer: PaymentPreparer
      limit: ReturnType<typeof createRequestLimit>
    } | undefined
  }
}

/**
 * The browser's way to pay: the page the HTTP door answers a person's 402 with, its bundled
 * script and style, and the preparer behind POST /api/x402/prepare. Payment itself goes through
 * the same door and core as any x402 client's.
 */
export default fp(async (fastify) => {
  const { config, solana, x402 } = fastify
  const assets = config.PAYWALL ? loadPaywallAssets(PAYWALL_ASSET_PREFIX) : undefined
  if (config.PAYWALL && assets === undefined) {
    fastify.log.warn('the payment page is not built (npm run build writes dist/paywall/); browsers get the JSON 402')
  }
  if (assets === undefined) {
    fastify.decorate('paywall', undefined)
    return
  }
  const page = createPaywallPage({
    assets,
    symbol: config.PAYMENT_TOKEN_SYMBOL,
    cluster: config.SOLANA_NETWORK,
    x402Network: config.x402Network,
    payTo: config.paymentAddress,
    mint: config.paymentMint,
    prepareUrl: PREPARE_PATH,
    catalogue: fastify.catalogue
  })
  fastify.decorate('paywall', {
    assets,
    door: { wanted: request => wantsHtml(request.headers.accept), page },
    errorPage: createErrorPage({ assets, catalogue: fastify.catalogue }),
    preparer: createPaymentPreparer({
      rpc: solana.rpc,
      feePayer: x402.feePayer.address as Address,
      payTo: config.paymentAddress,
      mint: config.paymentMint,
      maxPriorityFeeLamports: BigInt(config.X402_MAX_PRIORITY_FEE_LAMPORTS)
    }),
    limit: createRequestLimit({ max: config.PAYWALL_PREPARE_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS, shared: fastify.limitCounts, scope: 'prepare' })
  })
}, { name: 'paywall', fastify: '5.x', dependencies: ['config', 'limit-counts', 'solana', 'x402'] })
