import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { build, testEnv } from '../helper.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { startTestPostgres } from '../fixtures/postgres.js'
import { spawnServer } from '../fixtures/server-process.js'

// PostgreSQL going away and coming back, and a service started against it while it is away or
// with the wrong credentials. This file stops its server, so it always starts one of its own.
t.test('PostgreSQL stopped and started under a running service, and at start-up', async t => {
  const postgres = await startTestPostgres(t, { ownServer: true })
  const databaseUrl = await postgres.createDatabase(t)
  const password = new URL(databaseUrl).password
  const paid = await startPaidChain(t)
  const buyer = await paid.newBuyer(10_000_000n)
  const env = testEnv(t, { ...paid.env, DATABASE_URL: databaseUrl, PAYMENT_LEASE_SECONDS: '5', UPSTREAM_TIMEOUT_MS: '1000', RPC_TIMEOUT_MS: '1000', X402_SETTLEMENT_TIMEOUT_MS: '1000' })
  const lines: string[] = []
  let hold: Promise<void> | undefined
  // The store's clock, turned to let a lease run out instead of waiting for it.
  let ahead = 0
  const app = await build(t, { ...env, LOG_LEVEL: 'info' }, app => {
    app.get('/test/paid', { config: { paidService: 'fetch-price' } }, async () => {
      await hold
      return { delivered: true }
    })
  }, { write: (line: string) => { lines.push(line) } }, undefined, () => Date.now() + ahead)
  const paidCall = async (signature: string) => await app.inject({ url: '/test/paid', headers: proofHeaders(signature, buyer.address) })
  const ready = async () => await app.inject('/health/ready')

  t.test('down at request time: 503 STORE_UNAVAILABLE, nothing consumed; back: the same proof delivers', async t => {
    t.equal((await paidCall(await paid.pay(buyer, 50_000n))).statusCode, 200, 'delivers while the database is up')
    t.equal((await ready()).statusCode, 200)
    const signature = await paid.pay(buyer, 50_001n)

    await postgres.stop()
    const refused = await paidCall(signature)
    t.equal(refused.statusCode, 503)
    t.match(refused.json(), { code: 'STORE_UNAVAILABLE', statusCode: 503, retryAfterSeconds: 2 })
    t.equal(refused.headers['retry-after'], '2')
    t.notMatch(refused.body, /postgres|127\.0\.0\.1|ECONNREFUSED/, 'nothing about the database leaks')
    const notReady = await ready()
    t.equal(notReady.statusCode, 503, 'not ready while the database is down')
    t.equal(notReady.json().checks.database, 'down')
    const unpaid = await app.inject('/test/paid')
    t.equal(unpaid.statusCode, 402, 'unpaid requests still get their challenge (counted in memory)')

    await postgres.start()
    t.equal((await ready()).statusCode, 200, 'ready again')
    const delivered = await paidCall(signature)
    t.equal(delivered.statusCode, 200, 'the refused proof delivers')
    t.equal((await app.store.claims.status(signature))?.status, 'redeemed')
  })

  t.test('down between claim and delivery: no data goes out; the proof delivers after the lease', async t => {
    const signature = await paid.pay(buyer, 50_002n)
    let release!: () => void
    hold = new Promise(resolve => { release = resolve })
    const pending = paidCall(signature)
    for (let i = 0; i < 100 && (await app.store.claims.status(signature))?.status !== 'pending'; i++) await sleep(20)
    await postgres.stop()
    release()
    hold = undefined
    const withheld = await pending
    t.equal(withheld.statusCode, 503)
    t.equal(withheld.json().code, 'STORE_UNAVAILABLE')
    t.match(withheld.json().message, /may have moved: retry the same payment shortly; it is delivered once, never charged twice/, 'told to retry the same payment')
    t.notMatch(withheld.json().message, /nothing was charged/, 'not told that nothing was charged, after the money moved')
    t.notOk(withheld.json().delivered, 'the data was withheld')
    t.notOk(withheld.headers['x-payment-response'], 'no receipt')
    await postgres.start()
    t.match((await paidCall(signature)).json(), { code: 'PAYMENT_IN_PROGRESS' }, 'the claim holds until its lease ends')
    ahead += 5200 // past the 5 s lease
    t.equal((await paidCall(signature)).statusCode, 200, 'then the same proof delivers')
  })

  t.test('the logs never carry the password', async t => {
    t.ok(lines.length > 0)
    t.notOk(lines.some(line => line.includes(password)))
  })

  t.test('unreachable at start: waits (never ready, the URL masked in the log), then starts once it answers', async t => {
    await postgres.stop()
    const server = spawnServer({ ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
    t.teardown(() => { server.child.kill('SIGKILL') })
    for (let i = 0; i < 600 && !server.output().stdout.includes('is unreachable'); i++) await sleep(50)
    const waiting = server.output().stdout
    t.match(waiting, /PostgreSQL at DATABASE_URL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/tm_\w+ is unreachable; not ready, retrying/)
    // Past Fastify's 10 s plugin timeout, which used to end the start with "Plugin did not start in
    // time": waited for on the child's own clock, a retry it logged 12 s after its first. Its timers
    // run in order of due time, so the plugin timer (due by then) had its turn before that line.
    const retrySpanMs = () => {
      const times = server.output().stdout.split('\n').filter(line => line.startsWith('{') && line.includes('is unreachable')).map(line => (JSON.parse(line) as { time: number }).time)
      return times.length < 2 ? 0 : times[times.length - 1] - times[0]
    }
    for (let i = 0; i < 1200 && retrySpanMs() < 12_000; i++) await sleep(50)
    t.ok(retrySpanMs() >= 12_000, 'a retry logged 12 s after the first')
    const { stdout: waited, stderr: errors } = server.output()
    t.notOk(waited.includes('Server listening') || waited.includes('token-merchant ready'), 'not listening, so never ready')
    t.notMatch(errors, /did not start in time/)
    t.equal(server.child.exitCode, null, 'still waiting past the plugin timeout')
    await postgres.start()
    const url = await server.ready()
    t.equal((await fetch(`${url}/health/ready`)).status, 200)
    const { stdout, stderr } = server.output()
    t.notOk(stdout.includes(password) || stderr.includes(password), 'the password is never printed')
  })

  t.test('DATABASE_CONNECT_TIMEOUT_SECONDS bounds the wait: exits 1 naming it', async t => {
    await postgres.stop()
    t.teardown(async () => await postgres.start())
    const server = spawnServer({ ...env, DATABASE_CONNECT_TIMEOUT_SECONDS: '2' })
    t.teardown(() => { server.child.kill('SIGKILL') })
    const [code] = await server.exited
    t.equal(code, 1)
    t.match(server.output().stderr, /token-merchant: invalid configuration:\n {2}DATABASE_URL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/tm_\w+: still unreachable after 2 s \(DATABASE_CONNECT_TIMEOUT_SECONDS\)/)
  })

  for (const [label, change, expected] of [
    ['a wrong password', (url: URL) => { url.password = 'wrong-password' }, /28P01/],
    ['a database that does not exist', (url: URL) => { url.pathname = '/no_such_database' }, /3D000/]
  ] as const) {
    t.test(`${label} at start: exits 1 with a clear message, the password masked`, async t => {
      const url = new URL(databaseUrl)
      change(url)
      const server = spawnServer({ ...env, DATABASE_URL: url.toString() })
      t.teardown(() => { server.child.kill('SIGKILL') })
      const [code] = await server.exited
      t.equal(code, 1)
      const { stdout, stderr } = server.output()
      t.match(stderr, /token-merchant: invalid configuration:\n {2}DATABASE_URL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/)
      t.match(stderr, expected)
      t.notOk((stdout + stderr).includes(url.password), 'no password')
    })
  }
})

t.test('a DATABASE_URL that is not a PostgreSQL URL is a configuration error that does not echo it', async t => {
  const server = spawnServer({ ...testEnv(t), DATABASE_URL: 'mysql://root:hunter2@db/merchant' })
  const [code] = await server.exited
  t.equal(code, 1)
  t.match(server.output().stderr, /DATABASE_URL: the value is not a postgres:\/\/ or postgresql:\/\/ URL/)
  t.notOk(server.output().stderr.includes('hunter2'))
})
