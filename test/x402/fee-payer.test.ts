import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
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
    // The balance is read beside the account's creation, not before it: wait for the first reading.
    let ready = (await app.inject('/health/ready')).json()
    for (let i = 0; i < 50 && ready.checks.fee_payer === 'unchecked'; i++) {
      await sleep(100)
      ready = (await app.inject('/health/ready')).json()
    }
    t.equal(ready.status, 'ok')
    t.equal(ready.checks.fee_payer, 'ok')
  })

  t.test('too poor for the token account at start: a payment says what it waits for; the account is created within seconds of the funding', async (t) => {
    // The README's local quick start: the merchant starts, then its fee payer is airdropped SOL, then a purchase follows.
    const poorBytes = generateKeypairBytes()
    const poorPath = join(dir, 'poor-fee-payer.json')
    writeKeypairFile(poorPath, poorBytes)
    const poor = await createKeyPairSignerFromBytes(poorBytes)
    await paid.chain.airdrop(poor.address, 1_000_000n) // the fees of a few payments, not a token account's rent
    const merchant = await paid.chain.createWallet()
    const [ata] = await findAssociatedTokenPda({ owner: merchant.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const logs: string[] = []
    const logStream = new Writable({ write (chunk, _encoding, done) { logs.push(String(chunk)); done() } })
    const app = await build(t, { ...paid.env, PAYMENT_ADDRESS: merchant.address, X402_NETWORK: 'solana-devnet', X402_FEE_PAYER_KEYPAIR_PATH: poorPath, LOG_LEVEL: 'warn' }, undefined, logStream)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const waitingLine = new RegExp(`"the fee payer ${poor.address} holds 1000000 lamports; creating ${ata} needs about \\d+: it is created as soon as the fee payer is funded`)
    for (let waited = 0; waited < 30_000 && !logs.some(line => waitingLine.test(line)); waited += 100) await sleep(100)
    t.ok(logs.some(line => waitingLine.test(line)), 'the operator is told what the account waits for')

    const buyer = await paid.newBuyer(1_000_000n)
    const [buyerAta] = await findAssociatedTokenPda({ owner: buyer.address, mint: paid.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const buy = async () => {
      const required = paymentRequiredOf((await fetch(`${url}/api/analyze-token/${paid.mint}`)).headers)
      const tx = await buildExactPayment(paid, { buyer, feePayer: poor.address, amount: 100_000n, to: merchant.address })
      return await fetch(`${url}/api/analyze-token/${paid.mint}`, { headers: { 'payment-signature': v2Header(tx, required.accepts[0], required.resource) } })
    }
    const early = await buy()
    t.equal(early.status, 402)
    const body = await early.json() as { code: string, message: string }
    t.equal(body.code, 'X402_SIMULATION_FAILED')
    t.match(body.message, new RegExp(`^the merchant's token account ${ata} does not exist yet: it is created as soon as the fee payer ${poor.address} holds \\d+ lamports`))
    t.equal(BigInt((await paid.chain.rpc.getTokenAccountBalance(buyerAta).send()).value.amount), 1_000_000n, 'nothing moved')

    await paid.chain.airdrop(poor.address, 1_000_000_000n)
    const funded = Date.now()
    let account = null
    while (account === null && Date.now() - funded < 10_000) {
      await sleep(100)
      account = (await paid.chain.rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' }).send()).value
    }
    t.ok(account, 'created once funded')
    t.ok(Date.now() - funded < 5_000, `within seconds (${Date.now() - funded} ms), not at the next 30 s retry`)
    const paidCall = await buy()
    t.equal(paidCall.status, 200, 'the same purchase now delivers')
    t.equal((await paid.chain.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount, '100000', 'the merchant received the price')
    t.equal((await paid.chain.rpc.getTokenAccountBalance(buyerAta, { commitment: 'confirmed' }).send()).value.amount, '900000')
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
