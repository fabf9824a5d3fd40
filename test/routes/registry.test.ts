import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { generateKeyPairSigner } from '@solana/kit'
import t from 'tap'
import { registerAgent } from '../../client/register.js'
import { DEFAULT_REGISTRY_ADDRESS } from '../../config.js'
import { startLocalnet } from '@token-merchant/localnet'
import { RegisteredAgent, RegistryListing } from '../../schemas/registry.js'
import { build } from '../helper.js'

FormatRegistry.Set('date-time', value => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value))

t.test('GET /registry lists the registrations read from the chain', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const [alice, bob] = await Promise.all([net.createWallet(), net.createWallet()])
  const registryAddress = (await generateKeyPairSigner()).address
  for (const [signer, name] of [[alice, 'alpha'], [bob, 'beta']] as const) {
    await registerAgent({ rpc: net.rpc, signer, registryAddress, name, manifestUrl: `https://${name}.example/agent.json`, pollIntervalMs: 20 })
  }
  const app = await build(t, { SOLANA_RPC_URL: net.url, REGISTRY_ADDRESS: registryAddress })

  const res = await app.inject('/registry')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same([...Value.Errors(RegistryListing, [RegisteredAgent], body)].map(e => `${e.path} ${e.message}`), [], 'valid against the RegistryListing model')
  t.match(body, { network: 'localnet', registry_address: registryAddress, total: 2 })
  t.same(body.agents.map((agent: { name: string }) => agent.name), ['beta', 'alpha'])
  t.match(body.agents[0], { manifest_url: 'https://beta.example/agent.json', wallet: bob.address })
  t.ok(Date.now() - Date.parse(body.fetched_at) < 60_000, 'fetched_at is the time of the read')

  const byWallet = await app.inject({ url: '/registry', query: { wallet: alice.address } })
  t.same(byWallet.json().agents.map((agent: { name: string }) => agent.name), ['alpha'])
  t.equal(byWallet.json().total, 1)
  t.equal((await app.inject({ url: '/registry', query: { name: 'Beta' } })).json().total, 1)

  t.match(res.headers['content-type'], /^application\/json/)
  t.equal((await app.inject('/registry')).body, res.body, 'a warm read serves the same listing')

  // A new registration, once the listing is stale, is in the next answer despite the cached text.
  const carol = await net.createWallet()
  await registerAgent({ rpc: net.rpc, signer: carol, registryAddress, name: 'gamma', manifestUrl: 'https://gamma.example/agent.json', pollIntervalMs: 20 })
  // The listing's age is read on the app's clock: turned past REGISTRY_REFRESH_SECONDS, not waited for.
  let ahead = 0
  const later = await build(t, { SOLANA_RPC_URL: net.url, REGISTRY_ADDRESS: registryAddress, REGISTRY_REFRESH_SECONDS: '1', DATABASE_PATH: app.config.DATABASE_PATH },
    undefined, undefined, undefined, () => Date.now() + ahead)
  await later.inject('/registry')
  ahead = 1100
  t.same((await later.inject('/registry')).json().agents.map((agent: { name: string }) => agent.name), ['gamma', 'beta', 'alpha'])

  const invalid = await app.inject({ url: '/registry', query: { wallet: 'not-an-address' } })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().code, 'VALIDATION_ERROR')
})

t.test('GET /registry answers 503 RPC_UNAVAILABLE when the chain was never read and cannot be', async t => {
  const app = await build(t)
  const res = await app.inject('/registry')
  t.equal(res.statusCode, 503)
  t.match(res.json(), { code: 'RPC_UNAVAILABLE', statusCode: 503 })
  t.ok(res.headers['retry-after'])
  t.equal(app.config.REGISTRY_ADDRESS, DEFAULT_REGISTRY_ADDRESS, 'the default registry')
})
