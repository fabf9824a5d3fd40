// /openapi.json (about 190 KB) is revalidated, not downloaded again: an ETag, a cache lifetime, 304.
import t from 'tap'
import { build } from '../helper.js'

t.test('/openapi.json carries a strong ETag and a cache header; If-None-Match naming it is a 304 without a body', async t => {
  const app = await build(t)
  const first = await app.inject('/openapi.json')
  t.equal(first.statusCode, 200)
  t.match(first.headers['content-type'], /^application\/json/)
  t.equal(first.json().openapi, '3.1.0')
  const tag = first.headers.etag as string
  t.match(tag, /^"[\w-]{43}"$/, 'a strong tag: the sha-256 of the bytes')
  t.equal(first.headers['cache-control'], 'public, max-age=300')

  const again = await app.inject('/openapi.json')
  t.equal(again.body, first.body, 'the same bytes')
  t.equal(again.headers.etag, tag, 'the same tag')

  for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
    const revalidated = await app.inject({ url: '/openapi.json', headers: { 'if-none-match': ifNoneMatch } })
    t.equal(revalidated.statusCode, 304, ifNoneMatch)
    t.equal(revalidated.body, '')
    t.equal(revalidated.headers.etag, tag)
  }
  const stale = await app.inject({ url: '/openapi.json', headers: { 'if-none-match': '"an-older-document"' } })
  t.equal(stale.statusCode, 200)
  t.equal(stale.body, first.body)
  const head = await app.inject({ method: 'HEAD', url: '/openapi.json' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.etag, tag)
})
