import type { KeyPairSigner } from '@solana/kit'
import fp from 'fastify-plugin'
import { ConfigError } from '../../config.js'
import { createRedelivery } from '../../lib/contract/redelivery.js'
import { loadKeypairWithNodeKey, resolveMerchantAddress } from '../../lib/solana/keypair-file.js'
import { createFeePayerMonitor, ensureMerchantTokenAccount, watchFeePayerBalance, type FeePayerState } from '../../lib/x402/fee-payer.js'
import { x402Network } from '../../lib/x402/networks.js'
import { createPayerFailureBudget } from '../../lib/x402/payer-failures.js'
import { keepMerchantTokenAccount } from '../../lib/x402/token-account-keeper.js'
import { createX402Payments, type X402Payments } from '../../lib/x402/x402-payments.js'
import { refundExtension } from '../../lib/refunds/refund-extension.js'
import { loggableError } from '../../lib/errors/loggable-error.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The standard x402 flow (exact scheme, v1 and v2), the merchant acting as its own facilitator. */
    x402: Pick<X402Payments, 'paymentRequired' | 'verifyAndClaim' | 'verifyAndClaimTransaction' | 'settle'> & {
      /** The x402 network, in both spellings. */
      network: { v1: string, v2: string }
      /** The fee payer; its signer pays the fees of refunds too (plugins/app/refunds.ts). */
      feePayer: { address: string, state: () => FeePayerState, signer: KeyPairSigner }
    }
  }
}

const BALANCE_CHECK_MS = 60_000
const BALANCE_AFTER_SETTLE_MS = 10_000
const FIRST_CHECK_RETRY_MS = 2_000
/** How often the store's payer failure log is read again: other instances' failures count from then on. */
const PAYER_FAILURES_SYNC_MS = 10_000

export default fp(async (fastify) => {
  const { config, store, solana } = fastify
  // The fee payer's keypair signs: its secret is read once here and never logged. Config checked
  // the file; the merchant keypair it defaults to is created here when config allowed it.
  let feePayerKeys
  try {
    if (config.keypairToCreate === config.feePayerKeypairPath) resolveMerchantAddress(config.feePayerKeypairPath)
    feePayerKeys = await loadKeypairWithNodeKey(config.feePayerKeypairPath)
  } catch (error) {
    throw new ConfigError([`X402_FEE_PAYER_KEYPAIR_PATH: ${(error as Error).message}`])
  }
  const feePayer = feePayerKeys.signer
  const network = x402Network(config.x402Network)
  const refund = refundExtension(config, fastify.receipts.baseUrl)
  // Kept in the store: a restart or another instance knows a wallet's failed settlements (read again every PAYER_FAILURES_SYNC_MS).
  const payerFailures = createPayerFailureBudget({
    limit: config.X402_PAYER_FAILURE_LIMIT,
    windowMs: config.X402_PAYER_FAILURE_WINDOW_SECONDS * 1000,
    onBlocked: (payer, failures) => fastify.log.warn({ payer, failures, windowSeconds: config.X402_PAYER_FAILURE_WINDOW_SECONDS },
      'a paying wallet used up its budget of failed x402 settlements; it is refused (429 PAYER_BLOCKED) until the window moves on'),
    log: store.payerFailures,
    onLogError: error => fastify.log.warn({ error: loggableError(error) }, 'a failed settlement was not written to the store; it counts in this process only')
  })
  await payerFailures.sync().catch((error: unknown) => fastify.log.warn({ error: loggableError(error) }, 'the payer failure log could not be read at start; it is read again shortly'))
  const payerFailuresTimer = setInterval(() => { payerFailures.sync().catch(() => {}) }, PAYER_FAILURES_SYNC_MS).unref()
  const payments = await createX402Payments({
    catalogue: fastify.catalogue,
    rpc: solana.rpc,
    claims: store.claims,
    feePayer,
    feePayerNodeKey: feePayerKeys.nodeKey,
    network,
    payTo: config.paymentAddress,
    mint: config.paymentMint,
    commitment: config.PAYMENT_COMMITMENT,
    // Config checks that the lease covers the handler and the settlement; the core renews it meanwhile.
    leaseMs: config.PAYMENT_LEASE_SECONDS * 1000,
    settlementTimeoutMs: config.X402_SETTLEMENT_TIMEOUT_MS,
    maxTimeoutSeconds: Math.min(config.PAYMENT_MAX_AGE_SECONDS, 300),
    maxPriorityFeeLamports: BigInt(config.X402_MAX_PRIORITY_FEE_LAMPORTS),
    receipts: fastify.receipts,
    ...(refund === undefined ? {} : { refund }),
    redeliveryOf: createRedelivery({ claims: store.claims, mode: config.REDELIVERY, unknownForMs: config.PAYMENT_LEASE_SECONDS * 1000 }),
    payerFailures,
    ensureNetwork: async () => await solana.health.ensureVerified(error => fastify.log.fatal(error.message)),
    payToAccountMissing: () => tokenAccount.missing()
  })

  const monitor = createFeePayerMonitor({ rpc: solana.rpc, address: feePayer.address, minLamports: BigInt(config.X402_FEE_PAYER_MIN_LAMPORTS), log: fastify.log })
  // Read again after the fee payer spent on a settlement (at most every BALANCE_AFTER_SETTLE_MS), and every minute.
  const balanceWatch = watchFeePayerBalance({ read: async () => await monitor.check(), minIntervalMs: BALANCE_AFTER_SETTLE_MS })

  fastify.decorate('x402', {
    paymentRequired: payments.paymentRequired,
    verifyAndClaim: payments.verifyAndClaim,
    verifyAndClaimTransaction: payments.verifyAndClaimTransaction,
    settle: payments.settle,
    network,
    feePayer: { address: feePayer.address, state: monitor.state, signer: feePayer }
  })

  // Neither check holds up the start: an unreachable RPC or an unfunded fee payer only delays
  // the standard flow, never the service.
  // A first read that failed (a node slow at start) is tried again soon rather than at the next minute.
  const firstCheck = () => { balanceWatch.check().then(state => { if (state === 'unchecked' && !closed) firstTimer = setTimeout(firstCheck, FIRST_CHECK_RETRY_MS).unref() }, () => {}) }
  let firstTimer: NodeJS.Timeout | undefined
  let closed = false
  firstCheck()
  const balanceTimer = setInterval(() => { balanceWatch.check().catch(() => {}) }, BALANCE_CHECK_MS).unref()
  const tokenAccount = keepMerchantTokenAccount({
    ensure: async () => await ensureMerchantTokenAccount({ rpc: solana.rpc, feePayer, payTo: config.paymentAddress, mint: config.paymentMint, timeoutMs: config.X402_SETTLEMENT_TIMEOUT_MS }),
    balance: async () => {
      await monitor.check()
      return monitor.lamports()
    },
    feePayer: feePayer.address,
    log: fastify.log
  })
  fastify.addHook('onClose', async () => {
    closed = true
    balanceWatch.stop()
    clearInterval(balanceTimer)
    clearInterval(payerFailuresTimer)
    clearTimeout(firstTimer)
    tokenAccount.stop()
  })
}, { name: 'x402', fastify: '5.x', dependencies: ['config', 'store', 'solana', 'receipts'] })
