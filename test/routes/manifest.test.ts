import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { Manifest, ManifestService } from '../../schemas/manifest.js'
import { build } from '../helper.js'

FormatRegistry.Set('uri', value => URL.canParse(value))

const PAYMENT_ADDRESS = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

t.test('the manifest matches its schema and carries the configured values', async (t) => {
  const app = await build(t, {
    AGENT_NAME: 'Test Merchant',
    AGENT_DESCRIPTION: 'Sells test data',
    PAYMENT_ADDRESS,
    SOLANA_NETWORK: 'devnet',
    PUBLIC_BASE_URL: 'https://merchant.example/'
  })
  const res = await app.inject('/.well-known/agent.json')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same([...Value.Errors(Manifest, [ManifestService], body)].map(e => `${e.path} ${e.message}`), [], 'valid against the Manifest model')
  t.equal(body.name, 'Test Merchant')
  t.equal(body.description, 'Sells test data')
  t.match(body.version, /^\d+\.\d+\.\d+$/)
  t.equal(body.payment_address, PAYMENT_ADDRESS)
  t.equal(body.reputation_url, 'https://merchant.example/reputation')
  t.equal(body.payment_mint, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 'devnet USDC by default')
  t.same(body.services.map((s: { name: string, endpoint: string, price: number, method: string }) => [s.name, s.endpoint, s.method, s.price]), [
    ['fetch-price', '/api/fetch-price/:token', 'GET', 50000],
    ['analyze-token', '/api/analyze-token/:address', 'GET', 100000]
  ])
  for (const service of body.services) {
    t.equal(service.payment_token, 'USDC')
    t.equal(service.payment_network, 'solana-devnet')
    t.equal(service.data_network, 'mainnet-beta', 'devnet payments, mainnet data by default')
  }
  t.same(body.services.map((s: { price_display: string }) => s.price_display), ['0.05', '0.1'])
})

t.test('payment_network follows the cluster in x402 form', async (t) => {
  const cases = { 'mainnet-beta': 'solana', testnet: 'solana-testnet', localnet: 'solana-localnet' }
  for (const [network, expected] of Object.entries(cases)) {
    const app = await build(t, { SOLANA_NETWORK: network, PAYMENT_ADDRESS, ...(network === 'localnet' ? {} : { SOLANA_RPC_URL: 'http://127.0.0.1:9' }) })
    const body = (await app.inject('/.well-known/agent.json')).json()
    t.equal(body.services[0].payment_network, expected, network)
    if (network === 'mainnet-beta') t.equal(body.payment_mint, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
  }
})

t.test('without PUBLIC_BASE_URL the URLs come from the request', async (t) => {
  const app = await build(t, { PAYMENT_ADDRESS })
  const body = (await app.inject({ url: '/.well-known/agent.json', headers: { host: 'agent.local:8080' } })).json()
  t.equal(body.reputation_url, 'http://agent.local:8080/reputation')
  t.equal(body.openapi_url, 'http://agent.local:8080/openapi.json')
})

t.test('the manifest carries an ETag; If-None-Match with it is a 304 without a body', async (t) => {
  const app = await build(t, { PAYMENT_ADDRESS, PUBLIC_BASE_URL: 'https://merchant.example' })
  const first = await app.inject('/.well-known/agent.json')
  t.equal(first.statusCode, 200)
  const tag = first.headers.etag as string
  t.match(tag, /^"[\w-]{43}"$/)
  t.equal(first.headers['cache-control'], 'no-cache', 'stored copies are revalidated')
  t.equal(first.headers['content-type'], 'application/json; charset=utf-8')
  const again = await app.inject('/.well-known/agent.json')
  t.equal(again.body, first.body, 'the same bytes')
  t.equal(again.headers.etag, tag)

  const notModified = await app.inject({ url: '/.well-known/agent.json', headers: { 'if-none-match': `"old", W/${tag}` } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.body, '')
  t.equal(notModified.headers.etag, tag)
  t.equal(notModified.headers['x-content-type-options'], 'nosniff', 'the fixed headers too')
  t.ok(notModified.headers['x-request-id'])

  const stale = await app.inject({ url: '/.well-known/agent.json', headers: { 'if-none-match': '"old"' } })
  t.equal(stale.statusCode, 200)
  t.same(stale.json(), first.json())
})

t.test('each base URL has its own manifest text and tag; many hosts do not grow it without bound', async (t) => {
  const app = await build(t, { PAYMENT_ADDRESS })
  const at = async (host: string) => await app.inject({ url: '/.well-known/agent.json', headers: { host } })
  const a = await at('a.example')
  const b = await at('b.example:8080')
  t.equal(a.json().registry_url, 'http://a.example/registry')
  t.equal(b.json().registry_url, 'http://b.example:8080/registry')
  t.not(a.headers.etag, b.headers.etag)
  for (let i = 0; i < 200; i++) t.equal((await at(`host-${i}.example`)).json().openapi_url, `http://host-${i}.example/openapi.json`)
  const aAgain = await at('a.example')
  t.equal(aAgain.body, a.body, 'rebuilt the same after the cache was emptied')
  t.equal(aAgain.headers.etag, a.headers.etag)
})
