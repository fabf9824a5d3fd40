import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types'
import fc from 'fast-check'
import t from 'tap'
import { parseRpcJson } from '../../../lib/solana/rpc-json.js'

/** What kit's response transformers see either way: every integer as a bigint. */
function integersAsBigInts (value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value)
  if (Array.isArray(value)) return value.map(integersAsBigInts)
  if (typeof value === 'object' && value !== null && typeof value !== 'bigint') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, integersAsBigInts(item)]))
  }
  return value
}

t.test('an integer above 2^53 keeps every digit (a u64 balance)', async t => {
  const text = '{"jsonrpc":"2.0","id":1,"result":{"value":{"lamports":18446744073709551615,"slot":12}}}'
  const parsed = parseRpcJson(text) as { result: { value: { lamports: unknown, slot: unknown } } }
  t.equal(parsed.result.value.lamports, 18446744073709551615n)
  t.equal(integersAsBigInts(parsed.result.value.slot), 12n)
  t.equal((parseRpcJson('{"a":-9007199254740993}') as { a: unknown }).a, -9007199254740993n)
})

t.test('strings that look like numbers stay strings; floats stay floats', async t => {
  const text = '{"a":"18446744073709551615","b":1.5,"c":"9e99","d":[1,2.25,"x\\"9007199254740993"]}'
  t.same(parseRpcJson(text), { a: '18446744073709551615', b: 1.5, c: '9e99', d: [1, 2.25, 'x"9007199254740993'] })
})

t.test('for any JSON an RPC may send, the same value as kit\'s codec once integers are bigints', async t => {
  const integers = fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), fc.maxSafeInteger())
  const { tree } = fc.letrec(tie => ({
    tree: fc.oneof({ depthSize: 'small' }, integers, fc.string(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), tie('tree'), { maxKeys: 4 }))
  }))
  fc.assert(fc.property(tree, value => {
    const text = stringifyJsonWithBigInts(value)
    t.same(integersAsBigInts(parseRpcJson(text)), integersAsBigInts(parseJsonWithBigInts(text)))
  }), { numRuns: 500 })
  t.pass('500 random documents parsed alike')
})
