// A paid MCP tool call beside the same purchase over HTTP, both paid with x402 v2 (exact scheme, the
// merchant as its own facilitator, settlement before the answer): GET /api/fetch-price/SOL with
// PAYMENT-SIGNATURE, and tools/call fetch_price with the payload in _meta["x402/payment"]. Each
// call gets a payload of its own, built beforehand by the official x402 client (not timed). And a
// free document both ways (GET /.well-known/agent.json, the get_manifest tool): the cost of MCP's
// JSON-RPC envelope and the SDK's per-request transport alone. And the MCP floor's two parts: the
// chain-only x402 floor (packages/bench/chain-floor.ts) and a tool call to the SDK's bare server
// (packages/bench/bare-mcp-server.ts). One call in flight; all alternate in blocks, so a busy spell
// on a shared machine falls on all alike. Both sides go through undici pools (the SDK's clients
// through poolFetch), so the ratio compares the service's two doors, not two HTTP clients.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit'
import { x402Client as X402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { Pool, request } from 'undici'
import { join } from 'node:path'
import type { BenchChain } from './chain.js'
import { x402FloorCall } from './chain-floor.js'
import { mergeSamples, type CallSample, type LoadFigures } from './figures.js'
import { createLeanRpc } from './lean-rpc.js'
import { startBareMcp } from './processes.js'
import { poolFetch } from './pool-fetch.js'
import { getStatus, timeEach } from './timed-calls.js'
import { abortIsolatingFetch } from '../../client/abort-isolating-fetch.js'
import { X402_NETWORKS } from '../../lib/x402/networks.js'

export interface McpPaidFigures {
  path: string
  tool: string
  /** Paid calls per side. */
  calls: number
  blockSize: number
  /** Seconds the official client took to build all payloads (getLatestBlockhash + signing), untimed in the calls. */
  payloadSeconds: number
  httpPaid: LoadFigures
  mcpPaid: LoadFigures
  httpFree: LoadFigures
  mcpFree: LoadFigures
  /** The chain-only x402 floor, same payments, 1 in flight (server CPU: the chain's). */
  chainFloor: LoadFigures
  /** A tool call to the SDK's bare MCP server (server CPU: that server's). */
  bareMcp: LoadFigures
}

const DEVNET = X402_NETWORKS['solana-devnet'].caip2

function toolOutcome (result: CallToolResult): string {
  if (result.isError !== true) return 'ok'
  const document = result.structuredContent as { code?: string, error?: string } | undefined
  return `error ${document?.code ?? document?.error?.split(':')[0] ?? 'unknown'}`
}

/**
 * `calls` paid calls each way in blocks of `blockSize` (a blockhash lives 150 slots and the local
 * chain makes a slot per transaction, so payloads are built just before their block), paid by
 * `buyers` in turn. The service must advertise solana-devnet (official clients know no other).
 */
export async function measureMcpPaidCalls (options: {
  serviceUrl: string
  servicePid: number
  chain: BenchChain
  /** The fee payer the service co-signs with: the floor co-signs with it too. */
  feePayer: KeyPairSigner
  price: bigint
  /** Where the bare MCP server writes its log. */
  scratch: string
  buyers: readonly Uint8Array[]
  calls: number
  blockSize: number
  path: string
  tool: string
  args: Record<string, unknown>
  freePath: string
}): Promise<McpPaidFigures> {
  const { serviceUrl, servicePid, path, tool, args, blockSize } = options
  const signers: KeyPairSigner[] = await Promise.all(options.buyers.map(async bytes => await createKeyPairSignerFromBytes(bytes)))
  const { chain, feePayer } = options
  const payers = signers.map(signer => new X402Client().register(DEVNET, new ExactSvmScheme(signer, { rpcUrl: chain.url })).setSpendControls(false))
  const mcp = new Client({ name: 'token-merchant-bench', version: '1.0.0' })
  // Each MCP client has a pool of its own like the HTTP side's (its transport may hold a stream open).
  const mcpPool = new Pool(serviceUrl, { connections: 1, pipelining: 1 })
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', serviceUrl), { fetch: abortIsolatingFetch(poolFetch(mcpPool)) }))
  const bare = await startBareMcp(options.scratch, join(options.scratch, 'bare-mcp.log'))
  const bareClient = new Client({ name: 'token-merchant-bench', version: '1.0.0' })
  const barePool = new Pool(bare.url, { connections: 1, pipelining: 1 })
  await bareClient.connect(new StreamableHTTPClientTransport(new URL('/mcp', bare.url), { fetch: abortIsolatingFetch(poolFetch(barePool)) }))
  const lean = createLeanRpc(chain.url, 1)
  const pool = new Pool(serviceUrl, { connections: 1, pipelining: 1 })
  const samples = {
    httpPaid: [] as CallSample[],
    mcpPaid: [] as CallSample[],
    httpFree: [] as CallSample[],
    mcpFree: [] as CallSample[],
    chainFloor: [] as CallSample[],
    bareMcp: [] as CallSample[]
  }
  let payloadSeconds = 0
  let turn = 0
  try {
    const challenge = await request(`${serviceUrl}${path}`)
    await challenge.body.dump()
    const httpRequired = JSON.parse(Buffer.from(String(challenge.headers['payment-required']), 'base64').toString()) as PaymentRequired
    const mcpRequired = (await mcp.callTool({ name: tool, arguments: args }) as CallToolResult).structuredContent as PaymentRequired
    const payloads = async (required: PaymentRequired, count: number): Promise<PaymentPayload[]> => {
      const started = performance.now()
      const built: PaymentPayload[] = []
      for (let i = 0; i < count; i++) built.push(await payers[turn++ % payers.length].createPaymentPayload(required))
      payloadSeconds += (performance.now() - started) / 1000
      return built
    }
    for (let done = 0; done < options.calls; done += blockSize) {
      const size = Math.min(blockSize, options.calls - done)
      const forHttp = await payloads(httpRequired, size)
      samples.httpPaid.push(await timeEach(forHttp, 1, servicePid, async payload =>
        await getStatus(pool, path, { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') })))
      const forMcp = await payloads(mcpRequired, size)
      samples.mcpPaid.push(await timeEach(forMcp, 1, servicePid, async payload =>
        toolOutcome(await mcp.callTool({ name: tool, arguments: args, _meta: { 'x402/payment': payload } }) as CallToolResult)))
      const free = Array.from({ length: size }, (_, i) => i)
      samples.httpFree.push(await timeEach(free, 1, servicePid, async () => await getStatus(pool, options.freePath)))
      samples.mcpFree.push(await timeEach(free, 1, servicePid, async () =>
        toolOutcome(await mcp.callTool({ name: 'get_manifest', arguments: {} }) as CallToolResult)))
      const forFloor = await chain.x402Payloads(size, options.price, feePayer.address)
      samples.chainFloor.push(await timeEach(forFloor, 1, chain.pid, async wire => await x402FloorCall(lean.rpc, wire, feePayer)))
      samples.bareMcp.push(await timeEach(free, 1, bare.pid, async () =>
        toolOutcome(await bareClient.callTool({ name: 'constant', arguments: {} }) as CallToolResult)))
    }
  } finally {
    await pool.close()
    await mcp.close()
    await bareClient.close()
    await mcpPool.close()
    await barePool.close()
    await bare.stop()
    await lean.close()
  }
  return {
    path,
    tool,
    calls: options.calls,
    blockSize,
    payloadSeconds,
    httpPaid: mergeSamples(samples.httpPaid),
    mcpPaid: mergeSamples(samples.mcpPaid),
    httpFree: mergeSamples(samples.httpFree),
    mcpFree: mergeSamples(samples.mcpFree),
    chainFloor: mergeSamples(samples.chainFloor),
    bareMcp: mergeSamples(samples.bareMcp)
  }
}
