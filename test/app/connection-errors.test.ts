import { connect } from 'node:net'
import t from 'tap'
import { build } from '../helper.js'

/** Sends raw bytes and returns the whole answer: status, headers, JSON body. */
async function rawRequest (port: number, text: string) {
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text))
    let received = ''
    socket.on('data', chunk => { received += chunk })
    socket.on('close', () => resolve(received))
    socket.on('error', () => resolve(received))
  })
  const [head, body] = answer.split('\r\n\r\n')
  const [statusLine, ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(headerLines.map(line => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) }
}

t.test('errors met before routing, or before HTTP parses, keep the one error shape and the fixed headers', async t => {
  const app = await build(t)
  const { port } = new URL(await app.listen({ port: 0, host: '127.0.0.1' }))
  const cases = [
    ['a malformed percent-encoding', 'GET /api/fetch-price/%E0%A4%A HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 400, 'BAD_REQUEST'],
    ['a path parameter over the limit', `GET /api/fetch-price/${'x'.repeat(9000)} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`, 414, 'URI_TOO_LONG'],
    ['headers over the limit', `GET /health/live HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['bytes that are not HTTP', 'GARBAGE\r\n\r\n', 400, 'BAD_REQUEST']
  ] as const
  for (const [name, text, status, code] of cases) {
    const answer = await rawRequest(Number(port), text)
    t.equal(answer.status, status, `${name}: ${status}`)
    t.match(answer.body, { statusCode: status, code, requestId: String }, `${name}: the error shape`)
    t.equal(answer.headers['x-request-id'], answer.body.requestId, `${name}: x-request-id`)
    t.equal(answer.headers['x-content-type-options'], 'nosniff', `${name}: the security headers`)
    t.ok(JSON.stringify(answer.body).length < 500, `${name}: the URL is not echoed back`)
  }
})

t.test('URLs the service prints come from PUBLIC_BASE_URL or a valid Host, never from a client\'s junk', async t => {
  const app = await build(t)
  const bad = await app.inject({ url: '/.well-known/agent.json', headers: { host: 'evil.example/<script>' } })
  t.equal(bad.statusCode, 400, 'a Host that is no host[:port] is refused')
  t.equal(bad.json().code, 'BAD_REQUEST')
  const good = await app.inject({ url: '/.well-known/agent.json', headers: { host: 'merchant.example:8443' } })
  t.equal(good.json().reputation_url, 'http://merchant.example:8443/reputation')

  const { port } = new URL(await app.listen({ port: 0, host: '127.0.0.1' }))
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET http://elsewhere.example/api/analyze-token/So11111111111111111111111111111111111111112 HTTP/1.1\r\nHost: merchant.example\r\nConnection: close\r\n\r\n'))
    let received = ''
    socket.on('data', chunk => { received += chunk })
    socket.on('close', () => resolve(received))
  })
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
  t.equal(body.accepts[0].resource, 'http://merchant.example/api/analyze-token/So11111111111111111111111111111111111111112',
    'an absolute-form target yields a well-formed resource on the Host')
})

t.test('the docs page is served with a Content-Security-Policy and the other document policies', async t => {
  const app = await build(t)
  const page = await app.inject('/docs/')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-security-policy'], /default-src 'self'/)
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.equal(page.headers['cross-origin-opener-policy'], 'same-origin')
  const json = await app.inject('/.well-known/agent.json')
  t.notOk(json.headers['referrer-policy'], 'JSON answers carry only the API set')
})

t.test('HSTS goes out only over HTTPS, as a trusted proxy reports it', async t => {
  const app = await build(t, { TRUST_PROXY: '1' })
  const overHttps = await app.inject({ url: '/.well-known/agent.json', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(overHttps.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
  const overHttp = await app.inject({ url: '/.well-known/agent.json', headers: { 'x-forwarded-proto': 'http' } })
  t.notOk(overHttp.headers['strict-transport-security'])
})
