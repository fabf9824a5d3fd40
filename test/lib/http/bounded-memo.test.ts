import t from 'tap'
import { boundedCache, boundedMemo, boundedMemo2 } from '../../../lib/http/bounded-memo.js'
import { perPublicBase, perResourceUrl } from '../../../lib/http/public-url.js'
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

t.test('a two-key memo makes each value once, keeps nothing when making throws, and holds at most its size', async t => {
  const made: string[] = []
  const memo = boundedMemo2(3, (outer, inner) => {
    if (inner === 'bad') throw new Error('refused')
    made.push(`${outer}|${inner}`)
    return `${outer}${inner}`
  })
  t.equal(memo('a', 'b'), 'ab')
  t.equal(memo('a', 'b'), 'ab')
  t.equal(memo('ab', ''), 'ab', 'keys are not joined: a|b and ab| are two values')
  t.same(made, ['a|b', 'ab|'])
  t.throws(() => memo('a', 'bad'), /refused/)
  t.throws(() => memo('a', 'bad'), /refused/, 'a failure is not remembered')
  memo('x', '1'); memo('x', '2'); memo('x', '3')
  made.length = 0
  memo('a', 'b')
  t.same(made, ['a|b'], 'emptied once full, so made again')
})

t.test('per public base and per resource URL: made once per Host (or once with PUBLIC_BASE_URL); a bad Host is refused every time', async t => {
  const request = (host: string, url = '/x?y=1', protocol = 'http') => ({ host, url, protocol })
  const bases: string[] = []
  const perBase = perPublicBase(undefined, 8, base => { bases.push(base); return base })
  t.equal(perBase(request('merchant.example:3000')), 'http://merchant.example:3000')
  t.equal(perBase(request('merchant.example:3000', '/other')), 'http://merchant.example:3000')
  t.equal(perBase(request('merchant.example:3000', '/', 'https')), 'https://merchant.example:3000')
  t.same(bases, ['http://merchant.example:3000', 'https://merchant.example:3000'])
  for (let i = 0; i < 2; i++) t.throws(() => perBase(request('evil.example/<script>')), { code: 'BAD_REQUEST' })

  const urls: string[] = []
  const perUrl = perResourceUrl(undefined, 8, url => { urls.push(url); return url })
  t.equal(perUrl(request('h:1')), 'http://h:1/x?y=1')
  t.equal(perUrl(request('h:1')), 'http://h:1/x?y=1')
  t.equal(perUrl(request('h:1', 'http://h:1/abs?q')), 'http://h:1/abs?q', 'an absolute-form target keeps only its path and query')
  t.equal(urls.length, 2)
  t.throws(() => perUrl(request('bad host')), { code: 'BAD_REQUEST' })

  const configured = perResourceUrl('https://api.merchant.example/', 8, url => url)
  t.equal(configured(request('anything:9')), 'https://api.merchant.example/x?y=1', 'PUBLIC_BASE_URL wins over the Host')
  t.equal(perPublicBase('https://api.merchant.example', 8, base => base)(request('bad host')), 'https://api.merchant.example')
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
