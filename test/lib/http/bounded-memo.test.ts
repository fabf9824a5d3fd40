import t from 'tap'
import { boundedCache, boundedMemo } from '../../../lib/http/bounded-memo.js'
import { entityTag, noneMatchHits } from '../../../lib/http/entity-tag.js'

t.test('a bounded memo makes each value once and never holds more than its size', async t => {
  const made: string[] = []
  const memo = boundedMemo(3, key => { made.push(key); return key.toUpperCase() })
  t.equal(memo('a'), 'A')
  t.equal(memo('a'), 'A')
  t.same(made, ['a'], 'made once')
  const cache = boundedCache<number>(3)
  for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i)
  const held = Array.from({ length: 1000 }, (_, i) => cache.get(`k${i}`)).filter(v => v !== undefined)
  t.ok(held.length <= 3, `holds ${held.length} of 1000 keys`)
  t.equal(cache.get('k999'), 999, 'the latest is kept')
})

t.test('entity tags: strong, stable, and If-None-Match compared weakly', async t => {
  const tag = entityTag('{"a":1}')
  t.match(tag, /^"[\w-]{43}"$/)
  t.equal(entityTag('{"a":1}'), tag)
  t.not(entityTag('{"a":2}'), tag)
  t.ok(noneMatchHits(tag, tag))
  t.ok(noneMatchHits(`"other", W/${tag}`, tag))
  t.ok(noneMatchHits(' * ', tag))
  t.notOk(noneMatchHits(undefined, tag))
  t.notOk(noneMatchHits('"other"', tag))
  t.notOk(noneMatchHits('', tag))
})
