import Fastify from 'fastify'
import t from 'tap'
import { loadConfig } from '../../config.js'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import configPlugin from '../../plugins/app/config.js'
import pricesPlugin from '../../plugins/app/prices.js'

const SOL = 'So11111111111111111111111111111111111111112'

t.test('fastify.prices is built from the configuration and closes with the app', async t => {
  const api = await startPriceApi({ apiKey: 'secret' })
  t.teardown(() => api.stop())
  const config = loadConfig({
    PAYMENT_ADDRESS: SOL,
    PRICE_API_URL: api.url,
    PRICE_API_KEY: 'secret',
    PRICE_CACHE_TTL_MS: '0',
    UPSTREAM_TIMEOUT_MS: '1000'
  })
  const app = Fastify()
  await app.register(configPlugin, { config })
  await app.register(pricesPlugin)
  await app.ready()

  t.match(await app.prices.getPrice('SOL'), { id: SOL, mintSymbol: 'SOL', vsTokenSymbol: 'USDC' })
  await app.prices.getPrice('SOL')
  t.equal(api.calls()[PRICE_PATH], 2, 'PRICE_CACHE_TTL_MS=0: no reuse')
  t.same(api.requests().map(r => r.apiKey), ['secret', 'secret'], 'PRICE_API_KEY sent')

  await app.close()
  await t.rejects(app.prices.getPrice('JUP'), { statusCode: 503, code: 'UPSTREAM_UNAVAILABLE' }, 'the pool is closed: unavailable')
  t.equal(api.calls()[PRICE_PATH], 2)
})

t.test('the plugin needs the config plugin', async t => {
  const app = Fastify()
  app.register(pricesPlugin)
  await t.rejects(async () => { await app.ready() }, /config/)
})
