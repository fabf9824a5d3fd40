import t from 'tap'
import { retryDelayMs, toolRefusal } from '../../client/mcp.js'

const ACCEPTS = [{ scheme: 'exact', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', amount: '50000', asset: 'A', payTo: 'P', maxTimeoutSeconds: 300 }]

t.test('a refused paid call is read by its fields: the PaymentRequired\'s code and retryAfterSeconds, or the error body\'s', async t => {
  const inProgress = { x402Version: 2, resource: { url: 'mcp://tool/fetch_price' }, accepts: ACCEPTS, code: 'PAYMENT_IN_PROGRESS', retryAfterSeconds: 1, error: 'PAYMENT_IN_PROGRESS: busy (retry in 1 s)' }
  t.same(toolRefusal(inProgress), { code: 'PAYMENT_IN_PROGRESS', retryAfterSeconds: 1, reason: 'PAYMENT_IN_PROGRESS: busy (retry in 1 s)' })
  const limited = { statusCode: 429, code: 'RATE_LIMITED', message: 'slow down', requestId: 'r', retryAfterSeconds: 30 }
  t.same(toolRefusal(limited), { code: 'RATE_LIMITED', retryAfterSeconds: 30, reason: undefined })
  // A PaymentRequired without the fields (another merchant): its text is shown, never parsed.
  const older = { x402Version: 2, resource: { url: 'mcp://tool/fetch_price' }, accepts: ACCEPTS, error: 'PAYMENT_IN_PROGRESS: busy (retry in 1 s)' }
  t.same(toolRefusal(older), { code: undefined, retryAfterSeconds: undefined, reason: 'PAYMENT_IN_PROGRESS: busy (retry in 1 s)' })
  t.same(toolRefusal({ ...inProgress, retryAfterSeconds: -1 }).retryAfterSeconds, undefined, 'a nonsense wait is ignored')
  t.same(toolRefusal(undefined), { code: undefined, retryAfterSeconds: undefined, reason: undefined })
})

t.test('the wait before the same payment goes again: the backoff, or the merchant\'s Retry-After when longer, capped at 8 s', async t => {
  t.equal(retryDelayMs(500, { code: 'PAYMENT_IN_PROGRESS', retryAfterSeconds: 1 }), 1000)
  t.equal(retryDelayMs(2000, { code: 'PAYMENT_IN_PROGRESS', retryAfterSeconds: 1 }), 2000)
  t.equal(retryDelayMs(500, { code: 'RPC_UNAVAILABLE' }), 500)
  t.equal(retryDelayMs(500, { code: 'X402_SETTLEMENT_PENDING', retryAfterSeconds: 60 }), 8000)
})
