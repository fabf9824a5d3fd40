// A peer for the benchmark: the official x402 middleware for Express or Hono (PEER=express|hono)
// guarding the same paid route at the same price as the service, and serving the service's
// manifest bytes (PEER_MANIFEST_FILE). By default its facilitator is a stub answering /supported
// locally, so no network is involved: the 402 path never calls verify or settle. With
// PEER_FACILITATOR_RPC_URL and PEER_FEE_PAYER_KEYPAIR_PATH it is @x402/core's in-process
// facilitator with @x402/svm's exact scheme, as the library's README sets it up (defaults, kit's
// RPC client), co-signing with the service's fee payer on the same chain: the paid path's peer.
import { readFileSync } from 'node:fs'
import { createSolanaRpc } from '@solana/kit'
import { x402Facilitator } from '@x402/core/facilitator'
import { x402ResourceServer, type FacilitatorClient, type RoutesConfig } from '@x402/core/server'
import type { Network } from '@x402/core/types'
import { toFacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as ExactSvmFacilitator } from '@x402/svm/exact/facilitator'
import { ExactSvmScheme } from '@x402/svm/exact/server'
import { loadKeypairSigner } from '../../../lib/solana/keypair-file.js'
import { X402_NETWORKS } from '../../../lib/x402/networks.js'

const DEVNET = X402_NETWORKS['solana-devnet'].caip2
const peer = process.env.PEER ?? 'express'
const manifest = readFileSync(process.env.PEER_MANIFEST_FILE ?? '', 'utf8')
const { payTo, asset, amount, feePayer, path } = JSON.parse(process.env.PEER_TERMS ?? '{}') as
  { payTo: string, asset: string, amount: string, feePayer: string, path: string }

const stub: FacilitatorClient = {
  getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network: DEVNET, extra: { feePayer } }], extensions: [], signers: { 'solana:*': [feePayer] } }),
  verify: async () => ({ isValid: false, invalidReason: 'bench_stub', payer: '' }),
  settle: async () => ({ success: false, errorReason: 'bench_stub', transaction: '', network: DEVNET, payer: '' })
} as unknown as FacilitatorClient

async function inProcessFacilitator (rpcUrl: string, keypairPath: string): Promise<FacilitatorClient> {
  const signer = toFacilitatorSvmSigner(await loadKeypairSigner(keypairPath), { [DEVNET]: createSolanaRpc(rpcUrl) } as never)
  // eslint-disable-next-line new-cap -- the SDK's class name
  const facilitator = new x402Facilitator().register(DEVNET as Network, new ExactSvmFacilitator(signer))
  return {
    verify: async (payload, requirements) => await facilitator.verify(payload, requirements),
    settle: async (payload, requirements) => await facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as never
  }
}

const rpcUrl = process.env.PEER_FACILITATOR_RPC_URL
const keypairPath = process.env.PEER_FEE_PAYER_KEYPAIR_PATH
const facilitator = rpcUrl !== undefined && keypairPath !== undefined ? await inProcessFacilitator(rpcUrl, keypairPath) : stub

// eslint-disable-next-line new-cap -- the SDK's class name
const server = new x402ResourceServer(facilitator).register(DEVNET, new ExactSvmScheme())
const routes: RoutesConfig = {
  [`GET ${path}`]: {
    accepts: { scheme: 'exact', network: DEVNET, payTo, price: { amount, asset } } as const,
    description: 'Token security analysis',
    mimeType: 'application/json'
  }
}
const host = process.env.HOST ?? '127.0.0.1'
const port = Number(process.env.PORT ?? 0)

if (peer === 'express') {
  const { default: express } = await import('express')
  const { paymentMiddleware } = await import('@x402/express')
  const app = express()
  app.use(paymentMiddleware(routes, server))
  app.get('/.well-known/agent.json', (_req, res) => { res.type('application/json').send(manifest) })
  app.get(path, (_req, res) => { res.json({ paid: true }) })
  const listener = app.listen(port, host, () => process.send?.('ready'))
  process.on('SIGTERM', () => listener.close(() => process.exit(0)))
} else {
  const { Hono } = await import('hono')
  const { serve } = await import('@hono/node-server')
  const { paymentMiddleware } = await import('@x402/hono')
  const app = new Hono()
  app.use(paymentMiddleware(routes, server))
  app.get('/.well-known/agent.json', (c) => c.body(manifest, 200, { 'content-type': 'application/json' }))
  app.get(path, (c) => c.json({ paid: true }))
  const listener = serve({ fetch: app.fetch, port, hostname: host }, () => process.send?.('ready'))
  process.on('SIGTERM', () => listener.close(() => process.exit(0)))
}
