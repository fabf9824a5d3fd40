import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { createKeyPairSignerFromBytes } from '@solana/kit'
import { generateKeypairBytes, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { build } from '../helper.js'
import { startPaidChain } from '../fixtures/paid-chain.js'
import { buildExactPayment, paymentRequiredOf, v2Header } from '../fixtures/x402-payment.js'

t.test('the fee payer: its token account duty, its balance, and a settlement it cannot pay', async (t) => {
  const paid = await startPaidChain(t)
  const dir = mkdtempSync(join(tmpdir(), 'x402-fee-payer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const bytes = generateKeypairBytes()
  const feePayerPath = join(dir, 'fee-payer.json')
  writeKeypairFile(feePayerPath, bytes)
  const feePayer = await createKeyPairSignerFromBytes(bytes)

  t.test('funded: the merchant token account is created at start, the balance is ok', async (t) => {
    await paid.chain.airdrop(feePayer.address, 1_000_000_000n)
    const merchant = await paid.chain.createWallet()
    const [ata] = await findAssociatedTokenPda({ owner: merchant.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    t.equal((await paid.chain.rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value, null, 'no token account before')
    const app = await build(t, { ...paid.env, PAYMENT_ADDRESS: merchant.address, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath })
    let account = null
    for (let i = 0; i < 50 && account === null; i++) {
      await sleep(100)
      account = (await paid.chain.rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' }).send()).value
    }
    t.ok(account, 'created, paid by the fee payer')
    const ready = (await app.inject('/health/ready')).json()
    t.equal(ready.status, 'ok')
    t.equal(ready.checks.fee_payer, 'ok')
  })

  t.test('empty: reported low without making the service unready; a payment is 503 with nothing moved', async (t) => {
    const emptyBytes = generateKeypairBytes()
    const emptyPath = join(dir, 'empty-fee-payer.json')
    writeKeypairFile(emptyPath, emptyBytes)
    const app = await build(t, { ...paid.env, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: emptyPath })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    await sleep(200) // the start-up balance look
    const ready = await app.inject('/health/ready')
    t.equal(ready.statusCode, 200)
    t.same(ready.json(), { status: 'ok', checks: { database: 'up', rpc: 'up', data_rpc: 'up', fee_payer: 'low' } })

    const buyer = await paid.newBuyer(1_000_000n)
    const required = paymentRequiredOf((await fetch(`${url}/api/analyze-token/${paid.mint}`)).headers)
    const empty = await createKeyPairSignerFromBytes(emptyBytes)
    const tx = await buildExactPayment(paid, { buyer, feePayer: empty.address, amount: 100_000n })
    const res = await fetch(`${url}/api/analyze-token/${paid.mint}`, { headers: { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) } })
    t.equal(res.status, 503)
    t.equal((await res.json() as { code: string }).code, 'X402_FEE_PAYER_UNFUNDED')
    t.ok(Number(res.headers.get('retry-after')) > 0)
    t.equal(BigInt((await paid.chain.rpc.getTokenAccountBalance((await findAssociatedTokenPda({ owner: buyer.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]).send()).value.amount), 1_000_000n, 'nothing moved')
  })
})
