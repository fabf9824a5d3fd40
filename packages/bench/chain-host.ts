// The local chain and its bench-side setup, in a process of its own, so the chain does not share an
// event loop with the load generator. Driven over IPC by packages/bench/chain.ts: one request, one answer.
// Payments and registrations are signed here and sent in JSON-RPC batches to the chain's own HTTP
// front (they land in order); waiting for each one would take minutes for thousands.
import { getAddMemoInstruction } from '@solana-program/memo'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import {
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  type Address,
  type Instruction,
  type KeyPairSigner
} from '@solana/kit'
import { registrationInstructions } from '../../client/register.js'
import { startLocalnet } from '@token-merchant/localnet'
import { buildSignedTransaction } from '@token-merchant/localnet/tx-builder'
import { buildRegistrationMemo } from '../../lib/registry/registration-memo.js'
import { generateKeypairBytes } from '../../lib/solana/keypair-file.js'
import { MEMO_V2_PROGRAM } from '../../lib/solana/networks.js'
import { signExactTransfer } from '../../test/fixtures/x402-payment.js'
import type { ChainRequest, ChainSetup, Proof } from './chain.js'

const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' as Address
const DECIMALS = 6
// More buyers than calls in flight (32 at most): consecutive payments come from different wallets,
// as from different agents, so no x402 settlement waits for another from the same token account
// (the service settles one payment per source account at a time; the floor does not).
const BUYERS = 48
const BUYER_TOKENS = 1_000_000_000_000n
// A blockhash lives 150 slots and the local chain makes one slot per transaction.
const SEND_BATCH = 100
// getSignatureStatuses takes at most 256 signatures.
const STATUS_BATCH = 256

const chain = await startLocalnet()
const mint = await chain.createMint({ address: DEVNET_USDC, decimals: DECIMALS })
// The merchant's key is fixed: the x402 library derives payTo's associated token account on every
// verification, trying bump seeds from 255 down (each try ~0.45 ms here), and a random key needs
// from one try to a dozen, so a random merchant moved the service's CPU per x402 call by
// milliseconds from run to run. This one needs two tries, the expected number for a random key.
const merchant = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(2))
const merchantAta = await chain.createAta(mint, merchant.address)
const buyers: KeyPairSigner[] = []
for (let i = 0; i < BUYERS; i++) {
  const buyer = await chain.createWallet()
  await chain.mintTo(mint, buyer.address, BUYER_TOKENS)
  buyers.push(buyer)
}
const buyerAtas = await Promise.all(buyers.map(async buyer =>
  (await findAssociatedTokenPda({ owner: buyer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]))
const registrants = await Promise.all(Array.from({ length: 10 }, async () => await chain.createWallet()))

let nextId = 1
async function rpc<T> (body: unknown): Promise<T> {
  const response = await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return await response.json() as T
}

type RpcAnswer = { result?: unknown, error?: unknown }

/** Signs one transaction per item with a fresh blockhash per batch, sends each batch in one request, checks every one landed. */
async function land (count: number, build: (index: number) => { instructions: Instruction[], signer: KeyPairSigner }): Promise<string[]> {
  const signatures: string[] = []
  for (let start = 0; start < count; start += SEND_BATCH) {
    const { result: { value: lifetime } } = await rpc<{ result: { value: { blockhash: string, lastValidBlockHeight: number } } }>(
      { jsonrpc: '2.0', id: nextId++, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] })
    const wires: string[] = []
    for (let i = start; i < Math.min(start + SEND_BATCH, count); i++) {
      const { instructions, signer } = build(i)
      wires.push(Buffer.from(await buildSignedTransaction(instructions, { feePayer: signer, lifetime })).toString('base64'))
    }
    const answers = await rpc<RpcAnswer[]>(wires.map(wire => ({
      jsonrpc: '2.0', id: nextId++, method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight: true }]
    })))
    for (const answer of answers) {
      if (typeof answer.result !== 'string') throw new Error(`sendTransaction failed: ${JSON.stringify(answer.error)}`)
      signatures.push(answer.result)
    }
  }
  // Sent without preflight: make sure none of them failed on chain.
  for (let start = 0; start < signatures.length; start += STATUS_BATCH) {
    const { result: { value } } = await rpc<{ result: { value: Array<{ err: unknown } | null> } }>({
      jsonrpc: '2.0', id: nextId++, method: 'getSignatureStatuses', params: [signatures.slice(start, start + STATUS_BATCH)]
    })
    const failed = value.findIndex(status => status === null || status.err !== null)
    if (failed !== -1) throw new Error(`transaction ${signatures[start + failed]} did not land: ${JSON.stringify(value[failed])}`)
  }
  return signatures
}

let paymentsMade = 0

/**
 * `count` transferChecked payments of at least `amount` to the merchant; each amount differs, so no
 * two transactions are alike. `exact`: each of exactly `amount` (as MPP's charge takes it), told
 * apart by a memo instead.
 */
async function pay (count: number, amount: bigint, exact = false): Promise<Proof[]> {
  const first = paymentsMade
  paymentsMade += count
  const payerOf = (index: number) => (first + index) % BUYERS
  const signatures = await land(count, index => {
    const b = payerOf(index)
    const instruction = getTransferCheckedInstruction({
      source: buyerAtas[b], mint, destination: merchantAta, authority: buyers[b], amount: exact ? amount : amount + BigInt(first + index), decimals: DECIMALS
    })
    const memo = getAddMemoInstruction({ memo: `bench ${first + index}` }, { programAddress: MEMO_V2_PROGRAM as Address })
    return { instructions: exact ? [instruction, memo] : [instruction], signer: buyers[b] }
  })
  return signatures.map((signature, index) => ({ signature, wallet: buyers[payerOf(index)].address }))
}

/** x402 `exact` transactions as the official client builds them, signed by the buyers, the fee payer's slot left empty. */
async function x402Payloads (count: number, amount: bigint, feePayer: Address): Promise<string[]> {
  const { result: { value: lifetime } } = await rpc<{ result: { value: { blockhash: string, lastValidBlockHeight: number } } }>(
    { jsonrpc: '2.0', id: nextId++, method: 'getLatestBlockhash', params: [{ commitment: 'confirmed' }] })
  const payloads: string[] = []
  for (let i = 0; i < count; i++) {
    const b = (paymentsMade + i) % BUYERS
    payloads.push(await signExactTransfer([buyers[b].keyPair], {
      source: buyerAtas[b],
      destination: merchantAta,
      mint,
      authority: buyers[b].address,
      amount,
      feePayer,
      lifetime: { blockhash: lifetime.blockhash, lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight) }
    }))
  }
  paymentsMade += count
  return payloads
}

async function register (registryAddress: Address, from: number, to: number): Promise<number> {
  const signatures = await land(to - from, offset => {
    const i = from + offset
    const signer = registrants[i % registrants.length]
    const memo = buildRegistrationMemo({ name: `agent-${i}`, manifestUrl: `https://agent-${i}.example/.well-known/agent.json` })
    return { instructions: registrationInstructions(signer, registryAddress, memo), signer }
  })
  return signatures.length
}

/** Wallets whose keys the bench holds (x402 payloads are signed on its side), with SOL and payment tokens. */
async function wallets (count: number, lamports: bigint, tokens: bigint): Promise<number[][]> {
  const keys: number[][] = []
  for (let i = 0; i < count; i++) {
    const bytes = generateKeypairBytes()
    const { address } = await createKeyPairSignerFromBytes(bytes)
    await chain.airdrop(address, lamports)
    if (tokens > 0n) await chain.mintTo(mint, address, tokens)
    keys.push([...bytes])
  }
  return keys
}

async function answer (request: ChainRequest): Promise<unknown> {
  switch (request.op) {
    case 'wallets': return await wallets(request.count, request.lamports, request.tokens)
    case 'pay': return await pay(request.count, request.amount, request.exact)
    case 'x402Payloads': return await x402Payloads(request.count, request.amount, request.feePayer as Address)
    case 'register': return await register(request.registryAddress as Address, request.from, request.to)
    case 'stats': return chain.stats()
    case 'resetStats': return chain.resetStats()
  }
}

process.on('message', (message: { id: number, request: ChainRequest }) => {
  answer(message.request).then(
    result => process.send?.({ id: message.id, result }),
    (error: Error) => process.send?.({ id: message.id, error: error.stack ?? error.message })
  )
})
process.on('disconnect', () => { chain.stop().finally(() => process.exit(0)) })
const setup: ChainSetup = { url: chain.url, mint, merchant: merchant.address }
process.send?.({ ready: setup })
