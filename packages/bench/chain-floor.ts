// The chain-only floor of a paid call: exactly the RPC calls the service's settlement makes for one
// payment, made by a bare @solana/kit program (packages/bench/lean-rpc.ts) against the same chain.
// x402: simulate (as the library's verify does), co-sign as fee payer, send with preflight at
// processed, poll getSignatureStatuses until confirmed. Pay-then-prove: one getTransaction.
import { setTimeout as sleep } from 'node:timers/promises'
import { getBase64EncodedWireTransaction, getTransactionDecoder, signBytes, type KeyPairSigner, type Signature } from '@solana/kit'
import type { LeanRpc } from './lean-rpc.js'

const decoder = getTransactionDecoder()
/** Between status looks once the first one found the transaction still unconfirmed. */
const POLL_MS = 2

export async function x402FloorCall (rpc: LeanRpc, wire: string, feePayer: KeyPairSigner): Promise<string> {
  const simulated = await rpc.simulateTransaction(wire as never, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed' }).send()
  if (simulated.value.err !== null) return 'simulation-failed'
  const tx = decoder.decode(Buffer.from(wire, 'base64'))
  const signature = await signBytes(feePayer.keyPair.privateKey, tx.messageBytes)
  const signed = getBase64EncodedWireTransaction({ ...tx, signatures: { ...tx.signatures, [feePayer.address]: signature as never } })
  const id = await rpc.sendTransaction(signed as never, { encoding: 'base64', preflightCommitment: 'processed' }).send()
  for (;;) {
    const status = (await rpc.getSignatureStatuses([id as Signature], { searchTransactionHistory: true }).send()).value[0]
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return status.err === null ? 'landed' : 'failed'
    await sleep(POLL_MS)
  }
}

export async function proofFloorCall (rpc: LeanRpc, signature: string): Promise<string> {
  const tx = await rpc.getTransaction(signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send()
  return tx === null ? 'null' : 'found'
}
