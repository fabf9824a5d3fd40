import { TaskState } from '@a2a-js/sdk'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { PaymentRequired } from '@x402/core/types'
import t from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { a2aBuyer, artifactOf, payloadFor, x402Of } from '../../fixtures/a2a-client.js'
import { startPaidChain } from '../../fixtures/paid-chain.js'
import { startTestPostgres } from '../../fixtures/postgres.js'
import { createFeePayer } from '../../fixtures/x402-merchant.js'
import { auditRowsOf, build, testEnv } from '../../helper.js'

// Two merchants, a PostgreSQL server and a chain: more than the default 240 s on a loaded machine.
t.setTimeout(480_000)

// Two instances of the service on one PostgreSQL database, as PM2's cluster mode or a load
// balancer runs them: a task asked on one is paid on the other, and read back from either.
t.test('an A2A task created on instance A is paid on instance B (PostgreSQL)', async t => {
  const postgres = await startTestPostgres(t)
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const { feePayerPath } = await createFeePayer(t, paid)
  const env = testEnv(t, {
    ...paid.env,
    DATABASE_URL: await postgres.createDatabase(t),
    X402_NETWORK: 'solana-devnet',
    X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath,
    PRICE_API_URL: priceApi.url,
    X402_SETTLEMENT_TIMEOUT_MS: '1000'
  })
  const [a, b] = [await build(t, env), await build(t, env)]
  t.equal(a.store.engine, 'postgres')
  const [urlA, urlB] = await Promise.all([a, b].map(async app => await app.listen({ port: 0, host: '127.0.0.1' })))
  const [onA, onB] = [await a2aBuyer(urlA), await a2aBuyer(urlB)]
  const buyer = await paid.newBuyer(1_000_000n)
  const [merchantAccount] = await findAssociatedTokenPda({ owner: paid.merchant.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  const balance = async () => (await paid.chain.rpc.getTokenAccountBalance(merchantAccount, { commitment: 'confirmed' }).send()).value.amount

  const asked = await onA.start({ skill: 'fetch-price', token: 'SOL' })
  t.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'A asks for payment')
  const payload = await payloadFor(buyer, x402Of(asked)['x402.payment.required'] as PaymentRequired, paid.chain.url)
  const before = BigInt(await balance())
  const done = await onB.pay(asked.id, payload)
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, `B delivers: ${JSON.stringify(x402Of(done)).slice(0, 300)}`)
  t.match(artifactOf(done), { data: { mintSymbol: 'SOL' } })
  t.equal(BigInt(await balance()) - before, 50_000n, 'paid once, exactly the price')
  const [receipt] = x402Of(done)['x402.payment.receipts']
  t.match(await auditRowsOf(a, receipt.transaction), [{ outcome: 'DELIVERED' }], 'one audit row, in the shared database')

  const readOnA = await onA.getTask(asked.id)
  t.equal(readOnA.status?.state, TaskState.TASK_STATE_COMPLETED, 'A reads the task B completed')
  t.same(artifactOf(readOnA), artifactOf(done), 'with its artifact')
  const replayed = await onA.pay((await onA.start({ skill: 'fetch-price', token: 'SOL' })).id, payload)
  t.match(x402Of(replayed), { 'x402.payment.error': 'PAYMENT_ALREADY_USED' }, 'the payload is spent on every instance')
  t.equal(BigInt(await balance()) - before, 50_000n, 'nothing more moved')
})
