import t from 'tap'
import { loadConfig } from '../../config.js'
import { readKeypairAddress } from '../../lib/solana/keypair-file.js'
import { build, testEnv } from '../helper.js'

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

t.test('the x402 surface without a chain: challenge, CORS, manifest, configuration', async (t) => {
  const env = testEnv(t, { X402_NETWORK: 'solana-devnet' })
  const app = await build(t, env)
  const feePayer = readKeypairAddress(env.MERCHANT_KEYPAIR_PATH)

  // The header's error is the official servers' words: the body's instructions name the proof headers, which a v2 client does not send.
  t.test('the 402 names the fee payer in the v1 body and carries the v2 PaymentRequired header', async (t) => {
    const res = await app.inject('/api/analyze-token/So11111111111111111111111111111111111111112')
    t.equal(res.statusCode, 402)
    t.equal(res.json().accepts[0].extra.feePayer, feePayer, 'the fee payer defaults to the merchant keypair')
    t.equal(res.json().accepts[0].network, 'solana-devnet')
    const required = JSON.parse(Buffer.from(String(res.headers['payment-required']), 'base64').toString('utf8'))
    t.match(required, {
      x402Version: 2,
      error: 'Payment required',
      resource: { url: 'http://localhost:80/api/analyze-token/So11111111111111111111111111111111111111112', mimeType: 'application/json' },
      accepts: [{ scheme: 'exact', network: DEVNET, amount: '100000', asset: res.json().accepts[0].asset, payTo: res.json().accepts[0].payTo, maxTimeoutSeconds: Number, extra: { feePayer } }]
    })
  })

  t.test('CORS: the x402 and MPP headers may be sent and read', async (t) => {
    const preflight = await app.inject({ method: 'OPTIONS', url: '/api/fetch-price/SOL' })
    const allowed = String(preflight.headers['access-control-allow-headers']).split(', ')
    for (const name of ['x-payment', 'payment-signature', 'access-control-expose-headers', 'x-payment-signature', 'x-payment-wallet', 'authorization']) t.ok(allowed.includes(name), `preflight allows ${name}`)
    const res = await app.inject('/api/fetch-price/SOL')
    const exposed = String(res.headers['access-control-expose-headers']).split(', ')
    for (const name of ['payment-required', 'payment-response', 'x-payment-response', 'www-authenticate', 'payment-receipt']) t.ok(exposed.includes(name), `exposes ${name}`)
  })

  t.test('the manifest advertises the same network as the 402', async (t) => {
    const manifest = (await app.inject('/.well-known/agent.json')).json()
    t.ok(manifest.services.every((s: { payment_network: string }) => s.payment_network === 'solana-devnet'))
  })

  t.test('a transaction that does not decode: 402 X402_INVALID_PAYLOAD, decided without the (unreachable) RPC', async (t) => {
    const res = await app.inject({ url: '/api/fetch-price/SOL', headers: { 'payment-signature': Buffer.from('{"x402Version":2,"accepted":{},"payload":{"transaction":"AQID"}}').toString('base64') } })
    t.equal(res.statusCode, 402)
    t.equal(res.json().code, 'X402_INVALID_PAYLOAD')
  })

  t.test('each header carries its own version: v2 in X-PAYMENT, v1 in PAYMENT-SIGNATURE are refused by name', async (t) => {
    const encoded = (payload: object) => Buffer.from(JSON.stringify(payload)).toString('base64')
    const v2 = await app.inject({ url: '/api/fetch-price/SOL', headers: { 'x-payment': encoded({ x402Version: 2, accepted: {}, payload: { transaction: 'AQID' } }) } })
    t.match(v2.json(), { code: 'X402_UNSUPPORTED', message: /x402Version 2 arrived in the header of version 1/ })
    const v1 = await app.inject({ url: '/api/fetch-price/SOL', headers: { 'payment-signature': encoded({ x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: { transaction: 'AQID' } }) } })
    t.match(v1.json(), { code: 'X402_UNSUPPORTED', message: /x402Version 1 arrived in the header of version 2/ })
  })

  t.test('configuration: X402_NETWORK follows SOLANA_NETWORK unless set; the fee payer file defaults to the merchant keypair', async (t) => {
    const base = { SOLANA_RPC_URL: 'http://127.0.0.1:9', MERCHANT_KEYPAIR_PATH: env.MERCHANT_KEYPAIR_PATH }
    t.equal(loadConfig({ ...base, SOLANA_NETWORK: 'devnet' }).x402Network, 'solana-devnet')
    t.equal(loadConfig({ ...base, SOLANA_NETWORK: 'mainnet-beta' }).x402Network, 'solana')
    t.equal(loadConfig({ ...base, SOLANA_NETWORK: 'localnet' }).x402Network, 'solana-localnet')
    t.equal(loadConfig({ ...base, SOLANA_NETWORK: 'localnet', X402_NETWORK: 'solana-devnet' }).x402Network, 'solana-devnet')
    t.throws(() => loadConfig({ ...base, X402_NETWORK: 'base-sepolia' }), /X402_NETWORK/)
    t.throws(() => loadConfig({ ...base, X402_SETTLEMENT_TIMEOUT_MS: '10' }), /X402_SETTLEMENT_TIMEOUT_MS/)
    const config = loadConfig({ ...base, SOLANA_NETWORK: 'devnet' })
    t.equal(config.feePayerKeypairPath, env.MERCHANT_KEYPAIR_PATH)
    t.equal(config.X402_SETTLEMENT_TIMEOUT_MS, 30_000)
    t.equal(config.X402_FEE_PAYER_MIN_LAMPORTS, 10_000_000)
  })

  t.test('an unreadable fee payer file stops the start, naming the variable', async (t) => {
    await t.rejects(build(t, { X402_FEE_PAYER_KEYPAIR_PATH: '/nonexistent/fee-payer.json' }), /X402_FEE_PAYER_KEYPAIR_PATH: \/nonexistent\/fee-payer\.json does not exist; a keypair of its own is never created/)
  })
})
