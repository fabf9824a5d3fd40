import { readFileSync } from 'node:fs'
import { getBase58Decoder } from '@solana/kit'
import t from 'tap'
import { ConfigSchema } from '../../config.js'
import { build, testEnv } from '../helper.js'

// Hosts, keys and paths only the operator knows: none may reach the public document.
const PRIVATE = {
  SOLANA_RPC_URL: 'http://payment-rpc.operator-private.invalid:8899',
  DATA_NETWORK: 'devnet',
  DATA_RPC_URL: 'http://data-rpc.operator-private.invalid:8899/rpc-path-secret',
  PRICE_API_URL: 'http://prices.operator-private.invalid:8787/price-path-secret',
  PRICE_API_KEY: 'price-api-key-operator-secret',
  METRICS_ENABLED: 'true',
  METRICS_TOKEN: 'metrics-token-operator-secret'
}

t.test('the served OpenAPI document names none of the operator\'s configuration: variables, hosts, keys, paths', async (t) => {
  const env = testEnv(t, PRIVATE)
  const app = await build(t, env)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const document = await (await fetch(`${url}/openapi.json`)).text()
  t.ok(document.length > 10_000, 'the whole document was served')

  const variables = Object.keys(ConfigSchema.properties)
  t.ok(variables.length > 40, `${variables.length} configuration variables, from the config schema`)
  for (const name of variables) t.notMatch(document, new RegExp(`\\b${name}\\b`), `${name} is not named`)

  for (const key of ['SOLANA_RPC_URL', 'DATA_RPC_URL', 'PRICE_API_URL'] as const) {
    const configured = new URL(PRIVATE[key])
    t.notOk(document.includes(configured.hostname), `the host of ${key} is not named`)
    if (configured.pathname.length > 1) t.notOk(document.includes(configured.pathname), `the path of ${key} is not named`)
  }
  for (const key of ['PRICE_API_KEY', 'METRICS_TOKEN'] as const) t.notOk(document.includes(PRIVATE[key]), `${key}'s value is not shown`)
  for (const key of ['DATABASE_PATH', 'MERCHANT_KEYPAIR_PATH'] as const) t.notOk(document.includes(env[key]), `${key}'s file is not named`)
  const secret = Uint8Array.from(JSON.parse(readFileSync(env.MERCHANT_KEYPAIR_PATH, 'utf8')) as number[])
  t.notOk(document.includes(getBase58Decoder().decode(secret.subarray(0, 32))), 'the merchant key\'s secret half is not shown')
  t.notOk(document.includes(getBase58Decoder().decode(secret)), 'nor the whole keypair')
  // The upstream's own endpoints are the operator's business; the buyer reads the sources by name.
  for (const path of ['/tokens/v2', '/swap/v1', '/price/v3']) t.notOk(document.includes(path), `the upstream path ${path} is not named`)
  t.match(document, /Jupiter's token API/, 'the market data source is named as a buyer knows it')
  t.match(document, /Jupiter's swap quote API/, 'and the sell quotes\' source')
})
