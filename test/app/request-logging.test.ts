import { Writable } from 'node:stream'
import t from 'tap'
import { build } from '../helper.js'

const CHALLENGE = '/api/analyze-token/So11111111111111111111111111111111111111112'

function capture () {
  const lines: Array<Record<string, any>> = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    }
  })
  return { lines, stream }
}

t.test('at info, one line per request: method, URL, status, time and the request id', async t => {
  const { lines, stream } = capture()
  const app = await build(t, { LOG_LEVEL: 'info' }, undefined, stream)
  lines.length = 0
  const manifest = await app.inject({ url: '/.well-known/agent.json', headers: { 'x-request-id': 'caller-1' } })
  const challenge = await app.inject({ url: CHALLENGE, headers: { 'x-request-id': 'caller-2' } })
  t.equal(manifest.statusCode, 200)
  t.equal(challenge.statusCode, 402)
  t.equal(lines.length, 2, 'one line each')
  t.match(lines[0], { level: 30, reqId: 'caller-1', msg: 'request completed', req: { method: 'GET', url: '/.well-known/agent.json' }, res: { statusCode: 200 }, responseTime: Number })
  t.match(lines[1], { level: 30, reqId: 'caller-2', req: { method: 'GET', url: CHALLENGE }, res: { statusCode: 402 } })
})

t.test('at warn, a request that goes well writes nothing; a failure still names its request', async t => {
  const { lines, stream } = capture()
  const app = await build(t, { LOG_LEVEL: 'warn' }, (app) => {
    app.get('/test/fails', async () => { throw new Error('internal detail') })
  }, stream)
  lines.length = 0
  await app.inject('/.well-known/agent.json')
  await app.inject(CHALLENGE)
  t.same(lines, [], 'nothing for answered requests')
  const failed = await app.inject({ url: '/test/fails', headers: { 'x-request-id': 'caller-3' } })
  t.equal(failed.statusCode, 500)
  t.ok(lines.length >= 1)
  t.ok(lines.every(line => line.reqId === 'caller-3' && line.level >= 40), 'every line carries the request id')
  t.notMatch(failed.body, /internal detail/)
})
