import { setTimeout as sleep } from 'node:timers/promises'
import type { Address } from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { buy, type BuyResult } from '../client/buy.js'
import { formatMcpStep, formatReputation, formatStep, paymentToken } from '../client/cli/format.js'
import { discover, getManifest, getReputation } from '../client/discovery.js'
import type { RegisteredAgent, Reputation } from '../client/documents.js'
import { buyViaMcp, connectMerchantMcp } from '../client/mcp.js'
import { registerAgent } from '../client/register.js'
import type { BuyStep } from '../client/steps.js'
import { DEFAULT_REGISTRY_ADDRESS } from '../config.js'
import { formatTokenAmount } from '../lib/payment/catalog.js'
import { startDemoEnvironment, USDC_DECIMALS } from './environment.js'

const AGENT_NAME = 'token-merchant'
const BUYER_USDC = 1_000_000n
const REGISTRY_WAIT_MS = 20_000

export interface DemoPurchase {
  service: string
  /** How it was bought: HTTP with a proof, or the MCP tool paid through x402. */
  via: 'http' | 'mcp'
  url: string
  signature: string
  amountPaid: bigint
  data: unknown
}

export interface DemoSummary {
  merchantUrl: string
  merchantAddress: string
  registration: string
  buyer: string
  purchases: DemoPurchase[]
  reputationBefore: Reputation
  reputationAfter: Reputation
  /** The merchant's payment-token balance at the end, in base units. */
  merchantBalance: bigint
}

class DemoStepFailed extends Error {}

async function waitForRegistration (registryUrl: string, wallet: string, signal?: AbortSignal): Promise<RegisteredAgent> {
  const deadline = Date.now() + REGISTRY_WAIT_MS
  for (;;) {
    const listing = await discover(registryUrl, { name: AGENT_NAME })
    const agent = listing.agents.find(a => a.wallet === wallet)
    if (agent !== undefined) return agent
    if (Date.now() > deadline) throw new DemoStepFailed(`the registration did not appear in ${registryUrl} within ${REGISTRY_WAIT_MS / 1000} s`)
    await sleep(300, undefined, { signal })
  }
}

function describeData (service: string, data: unknown): string {
  const record = data as Record<string, unknown>
  if (service === 'fetch-price') {
    const price = record.data as { mintSymbol?: string, vsTokenSymbol?: string, price?: number, source?: string }
    return `1 ${price.mintSymbol} = ${price.price} ${price.vsTokenSymbol} (source ${price.source}: the local stand-in's fixed table, not the live market)`
  }
  return `risk score ${String(record.risk_score)}/100: ${String(record.summary).split('. ')[0]}.`
}

/**
 * The whole flow on this machine, in the specification's order: start the local chain (payment
 * mint at the devnet USDC address), the price stand-in and the merchant process; register the
 * merchant; fund a buyer; then discover it in the registry, read its manifest and reputation,
 * buy both paid routes (402, payment, proof), buy one price through the MCP tool (x402's MCP
 * transport), ending with the reputation. Throws when any step fails; always stops what it started.
 */
export async function runDemo ({ log, signal }: { log: (line: string) => void, signal?: AbortSignal }): Promise<DemoSummary> {
  log('token-merchant demo: a buyer pays a merchant per request over x402, all on this machine (no network).')
  log('\n1. Start the local Solana chain, the local price stand-in and the merchant process')
  const env = await startDemoEnvironment()
  const stopOnAbort = () => { env.stop().catch(() => {}) }
  signal?.addEventListener('abort', stopOnAbort, { once: true })
  try {
    signal?.throwIfAborted()
    const { merchant } = env
    log(`   local chain      ${env.net.url}`)
    log(`   payment mint     ${env.mint} (USDC, ${USDC_DECIMALS} decimals, at the devnet USDC address)`)
    log(`   price stand-in   ${env.priceApi.url}: prices come from this local Jupiter stand-in, not the live market`)
    log(`   merchant         ${merchant.url} (process ${merchant.process.pid}) receives payments at ${merchant.signer.address}`)
    log(`                    into its USDC account ${merchant.tokenAccount}, created beforehand so buyers can pay it`)

    log('\n2. Register the merchant in the on-chain registry (a memo transaction signed by its wallet)')
    const manifestUrl = `${merchant.url}/.well-known/agent.json`
    const registration = await registerAgent({
      rpc: env.net.rpc, signer: merchant.signer, registryAddress: DEFAULT_REGISTRY_ADDRESS, name: AGENT_NAME, manifestUrl, pollIntervalMs: 100
    })
    log(`   "${AGENT_NAME}" → ${manifestUrl}`)
    log(`   registry ${DEFAULT_REGISTRY_ADDRESS}, signature ${registration}`)

    log('\n3. Fund a buyer')
    const buyer = await env.createBuyer(BUYER_USDC)
    log(`   buyer ${buyer.address}: 10 SOL for fees, ${formatTokenAmount(BUYER_USDC, USDC_DECIMALS)} USDC`)

    log('\n4. Discover: GET /registry')
    const agent = await waitForRegistration(`${merchant.url}/registry`, merchant.signer.address, signal)
    log(`   found "${agent.name}" → ${agent.manifest_url}, registered by ${agent.wallet}`)

    log('\n5. Read the manifest')
    const manifest = await getManifest(agent.manifest_url)
    if (manifest.payment_address !== agent.wallet) throw new DemoStepFailed('the manifest pays a wallet other than the one that registered it')
    log(`   ${manifest.name} ${manifest.version} on ${manifest.network}, paid to ${manifest.payment_address} (the registering wallet)`)
    for (const service of manifest.services) log(`   ${service.name.padEnd(14)} ${service.method} ${service.endpoint}  ${service.price_display} ${service.payment_token} (${service.price} base units)`)

    log('\n6. Check the reputation')
    const reputationBefore = await getReputation(manifest.reputation_url)
    log(`   ${reputationBefore.transactions} verified payments so far, success rate ${reputationBefore.success_rate ?? 'n/a'}`)

    const purchases: DemoPurchase[] = []
    // One purchase per flow: the standard x402 flow (the official @x402/fetch client; the merchant
    // co-signs as fee payer and settles) and pay-then-prove (the buyer pays, then shows the signature).
    const targets = [
      { service: 'fetch-price', path: '/api/fetch-price/SOL', flow: 'x402' as const },
      { service: 'analyze-token', path: `/api/analyze-token/${env.mint}`, flow: 'proof' as const }
    ]
    const [buyerAccount] = (await findAssociatedTokenPda({ owner: buyer.address, mint: env.mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))
    for (const [i, target] of targets.entries()) {
      const url = `${merchant.url}${target.path}`
      const price = BigInt(manifest.services.find(s => s.name === target.service)?.price ?? 0)
      log(`\n${7 + i}. Buy ${target.service} with ${target.flow === 'x402' ? 'the standard x402 flow' : 'pay-then-prove'}: GET ${target.path} (spending limit: the manifest price, ${price} base units)`)
      const onStep = (step: BuyStep) => log(`   ${formatStep(step, paymentToken(manifest)).replaceAll('\n', '\n   ')}`)
      const solBefore = (await env.net.rpc.getBalance(buyer.address).send()).value
      const result: BuyResult = await buy(url, { signer: buyer, rpc: env.net.url, manifest, maxPrice: price, onStep, flow: target.flow })
      if (result.signature === null || result.receipt?.transaction !== result.signature) throw new DemoStepFailed(`${target.path} delivered without a matching receipt`)
      if (result.flow !== target.flow) throw new DemoStepFailed(`${target.path} was paid with ${String(result.flow)}, not ${target.flow}`)
      const solSpent = solBefore - (await env.net.rpc.getBalance(buyer.address).send()).value
      if (target.flow === 'x402') {
        log(`   settled by the merchant: signature ${result.signature}`)
        if (solSpent !== 0n) throw new DemoStepFailed(`the buyer spent ${solSpent} lamports on an x402 payment; the merchant pays the fee`)
      }
      log(`   buyer SOL spent on fees: ${solSpent} lamports${target.flow === 'x402' ? ' (the merchant paid the fee)' : ''}`)
      log(`   data: ${describeData(target.service, result.data)}`)
      purchases.push({ service: target.service, via: 'http', url, signature: result.signature, amountPaid: result.amountPaid, data: result.data })
    }

    const mcpStep = 7 + targets.length
    const mcpTarget = `${merchant.url}/api/fetch-price/JUP`
    const mcpPrice = BigInt(manifest.services.find(s => s.name === 'fetch-price')?.price ?? 0)
    if (manifest.mcp_url === undefined) throw new DemoStepFailed('the manifest names no MCP endpoint')
    log(`\n${mcpStep}. Buy fetch-price through MCP: the fetch_price tool on ${manifest.mcp_url}, paid with x402 (spending limit ${mcpPrice} base units)`)
    const mcp = await connectMerchantMcp(manifest.mcp_url)
    try {
      const { tools } = await mcp.listTools()
      log(`   tools: ${tools.map(tool => tool.name).join(', ')}`)
      const bought = await buyViaMcp(mcp, mcpTarget, {
        signer: buyer,
        rpcUrl: env.net.url,
        manifest,
        maxPrice: mcpPrice,
        onStep: step => log(`   ${formatMcpStep(step, paymentToken(manifest))}`)
      })
      if (bought.signature === null) throw new DemoStepFailed('the MCP tool delivered without a settlement')
      log(`   signature ${bought.signature}`)
      log(`   data: ${describeData('fetch-price', bought.data)}`)
      purchases.push({ service: 'fetch-price', via: 'mcp', url: mcpTarget, signature: bought.signature, amountPaid: bought.amountPaid, data: bought.data })
    } finally {
      await mcp.close()
    }

    const balanceOf = async (account: Address) => BigInt((await env.net.rpc.getTokenAccountBalance(account).send()).value.amount)
    const merchantBalance = await balanceOf(merchant.tokenAccount)
    const spent = purchases.reduce((sum, p) => sum + p.amountPaid, 0n)
    log(`\n${mcpStep + 1}. Balances on the chain`)
    log(`   buyer    ${formatTokenAmount(await balanceOf(buyerAccount), USDC_DECIMALS)} USDC (paid ${formatTokenAmount(spent, USDC_DECIMALS)})`)
    log(`   merchant ${formatTokenAmount(merchantBalance, USDC_DECIMALS)} USDC`)
    if (merchantBalance !== spent) throw new DemoStepFailed(`the merchant holds ${merchantBalance} base units; the buyer paid ${spent}`)

    log(`\n${mcpStep + 2}. Reputation after the purchases`)
    const reputationAfter = await getReputation(manifest.reputation_url)
    log(formatReputation(reputationAfter).replace(/^/gm, '   '))
    if (reputationAfter.deliveries - reputationBefore.deliveries !== purchases.length) {
      throw new DemoStepFailed(`the reputation counts ${reputationAfter.deliveries - reputationBefore.deliveries} new deliveries, expected ${purchases.length}`)
    }

    log('\nEvery step worked. Prices came from the local stand-in; payments moved on the local chain only.')
    return {
      merchantUrl: merchant.url,
      merchantAddress: merchant.signer.address,
      registration,
      buyer: buyer.address,
      purchases,
      reputationBefore,
      reputationAfter,
      merchantBalance
    }
  } finally {
    signal?.removeEventListener('abort', stopOnAbort)
    await env.stop()
  }
}
