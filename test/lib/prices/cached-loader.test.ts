import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createCachedLoader } from '../../../lib/prices/cached-loader.js'

/** A loader that counts its loads and answers `key:n` after a short pause. */
function counting (ttlMs: (value: string) => number, maxEntries = 100) {
  const loads: string[] = []
  const loader = createCachedLoader<string>({
    load: async key => {
      const n = loads.push(key)
      await sleep(5)
      if (key === 'broken') throw new Error('load failed')
      return `${key}:${n}`
    },
    ttlMs,
    maxEntries
  })
  return { loader, loads }
}

t.test('concurrent gets of one key share one load', async t => {
  const { loader, loads } = counting(() => 1000)
  const values = await Promise.all([loader.get('a'), loader.get('a'), loader.get('a'), loader.get('b')])
  t.same(values, ['a:1', 'a:1', 'a:1', 'b:2'])
  t.same(loads, ['a', 'b'])
})

t.test('values are reused until their TTL passes', async t => {
  const { loader, loads } = counting(() => 40)
  t.equal(await loader.get('a'), 'a:1')
  t.equal(await loader.get('a'), 'a:1')
  await sleep(60)
  t.equal(await loader.get('a'), 'a:2')
  t.equal(loads.length, 2)
})

t.test('a TTL of 0 stores nothing but still coalesces', async t => {
  const { loader, loads } = counting(() => 0)
  await Promise.all([loader.get('a'), loader.get('a')])
  await loader.get('a')
  t.equal(loads.length, 2)
})

t.test('the value chooses its lifetime', async t => {
  const { loader, loads } = counting(value => value.startsWith('short') ? 30 : 10_000)
  await loader.get('short')
  await loader.get('long')
  await sleep(50)
  await loader.get('short')
  await loader.get('long')
  t.same(loads, ['short', 'long', 'short'])
})

t.test('failures reach every waiter and are not cached', async t => {
  const { loader, loads } = counting(() => 1000)
  const results = await Promise.allSettled([loader.get('broken'), loader.get('broken')])
  t.same(results.map(r => r.status), ['rejected', 'rejected'])
  await t.rejects(loader.get('broken'), { message: 'load failed' })
  t.equal(loads.length, 2)
})

t.test('past maxEntries the oldest entry goes first', async t => {
  const { loader, loads } = counting(() => 10_000, 2)
  await loader.get('a')
  await loader.get('b')
  await loader.get('c')
  await loader.get('c')
  await loader.get('b')
  t.same(loads, ['a', 'b', 'c'], 'b and c still cached')
  await loader.get('a')
  t.same(loads, ['a', 'b', 'c', 'a'], 'a was evicted')
})
