import t from 'tap'
import { build } from '../helper.js'

// The discovery documents for machines that do not read OpenAPI: free, cached, with the fixed headers.

t.test('/.well-known/x402 lists one example URL per product, each answering 402', async t => {
  const app = await build(t, { PUBLIC_BASE_URL: 'https://merchant.example/' })
  const res = await app.inject('/.well-known/x402')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['x-content-type-options'], 'nosniff', 'the fixed headers')
  t.equal(res.headers['cache-control'], 'public, max-age=300', 'cacheable')
  const document = res.json()
  t.same(Object.keys(document), ['version', 'resources', 'instructions'])
  t.equal(document.version, 1)
  t.same(document.resources, ['https://merchant.example/api/fetch-price/SOL', 'https://merchant.example/api/analyze-token/7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs'])
  t.match(document.instructions, /402/)
  for (const url of document.resources as string[]) {
    const answer = await app.inject(new URL(url).pathname)
    t.equal(answer.statusCode, 402, `${url} answers 402`)
  }
  const again = await app.inject({ url: '/.well-known/x402', headers: { 'if-none-match': String(res.headers.etag) } })
  t.equal(again.statusCode, 304, 'a current copy gets a 304')
  t.equal(again.body, '')
  t.equal(again.headers['x-frame-options'], 'DENY', 'the 304 carries the fixed headers too')
})

t.test('without PUBLIC_BASE_URL the URLs are those the caller reached us at', async t => {
  const app = await build(t, { TRUST_PROXY: '1' })
  const res = await app.inject({ url: '/.well-known/x402', headers: { host: 'tokens.example:8443', 'x-forwarded-proto': 'https' } })
  t.match(res.json().resources[0], /^https:\/\/tokens\.example:8443\/api\/fetch-price\//)
  const llms = await app.inject({ url: '/llms.txt', headers: { host: 'tokens.example:8443', 'x-forwarded-proto': 'https' } })
  t.match(llms.body, /\(https:\/\/tokens\.example:8443\/openapi\.json\)/)
})

t.test('/llms.txt follows llmstxt.org: H1, summary, sections of links; names the products, prices and how to pay', async t => {
  const app = await build(t, { PUBLIC_BASE_URL: 'https://merchant.example' })
  const res = await app.inject('/llms.txt')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; charset=utf-8/)
  t.equal(res.headers['x-content-type-options'], 'nosniff', 'the fixed headers')
  t.ok(res.headers.etag, 'an entity tag')
  const lines = res.body.split('\n')
  t.match(lines[0], /^# \S/, 'an H1 first')
  t.match(lines.find(line => line !== '' && !line.startsWith('#')), /^> /, 'then a blockquote summary')
  const sections = lines.filter(line => line.startsWith('## '))
  t.ok(sections.includes('## Docs') && sections.includes('## Optional'), 'H2 sections of links')
  for (const needle of ['0.05 USDC', '0.1 USDC', 'fetch_price', 'analyze_token', 'PAYMENT-SIGNATURE', 'x-payment-signature',
    '](https://merchant.example/openapi.json)', '](https://merchant.example/.well-known/agent.json)', '](https://merchant.example/mcp)']) {
    t.ok(res.body.includes(needle), `names ${needle}`)
  }
  const links = [...res.body.matchAll(/\]\((https:\/\/merchant\.example[^)]*)\)/g)].map(match => new URL(match[1]).pathname)
  for (const path of links.filter(path => path !== '/mcp')) {
    const answer = await app.inject(path)
    t.ok(answer.statusCode < 400, `the link ${path} answers (${answer.statusCode})`)
  }
  const again = await app.inject({ url: '/llms.txt', headers: { 'if-none-match': String(res.headers.etag) } })
  t.equal(again.statusCode, 304)
})
