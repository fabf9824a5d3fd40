// `npx tsx packages/bench/exact-verification.ts [payloads] [rounds]`: the CPU of one `exact`
// verification in the service's process, @x402/svm's facilitator (what the service called before
// issue #43) against ours (lib/x402/transaction-rules.ts + exact-verification.ts), beside the
// simulation alone (the RPC call both make). Same payloads, same RPC client, same local chain (in
// a process of its own, so its CPU is not counted); rounds alternate, the medians are printed with
// the ratios of this run. A fourth row times ours without the simulation (rules and signature). Not part of `npm run bench`: a focused measurement of one change.
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { createKeyPairSignerFromBytes, type Address } from '@solana/kit'
import { createRpcClient } from '../../lib/solana/rpc-client.js'
import { createExactVerification, payerSigned } from '../../lib/x402/exact-verification.js'
import { createX402Library } from '../../lib/x402/library.js'
import { x402Network } from '../../lib/x402/networks.js'
import { checkPayloadTransfer } from '../../lib/x402/transaction-rules.js'
import { startChain } from './chain.js'

const PRICE = 50_000n
const PAYLOADS = Number(process.argv[2] ?? 300)
const ROUNDS = Number(process.argv[3] ?? 5)
const network = x402Network('solana-localnet')

const chain = await startChain()
try {
  const [feePayerKey] = await chain.wallets(1, 10_000_000_000n, 0n)
  const feePayer = await createKeyPairSignerFromBytes(feePayerKey)
  const rpc = createRpcClient(chain.url, 10_000)
  const mint = chain.mint as Address
  const merchant = chain.merchant as Address

  const library = await createX402Library({ rpc, feePayer, network })
  const requirement = await library.requirement(PRICE, mint, merchant, 60)
  const ours = createExactVerification(rpc)
  const [[token], [token2022]] = await Promise.all([
    findAssociatedTokenPda({ owner: merchant, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    findAssociatedTokenPda({ owner: merchant, mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS })
  ])
  const terms = { feePayer: feePayer.address, mint, amount: PRICE, destinations: { token, token2022 }, maxPriorityFeeLamports: 10_000n, x402Version: 2 as const }
  const payloads = await chain.x402Payloads(PAYLOADS, PRICE, feePayer.address)

  const verifiers: Record<string, (transaction: string) => Promise<boolean>> = {
    'simulation only': async transaction => (await rpc.simulateTransaction(transaction as never, { sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed', encoding: 'base64' }).send()).value.err === null,
    '@x402/svm facilitator': async transaction => (await library.verify({ x402Version: 2, resource: { url: 'http://bench/api' }, accepted: requirement, payload: { transaction } }, requirement)).isValid,
    ours: async transaction => {
      const checked = checkPayloadTransfer(transaction, terms)
      return checked.kind === 'checked' && (await ours.verify(checked.transfer, 2)).isValid
    },
    // What ours adds to the simulation, without it: the rules and the payer's signature.
    'ours, no simulation': async transaction => {
      const checked = checkPayloadTransfer(transaction, terms)
      return checked.kind === 'checked' && payerSigned(checked.transfer)
    }
  }
  const names = Object.keys(verifiers)
  const cpuMicros: Record<string, number[]> = Object.fromEntries(names.map(name => [name, []]))
  const wallMicros: Record<string, number[]> = Object.fromEntries(names.map(name => [name, []]))

  // A warm-up round each (JIT, connections), then alternating rounds, one verification in flight.
  for (let round = -1; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const cpu = process.cpuUsage()
      const started = performance.now()
      for (const transaction of payloads) {
        if (!await verifiers[name](transaction)) throw new Error(`${name} refused a valid payload`)
      }
      const spent = process.cpuUsage(cpu)
      if (round < 0) continue
      cpuMicros[name].push((spent.user + spent.system) / payloads.length)
      wallMicros[name].push((performance.now() - started) * 1000 / payloads.length)
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const library_ = median(cpuMicros['@x402/svm facilitator'])
  const simulation = median(cpuMicros['simulation only'])
  console.log(`exact verification, ${PAYLOADS} payloads x ${ROUNDS} rounds, medians per verification (this process's CPU; the chain runs apart)`)
  console.log('verifier                 CPU µs   wall µs   CPU vs library   CPU beyond the simulation')
  for (const name of names) {
    const cpu = median(cpuMicros[name])
    console.log(`${name.padEnd(24)} ${cpu.toFixed(0).padStart(6)}   ${median(wallMicros[name]).toFixed(0).padStart(7)}   ${(cpu / library_).toFixed(2).padStart(13)}×   ${(cpu - simulation).toFixed(0).padStart(10)} µs`)
  }
} finally {
  await chain.stop()
}
