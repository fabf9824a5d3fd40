import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { loadKeypairSigner } from '../../lib/solana/keypair-file.js'
import { UsageError } from '../cli/exit-codes.js'
import { getManifest } from '../discovery.js'
import type { Manifest } from '../documents.js'
import { BuyerError } from '../errors.js'
import { connectMerchantMcp } from '../mcp.js'
import { createBridgeServer, serveBridge } from './bridge.js'
import type { BridgeOptions } from './options.js'
import { openSpendLedger } from './spend-ledger.js'

/** The merchant's MCP endpoint: given directly (a URL ending in /mcp), or named by its manifest. */
async function resolveMerchant (merchant: string): Promise<{ mcpUrl: string, manifest?: Manifest }> {
  if (new URL(merchant).pathname.replace(/\/+$/, '').endsWith('/mcp')) return { mcpUrl: merchant }
  const manifest = await getManifest(merchant)
  if (manifest.mcp_url === undefined) throw new BuyerError('INVALID_INPUT', `${manifest.name} names no MCP endpoint in its manifest (mcp_url); give its MCP URL as --merchant`)
  return { mcpUrl: manifest.mcp_url, manifest }
}

/**
 * `token-merchant mcp`: the paying bridge on stdio, until the host closes stdin or stops it. Every
 * line of its own goes to stderr (`log`): stdout carries the protocol only.
 */
export async function runBridge (options: BridgeOptions, log: (line: string) => void): Promise<void> {
  let signer
  try {
    signer = options.keypair === undefined ? undefined : await loadKeypairSigner(options.keypair)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  let ledger
  try {
    ledger = openSpendLedger(options.ledger, { budget: options.budget })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { mcpUrl, manifest } = await resolveMerchant(options.merchant)
  const upstream = await connectMerchantMcp(mcpUrl)
  log(`token-merchant mcp: ${manifest?.name ?? mcpUrl} at ${mcpUrl}; ${signer === undefined ? 'no wallet' : `buyer ${signer.address}`}; ` +
    `${options.dryRun ? 'dry run (nothing is paid)' : `max per call ${options.maxPrice ?? 'none'}, daily budget ${options.budget ?? 'none'} (spent today ${ledger.spentToday()})`}; ledger ${options.ledger}`)

  const server = createBridgeServer({ upstream, manifest, signer, ledger, options, log })
  const transport = new StdioServerTransport()
  // The host ends the bridge by closing stdin (or with a signal): the server closes, then the upstream session.
  const stop = () => { server.close().catch(() => {}) }
  process.stdin.once('end', stop)
  process.once('SIGTERM', stop).once('SIGINT', stop)
  try {
    await serveBridge(server, transport)
  } finally {
    process.stdin.off('end', stop)
    process.off('SIGTERM', stop).off('SIGINT', stop)
    await upstream.close()
    log('token-merchant mcp: closed')
  }
}
