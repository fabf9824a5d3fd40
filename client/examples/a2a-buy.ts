import { randomUUID } from 'node:crypto'
import { SendMessageRequest, type Task } from '@a2a-js/sdk'
import { ClientFactory, ServiceParameters, withA2AExtensions } from '@a2a-js/sdk/client'
import type { KeyPairSigner } from '@solana/kit'
import { x402Client as X402Client } from '@x402/core/client'
import { ExactSvmScheme } from '@x402/svm/exact/client'

/** Buys SOL's price through A2A; the answer: artifacts[0] (the route's JSON), x402.payment.receipts (the SettleResponse). */
export async function buyPriceThroughA2a (merchant: string, buyer: KeyPairSigner, rpcUrl: string): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(merchant) // reads <merchant>/.well-known/agent-card.json
  const x402 = { serviceParameters: ServiceParameters.create(withA2AExtensions('https://github.com/google-a2a/a2a-x402/v0.1')) }
  const send = async (message: object) => await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } }), x402) as Task
  const asked = await send({ parts: [{ data: { skill: 'fetch-price', token: 'SOL', vs: 'USDC' }, mediaType: 'application/json' }] })
  const required = asked.status?.message?.metadata?.['x402.payment.required'] // input-required: a v2 PaymentRequired
  const payer = new X402Client().register('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', new ExactSvmScheme(buyer, { rpcUrl }))
  const payload = await payer.createPaymentPayload(required)
  return await send({ taskId: asked.id, parts: [{ text: 'payment' }], metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload } })
}
