import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { spawnServer } from '../fixtures/server-process.js'
import { testEnv } from '../helper.js'
import { testFolder } from '../fixtures/test-folder.js'

const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
const WALLET = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

t.test('a bad configuration exits 1 with one line per problem and no stack trace', async (t) => {
  const env = testEnv(t, {
    PORT: '70000',
    SOLANA_NETWORK: 'moonnet',
    PAYMENT_ADDRESS: 'not-a-key',
    LOG_LEVEL: 'info'
  })
  const run = spawnServer(env)
  const [code] = await run.exited
  const { stderr } = run.output()
  t.equal(code, 1)
  t.match(stderr, /PORT: 70000 is not a whole number from 0 to 65535/)
  t.match(stderr, /SOLANA_NETWORK: "moonnet" is not one of devnet, mainnet-beta, testnet, localnet/)
  t.match(stderr, /PAYMENT_ADDRESS: "not-a-key" is not a base58-encoded 32-byte Solana address/)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})

t.test('an unreadable keypair file exits 1 naming the variable', async (t) => {
  const env = testEnv(t)
  const keypairPath = join(dirname(env.DATABASE_PATH), 'broken.json')
  writeFileSync(keypairPath, '[1,2,3]')
  const run = spawnServer({ ...env, MERCHANT_KEYPAIR_PATH: keypairPath })
  const [code] = await run.exited
  t.equal(code, 1)
  t.match(run.output().stderr, /MERCHANT_KEYPAIR_PATH: keypair file .* must hold a JSON array of 64 bytes/)
})

t.test('a port in use exits 1 naming PORT, before the keypair or the database exists', async (t) => {
  const taken = createServer()
  taken.listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const port = (taken.address() as AddressInfo).port
  const env = testEnv(t, { PORT: String(port), HOST: '127.0.0.1' })
  const run = spawnServer(env)
  const [code] = await run.exited
  t.equal(code, 1)
  t.match(run.output().stderr, new RegExp(`token-merchant: invalid configuration:\\n  PORT: 127\\.0\\.0\\.1:${port} is in use by another process \\(EADDRINUSE\\)`))
  t.notOk(existsSync(env.MERCHANT_KEYPAIR_PATH), 'no keypair was created')
  t.notOk(existsSync(env.DATABASE_PATH), 'no database was created')
})

t.test('SIGTERM lets an in-flight request finish, then exits 0', async (t) => {
  // A JSON-RPC node that takes its time: the paid request is still waiting on it when SIGTERM arrives.
  const slowRpc = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => { body += chunk.toString() })
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number, method: string }
      const result = method === 'getGenesisHash' ? 'LocaLnetGenesis1111111111111111111111111111' : null
      setTimeout(() => res.end(JSON.stringify({ jsonrpc: '2.0', id, result })), method === 'getTransaction' ? 1500 : 0)
    })
  })
  slowRpc.listen(0, '127.0.0.1')
  await once(slowRpc, 'listening')
  t.teardown(() => slowRpc.close())
  const rpcUrl = `http://127.0.0.1:${(slowRpc.address() as AddressInfo).port}`

  const run = spawnServer(testEnv(t, { PORT: '0', HOST: '127.0.0.1', SOLANA_RPC_URL: rpcUrl, LOG_LEVEL: 'info', RPC_TIMEOUT_MS: '3000' }))
  t.teardown(() => { run.child.kill('SIGKILL') })
  const url = await run.ready()

  const inFlight = fetch(`${url}/api/analyze-token/${WALLET}`, {
    headers: { 'x-payment-signature': SIGNATURE, 'x-payment-wallet': WALLET }
  })
  await sleep(400)
  run.child.kill('SIGTERM')
  const res = await inFlight
  t.equal(res.status, 402, 'the in-flight request got its answer')
  t.equal(((await res.json()) as { code: string }).code, 'PAYMENT_NOT_FOUND')
  const [code] = await run.exited
  t.equal(code, 0, `exit code 0 (stderr: ${run.output().stderr})`)
  const logLines = run.output().stdout.trim().split('\n').map(line => JSON.parse(line) as { msg: string, reqId?: string })
  t.ok(logLines.some(line => line.msg === 'shutting down: finishing in-flight requests'), 'logs are pino JSON')
  t.ok(logLines.some(line => typeof line.reqId === 'string'), 'request logs carry the request id')
})

t.test('with no environment at all the server starts on its defaults', async (t) => {
  const run = spawnServer({ PORT: '0' }, { cwd: testFolder(t) })
  t.teardown(() => { run.child.kill('SIGKILL') })
  const url = await run.ready()
  const lines = run.output().stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>)
  const manifest = await (await fetch(`${url}/.well-known/agent.json`)).json() as { payment_address: string, services: unknown[] }
  t.equal(manifest.services.length, 2)
  const created = lines.find(line => line.msg === 'created a merchant keypair; payments go to its address (back the file up, or set PAYMENT_ADDRESS)')
  t.equal(created?.paymentAddress, manifest.payment_address, 'the generated keypair pays the manifest address')
  run.child.kill('SIGINT')
  const [code] = await run.exited
  t.equal(code, 0)
})
