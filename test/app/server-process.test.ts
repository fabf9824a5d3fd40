import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { PROJECT_ROOT } from '../../project.js'
import { testEnv } from '../helper.js'

// Node itself runs the server (with tsx's loader), so signals reach it with no wrapper process between.
const NODE_ARGS = ['--import', pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href, join(PROJECT_ROOT, 'server.ts')]
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
const WALLET = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

function runServer (env: Record<string, string>) {
  const child = spawn(process.execPath, NODE_ARGS, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  return { child, exited, output: () => ({ stdout, stderr }) }
}

async function waitForListening (output: () => { stdout: string, stderr?: string }) {
  for (let i = 0; i < 600; i++) {
    if (output().stdout.includes('token-merchant ready')) return
    await sleep(50)
  }
  throw new Error(`server did not start: ${output().stdout} ${output().stderr ?? ''}`)
}

t.test('a bad configuration exits 1 with one line per problem and no stack trace', async (t) => {
  const env = testEnv(t, {
    PORT: '70000',
    SOLANA_NETWORK: 'moonnet',
    PAYMENT_ADDRESS: 'not-a-key',
    LOG_LEVEL: 'info'
  })
  const run = runServer(env)
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
  const run = runServer({ ...env, MERCHANT_KEYPAIR_PATH: keypairPath })
  const [code] = await run.exited
  t.equal(code, 1)
  t.match(run.output().stderr, /MERCHANT_KEYPAIR_PATH: keypair file .* must hold a JSON array of 64 bytes/)
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

  const port = 30000 + Math.floor(Math.random() * 20000)
  const run = runServer(testEnv(t, { PORT: String(port), HOST: '127.0.0.1', SOLANA_RPC_URL: rpcUrl, LOG_LEVEL: 'info', CLOSE_GRACE_MS: '5000' }))
  t.teardown(() => { run.child.kill('SIGKILL') })
  await waitForListening(run.output)

  const inFlight = fetch(`http://127.0.0.1:${port}/api/analyze-token/${WALLET}`, {
    headers: { 'x-payment-signature': SIGNATURE, 'x-payment-wallet': WALLET }
  })
  await sleep(400)
  run.child.kill('SIGTERM')
  const res = await inFlight
  t.equal(res.status, 402, 'the in-flight request got its answer')
  t.equal((await res.json()).code, 'PAYMENT_NOT_FOUND')
  const [code] = await run.exited
  t.equal(code, 0, `exit code 0 (stderr: ${run.output().stderr})`)
  const logLines = run.output().stdout.trim().split('\n').map(line => JSON.parse(line) as { msg: string, reqId?: string })
  t.ok(logLines.some(line => line.msg === 'shutting down: finishing in-flight requests'), 'logs are pino JSON')
  t.ok(logLines.some(line => typeof line.reqId === 'string'), 'request logs carry the request id')
})

t.test('with no environment at all the server starts on its defaults', async (t) => {
  const dir = t.testdir()
  const child = spawn(process.execPath, NODE_ARGS, { cwd: dir, env: { PATH: process.env.PATH, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  t.teardown(() => { child.kill('SIGKILL') })
  await waitForListening(() => ({ stdout }))
  const lines = stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>)
  const listening = lines.find(line => typeof line.msg === 'string' && (line.msg as string).startsWith('Server listening at'))
  const url = String(listening?.msg).replace('Server listening at ', '')
  const manifest = await (await fetch(`${url}/.well-known/agent.json`)).json() as { payment_address: string, services: unknown[] }
  t.equal(manifest.services.length, 2)
  const created = lines.find(line => line.msg === 'created a merchant keypair; payments go to its address (back the file up, or set PAYMENT_ADDRESS)')
  t.equal(created?.paymentAddress, manifest.payment_address, 'the generated keypair pays the manifest address')
  child.kill('SIGINT')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
})
