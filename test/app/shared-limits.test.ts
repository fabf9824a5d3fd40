import t from 'tap'
import { build } from '../helper.js'

// Issue #55 item 6: RATE_LIMIT_MAX is one limit for the instances sharing a store (as under PM2
// cluster mode on one SQLite file), not one per instance. The sync that runs every few seconds is
// called by hand here.
t.test('a client over two instances on one store is held to one RATE_LIMIT_MAX', async t => {
  const free = (app: Awaited<ReturnType<typeof build>>) => { app.get('/test/free', async () => ({ ok: true })) }
  const env = { RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW_MS: '60000' }
  const first = await build(t, env, free)
  // A test's folder is its own (a second build of this test would empty it): the second instance runs in a subtest, on the first one's file.
  await t.test('the second instance', async t => {
    const second = await build(t, { ...env, DATABASE_PATH: first.config.DATABASE_PATH }, free)
    const client = '10.3.3.3'
    const call = async (app: typeof first, remoteAddress = client) => (await app.inject({ url: '/test/free', remoteAddress })).statusCode

    for (let i = 0; i < 15; i++) t.equal(await call(first), 200)
    await first.limitCounts.sync()
    await second.limitCounts.sync()
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await call(second))
    t.same(answers, [200, 200, 200, 200, 200, 429], 'the second instance lets through what is left of the 20, then refuses')
    const refused = await second.inject({ url: '/test/free', remoteAddress: client })
    t.equal(refused.json().code, 'RATE_LIMITED')
    t.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60, 'with the Retry-After of the window')
    t.equal(await call(second, '10.3.3.4'), 200, 'another client is not held back')
  })
})
