// How many SPL token transfers per second the local chain confirms over HTTP. The chain runs as its own
// process (`packages/localnet/cli.ts`, as `npm run localnet` starts it) so clients and chain do not share a core.
// Each client builds and signs a transferChecked with kit, sends it with preflight (as the service's
// clients do) and polls getSignatureStatuses until it is finalized. Requests go through a keep-alive
// node:http agent: Node 20's fetch (under kit's default transport) costs ~5 ms per request on a 2-core
// box and would measure the client, not the chain. `--kit` uses kit's own transport instead.
// Run: npx tsx packages/bench/localnet-transfers.ts [transfers=3000] [clients=4] [--kit]
import { spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { address, createKeyPairSignerFromBytes, createSolanaRpc, type Base64EncodedWireTransaction } from '@solana/kit'
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { buildSignedTransaction } from '@token-merchant/localnet/tx-builder'

const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const VIA_KIT = process.argv.includes('--kit')
const TOTAL = Number(args[0] ?? 3000)
const CLIENTS = Number(args[1] ?? 4)
const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const ROOT = fileURLToPath(new URL('../', import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'localnet-bench-'))
const keypairPath = join(dir, 'buyer.json')
const chain = spawn(process.execPath, [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof2'] : []), '--import', 'tsx', 'packages/localnet/cli.ts', '--port', '0', '--buyer-keypair', keypairPath, '--buyer-usdc', '1000000'], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
})
const url = await new Promise<string>((resolve, reject) => {
  let output = ''
  chain.stdout.on('data', (chunk) => {
    output += chunk
    const match = /RPC URL:\s+(\S+)/.exec(output)
    if (match && output.includes('Ctrl-C')) resolve(match[1])
  })
  chain.once('exit', (code) => reject(new Error(`localnet exited (${code})`)))
})

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + 1 })
let nextId = 0
function call<T> (method: string, params: unknown[]): Promise<T> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params })
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        const answer = JSON.parse(text)
        if (answer.error) reject(new Error(`${method}: ${JSON.stringify(answer.error)}`))
        else resolve(answer.result as T)
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

try {
  const rpc = createSolanaRpc(url)
  const latestBlockhash = async () =>
    VIA_KIT ? (await rpc.getLatestBlockhash().send()).value : (await call<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [])).value
  const sendWire = async (wire: string): Promise<string> =>
    VIA_KIT ? rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send() : call<string>('sendTransaction', [wire, { encoding: 'base64' }])
  const status = async (signature: string): Promise<string | undefined> =>
    VIA_KIT
      ? ((await rpc.getSignatureStatuses([signature as never]).send()).value[0]?.confirmationStatus ?? undefined)
      : ((await call<{ value: Array<{ confirmationStatus: string } | null> }>('getSignatureStatuses', [[signature]])).value[0]?.confirmationStatus ?? undefined)
  const buyer = await createKeyPairSignerFromBytes(Uint8Array.from(JSON.parse(readFileSync(keypairPath, 'utf8'))))
  const merchant = address('11111111111111111111111111111112')
  const [source] = await findAssociatedTokenPda({ mint: USDC, owner: buyer.address, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  const [destination] = await findAssociatedTokenPda({ mint: USDC, owner: merchant, tokenProgram: TOKEN_PROGRAM_ADDRESS })

  const send = async (instructions: Parameters<typeof buildSignedTransaction>[0]) => {
    const lifetime = await latestBlockhash()
    const bytes = await buildSignedTransaction(instructions, { feePayer: buyer, lifetime })
    const signature = await sendWire(Buffer.from(bytes).toString('base64'))
    for (;;) {
      if ((await status(signature)) === 'finalized') return
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }
  await send([getCreateAssociatedTokenIdempotentInstruction({ payer: buyer, ata: destination, owner: merchant, mint: USDC })])

  let issued = 0
  let confirmed = 0
  const client = async () => {
    while (issued < TOTAL) {
      const amount = BigInt(++issued) // distinct amounts keep every signature distinct
      await send([getTransferCheckedInstruction({ source, mint: USDC, destination, authority: buyer, amount, decimals: 6 })])
      confirmed++
    }
  }
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: CLIENTS }, client))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const { value } = await rpc.getTokenAccountBalance(destination).send()
  const transport = VIA_KIT ? "kit's fetch transport" : 'keep-alive node:http'
  console.log(`${confirmed} token transfers sent and confirmed over HTTP (${transport}) in ${seconds.toFixed(2)} s by ${CLIENTS} clients (merchant got ${value.uiAmountString} USDC)`)
  console.log(`=> ${(confirmed / seconds).toFixed(0)} transfers/second`)
} finally {
  agent.destroy()
  chain.kill('SIGINT')
  rmSync(dir, { recursive: true, force: true })
}
