import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Agent, get, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { PRICE_PATH, startPriceApi } from '@token-merchant/localnet/price-api'
import app, { createServer } from '../../app.js'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'
import { loadConfig } from '../../config.js'
import { gracefulStop } from '../../lib/ops/graceful-stop.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { testEnv } from '../helper.js'

interface Answer { status: number, headers: IncomingHttpHeaders, body: string }

async function request (url: string, headers: Record<string, string> = {}, agent?: Agent): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    get(url, { headers, agent }, response => {
      let body = ''
      response.on('data', (chunk: Buffer) => { body += chunk.toString() })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      response.on('error', reject)
    }).on('error', reject)
  })
}

/** The whole app on a real loopback port, with its log lines collected. */
async function listening (env: Record<string, string>) {
  const lines: Array<{ msg: string, released?: number }> = []
  const logStream = new Writable({
    write (chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { msg: string })
      callback()
    }
  })
  const config = loadConfig(env)
  const server = createServer(config, logStream)
  await server.register(fp(app), { config, catalogue: CATALOGUE })
  await server.listen({ port: 0, host: '127.0.0.1' })
  return { server, lines, url: `http://127.0.0.1:${(server.server.address() as AddressInfo).port}` }
}

function stop (server: FastifyInstance, graceMs: number) {
  return gracefulStop({ drain: server.shutdown.drain, claims: server.shutdown.claims, graceMs, closeApp: async () => await server.close(), log: server.log })
}

t.test('a paid request the grace cannot wait for is cut, and its proof is usable again at once', async (t) => {
  const paid = await startPaidChain(t)
  const prices = await startPriceApi()
  t.teardown(async () => await prices.stop())
  const env = testEnv(t, { ...paid.env, PRICE_API_URL: prices.url, LOG_LEVEL: 'info', UPSTREAM_TIMEOUT_MS: '10000' })
  const first = await listening(env)

  const buyer = await paid.newBuyer()
  const signature = await paid.pay(buyer, 50_000n)
  prices.fail({ mode: 'slow', delayMs: 5000, path: PRICE_PATH })
  const cut = request(`${first.url}/api/fetch-price/JUP`, proofHeaders(signature, buyer.address)).then(() => 'answered', (error: NodeJS.ErrnoException) => error.code)
  while (prices.calls()[PRICE_PATH] === 0) await sleep(20)

  // A grace far below the request's remaining time: only the end of the sequence can save the proof.
  await stop(first.server, 200)
  t.equal(await cut, 'ECONNRESET', 'the request was cut')
  t.ok(first.lines.some(line => line.msg === 'close grace ran out: closing the connections left'), 'the cut is logged')
  t.match(first.lines.find(line => line.msg.startsWith('released the payment claims')), { released: 1 })
  const db = new Database(env.DATABASE_PATH, { readonly: true })
  t.equal(db.prepare('SELECT count(*) FROM payment_claims WHERE signature = ?').pluck().get(signature), 0, 'no claim left pending')
  db.close()

  // A new process on the same database, well before the lease (60 s) would have run out.
  prices.fail(null)
  const second = await listening(env)
  t.teardown(async () => await second.server.close())
  const retry = await request(`${second.url}/api/fetch-price/JUP`, proofHeaders(signature, buyer.address))
  t.equal(retry.status, 200, 'the same proof buys the price')
  t.equal((JSON.parse(retry.body) as { data: { mintSymbol: string } }).data.mintSymbol, 'JUP')
})

t.test('draining: not ready at once, kept-alive requests answered with Connection: close, no new connections', async (t) => {
  const { server, url } = await listening(testEnv(t))
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const before = await request(`${url}/health/live`, {}, agent)
  t.equal(before.headers.connection, 'keep-alive')

  server.shutdown.drain.begin()
  const ready = await server.inject('/health/ready')
  t.equal(ready.statusCode, 503, 'ready turns not-ready as soon as the drain starts')
  t.same(ready.json(), { status: 'down', checks: { shutdown: 'draining' } })

  const onKeptConnection = await request(`${url}/health/live`, {}, agent)
  t.equal(onKeptConnection.status, 200, 'a request on the kept-alive connection is answered')
  t.equal(onKeptConnection.headers.connection, 'close', 'with Connection: close')
  await t.rejects(request(`${url}/health/live`, {}, false as unknown as Agent), { code: 'ECONNREFUSED' }, 'new connections are refused')

  const started = Date.now()
  await stop(server, 5000)
  t.ok(Date.now() - started < 4000, 'the drain ends once the connections are gone, not at the grace')
})
