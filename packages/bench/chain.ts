// The bench's handle on the local chain, which runs in its own process (packages/bench/chain-host.ts).
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../project.js'
import { TSX_IMPORT } from './processes.js'

export interface Proof {
  signature: string
  wallet: string
}

/** What the host made at start-up: the payment mint at the devnet USDC address and the merchant (its token account exists). */
export interface ChainSetup {
  url: string
  mint: string
  merchant: string
}

export type ChainRequest =
  | { op: 'pay', count: number, amount: bigint, exact?: boolean }
  | { op: 'x402Payloads', count: number, amount: bigint, feePayer: string }
  | { op: 'register', registryAddress: string, from: number, to: number }
  | { op: 'wallets', count: number, lamports: bigint, tokens: bigint }
  | { op: 'stats' }
  | { op: 'resetStats' }

type HostMessage = { ready: ChainSetup } | { id: number, result?: unknown, error?: string }

export async function startChain () {
  const child = fork(join(PROJECT_ROOT, 'packages', 'bench', 'chain-host.ts'), [], {
    execArgv: ['--import', TSX_IMPORT],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const waiting = new Map<number, { resolve: (value: unknown) => void, reject: (error: Error) => void }>()
  let nextId = 1
  const setup = await new Promise<ChainSetup>((resolve, reject) => {
    child.once('exit', code => reject(new Error(`the chain host exited (${code}) before it was ready`)))
    child.on('message', (message: HostMessage) => {
      if ('ready' in message) return resolve(message.ready)
      const call = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.error !== undefined) call?.reject(new Error(`chain host: ${message.error}`))
      else call?.resolve(message.result)
    })
  })

  function request<T> (body: ChainRequest): Promise<T> {
    const id = nextId++
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
      child.send({ id, request: body })
    })
  }

  return {
    ...setup,
    pid: child.pid as number,
    /** `count` landed payments to the merchant of at least `amount` base units each. */
    pay: (count: number, amount: bigint, exact = false) => request<Proof[]>({ op: 'pay', count, amount, exact }),
    /**
     * `count` x402 `exact` transactions of `amount` to the merchant, signed by the buyers and left for
     * `feePayer` to co-sign (base64). Built on one fresh blockhash: use them within ~150 landed transactions.
     */
    x402Payloads: (count: number, amount: bigint, feePayer: string) => request<string[]>({ op: 'x402Payloads', count, amount, feePayer }),
    /** Registrations `agent-<from>` .. `agent-<to - 1>` mentioning `registryAddress`. */
    register: (registryAddress: string, from: number, to: number) => request<number>({ op: 'register', registryAddress, from, to }),
    /** `count` new wallets with `lamports` and `tokens` base units of the mint: their 64-byte keypairs. */
    wallets: async (count: number, lamports: bigint, tokens: bigint) => (await request<number[][]>({ op: 'wallets', count, lamports, tokens })).map(key => new Uint8Array(key)),
    /** RPC requests per method since the last reset (the host's own sends count too). */
    stats: () => request<Record<string, number>>({ op: 'stats' }),
    resetStats: () => request<void>({ op: 'resetStats' }),
    async stop () {
      if (child.exitCode !== null) return
      child.disconnect()
      await once(child, 'exit')
    }
  }
}

export type BenchChain = Awaited<ReturnType<typeof startChain>>
