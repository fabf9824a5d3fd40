import fp from 'fastify-plugin'
import { ConfigError } from '../../config.js'
import { createRequestLimit } from '../../lib/paywall/request-limit.js'
import { createRefunder, type Refunder } from '../../lib/refunds/refunder.js'
import { createRefundTransfer } from '../../lib/refunds/refund-transfer.js'
import { loadKeypairSigner } from '../../lib/solana/keypair-file.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Refunds of payments never delivered (REFUNDS); undefined when off. */
    refunds: {
      refunder: Refunder
      /** The refund endpoint's own rate limit, per client. */
      limit: ReturnType<typeof createRequestLimit>
    } | undefined
  }
}

const RECONCILE_EVERY_MS = 30_000
// Longer than building, sending and confirming one refund: a holder that died is taken over after it.
const LEASE_EXTRA_MS = 30_000

export default fp(async (fastify) => {
  const { config, store, solana, x402 } = fastify
  if (!config.REFUNDS) {
    fastify.decorate('refunds', undefined)
    return
  }
  // The merchant key signs the transfer out of PAYMENT_ADDRESS's token account: only that key can.
  let merchant
  try {
    merchant = await loadKeypairSigner(config.MERCHANT_KEYPAIR_PATH)
  } catch (error) {
    throw new ConfigError([`REFUNDS: MERCHANT_KEYPAIR_PATH: ${(error as Error).message}`])
  }
  if (merchant.address !== config.paymentAddress) {
    throw new ConfigError([`REFUNDS: MERCHANT_KEYPAIR_PATH holds ${merchant.address}, not PAYMENT_ADDRESS ${config.paymentAddress}, whose token account refunds are paid from`])
  }
  // One signer per address in a transaction: the fee payer's own when it is the merchant key.
  const feePayer = x402.feePayer.signer
  const refunder = createRefunder({
    rpc: solana.rpc,
    refunds: store.refunds,
    payTo: config.paymentAddress,
    mint: config.paymentMint,
    x402FeePayer: x402.feePayer.address,
    commitment: config.PAYMENT_COMMITMENT,
    windowMs: config.REFUND_WINDOW_SECONDS * 1000,
    leaseMs: config.X402_SETTLEMENT_TIMEOUT_MS + LEASE_EXTRA_MS,
    confirmTimeoutMs: config.X402_SETTLEMENT_TIMEOUT_MS,
    buildRefund: createRefundTransfer({ rpc: solana.rpc, merchant: feePayer.address === merchant.address ? feePayer : merchant, feePayer, mint: config.paymentMint })
  })
  fastify.decorate('refunds', {
    refunder,
    limit: createRequestLimit({ max: config.REFUND_REQUEST_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS, what: 'refund requests', shared: fastify.limitCounts, scope: 'refunds' })
  })

  // Refunds whose holder died or whose transaction failed, carried out by whichever instance looks first.
  const timer = setInterval(() => {
    refunder.reconcile().catch((error: unknown) => fastify.log.warn({ error: (error as Error).message }, 'refund reconciliation failed; the next round tries again'))
  }, RECONCILE_EVERY_MS).unref()
  fastify.addHook('onClose', async () => { clearInterval(timer) })
}, { name: 'refunds', fastify: '5.x', dependencies: ['config', 'store', 'limit-counts', 'solana', 'x402', 'receipts'] })
