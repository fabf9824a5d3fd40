import t from 'tap'
import Fastify from 'fastify'
import { cachedSerializerFactory } from '../../../plugins/external/serializer-cache.js'

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema })
const price = () => ({ type: 'object', properties: { mint: { type: 'string' }, usd: { type: 'number' } } })

t.test('a schema of the same content compiles once across factories; another content compiles anew', async t => {
  const first = cachedSerializerFactory({}, {})(route(price()))
  const again = cachedSerializerFactory({}, {})(route(price()))
  t.equal(again, first, 'a second app with an equal schema gets the compiled serializer')
  t.equal(first({ mint: 'So1', usd: 1.5, secret: 'x' }), '{"mint":"So1","usd":1.5}', 'serializes as fast-json-stringify does')

  const changed = { ...price(), properties: { mint: { type: 'string' } } }
  const other = cachedSerializerFactory({}, {})(route(changed))
  t.not(other, first)
  t.equal(other({ mint: 'So1', usd: 1.5 }), '{"mint":"So1"}', 'the changed schema is what serializes')
})

t.test('the shared schemas a response references are part of the key', async t => {
  const ref = route({ $ref: 'Amount#' })
  const asString = cachedSerializerFactory({ Amount: { $id: 'Amount', type: 'string' } }, {})(ref)
  const asNumber = cachedSerializerFactory({ Amount: { $id: 'Amount', type: 'number' } }, {})(ref)
  t.equal(asString(5), '"5"')
  t.equal(asNumber(5), '5')
})

t.test('a Fastify server built on it answers with its response schema', async t => {
  const server = Fastify({ schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } } })
  t.teardown(() => server.close())
  server.get('/price', { schema: { response: { 200: price() } } }, async () => ({ mint: 'So1', usd: 2, extra: true }))
  const reply = await server.inject('/price')
  t.same(reply.json(), { mint: 'So1', usd: 2 })
})
