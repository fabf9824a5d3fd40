// MPP's Solana charge beside the flows it wraps (issue #53 item 6), on one service in one run: a
// pull credential (a payer-signed transaction the merchant co-signs and sends) beside an x402 v2
// payload of the same shape, and a push credential (a landed transfer's signature) beside the proof
// headers over the same kind of transfer (exactly the price, told apart by a memo). The four alternate in blocks, so a busy spell on a shared
// machine falls on all alike; the figure to read is the service's CPU per call.
import { Challenge, Credential } from 'mppx'
import type { KeyPairSigner } from '@solana/kit'
import type { BenchChain, Proof } from './chain.js'
import { mergeSamples, type CallSample, type LoadFigures } from './figures.js'
import { poolOver, type LoadTarget } from './load.js'
import { getStatus, timeEach } from './timed-calls.js'
import { v2PaymentHeader } from './x402-calls.js'

export interface MppCallSet {
  concurrency: number
  mppPull: LoadFigures
  x402: LoadFigures
  mppPush: LoadFigures
  proof: LoadFigures
}

interface Offered {
  accepted: unknown
  resource: unknown
  pull: Challenge.Challenge
  push: Challenge.Challenge
}

/** The 402 of `path`: x402's v2 requirement, MPP's two challenges (kept a minute by the service: asked again per block). */
async function offeredAt (url: string): Promise<Offered> {
  const res = await fetch(url)
  if (res.status !== 402) throw new Error(`${url} answered ${res.status}, not its 402: ${(await res.text()).slice(0, 300)}`)
  const required = JSON.parse(Buffer.from(res.headers.get('payment-required') ?? '', 'base64').toString('utf8')) as { accepts: unknown[], resource: unknown }
  const challenges = Challenge.deserializeList(res.headers.get('www-authenticate') ?? '')
  const sponsored = (challenge: Challenge.Challenge) => (challenge.request.methodDetails as { feePayer?: boolean } | undefined)?.feePayer === true
  const pull = challenges.find(sponsored)
  const push = challenges.find(challenge => !sponsored(challenge))
  if (pull === undefined || push === undefined) throw new Error('the 402 carries no MPP challenges: is MPP_CHARGE off?')
  return { accepted: required.accepts[0], resource: required.resource, pull, push }
}

export async function measureMppCalls (options: {
  service: LoadTarget
  chain: BenchChain
  path: string
  price: bigint
  feePayer: KeyPairSigner
  /** Calls per flow, in blocks of `block`. */
  calls: number
  block: number
  concurrency: number
}): Promise<MppCallSet> {
  const { service, chain, path, price, feePayer, calls, block, concurrency } = options
  const { pool, pids } = poolOver(service, concurrency)
  const samples: Record<'mppPull' | 'x402' | 'mppPush' | 'proof', CallSample[]> = { mppPull: [], x402: [], mppPush: [], proof: [] }
  const timed = async <T>(items: readonly T[], headers: (item: T) => Record<string, string>) =>
    await timeEach(items, concurrency, pids, async item => await getStatus(pool, path, headers(item)))
  try {
    for (let done = 0; done < calls; done += block) {
      const size = Math.min(block, calls - done)
      const offered = await offeredAt(`${service.url}${path}`)
      samples.x402.push(await timed(await chain.x402Payloads(size, price, feePayer.address), tx => ({ 'payment-signature': v2PaymentHeader(tx, offered.accepted, offered.resource) })))
      samples.mppPull.push(await timed(await chain.x402Payloads(size, price, feePayer.address), tx =>
        ({ authorization: Credential.serialize({ challenge: offered.pull, payload: { type: 'transaction', transaction: tx } }) })))
      samples.proof.push(await timed(await chain.pay(size, price, true), (proof: Proof) => ({ 'x-payment-signature': proof.signature, 'x-payment-wallet': proof.wallet })))
      samples.mppPush.push(await timed(await chain.pay(size, price, true), (proof: Proof) =>
        ({ authorization: Credential.serialize({ challenge: offered.push, payload: { type: 'signature', signature: proof.signature } }) })))
    }
  } finally {
    await pool.close()
  }
  return {
    concurrency,
    mppPull: mergeSamples(samples.mppPull),
    x402: mergeSamples(samples.x402),
    mppPush: mergeSamples(samples.mppPush),
    proof: mergeSamples(samples.proof)
  }
}
