import t from 'tap'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createKeyPairSignerFromBytes } from '@solana/kit'
import { rpcCall } from '../testing/json-rpc.js'

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))

t.test('npm run localnet: standing chain with a funded buyer, clean exit on Ctrl-C', async (t) => {
  const dir = t.testdir({})
  const keypairPath = `${dir}/buyer.json`
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli.ts', '--port', '0', '--buyer-keypair', keypairPath, '--buyer-usdc', '250'], {
    cwd: PACKAGE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stderr.on('data', (chunk) => (output += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no RPC URL printed:\n${output}`)), 30_000)
    child.stdout.on('data', (chunk) => {
      output += chunk
      const match = /RPC URL:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match && output.includes('Ctrl-C')) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.once('exit', (code) => reject(new Error(`exited early (${code}):\n${output}`)))
  })

  t.match(output, /payment mint:\s+4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU/)
  t.match(output, new RegExp(`buyer keypair:\\s+${keypairPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
  const bytes = JSON.parse(readFileSync(keypairPath, 'utf8'))
  t.equal(bytes.length, 64, 'solana-keygen style 64-byte array')
  const buyer = await createKeyPairSignerFromBytes(Uint8Array.from(bytes))
  t.match(output, buyer.address)

  t.equal((await rpcCall(url, 'getHealth')).result, 'ok')
  t.equal((await rpcCall(url, 'getBalance', [buyer.address])).result.value, 10_000_000_000)
  const tokens = await rpcCall(url, 'getTokenAccountsByOwner', [buyer.address, { mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }, { encoding: 'jsonParsed' }])
  t.equal(tokens.result.value[0].account.data.parsed.info.tokenAmount.uiAmountString, '250')

  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGINT')
  t.equal(await exit, 0, 'clean exit')
})
