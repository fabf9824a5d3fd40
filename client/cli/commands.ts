import { resolve } from 'node:path'
import { createSolanaRpc, isAddress, type Address, type TransactionSigner } from '@solana/kit'
import { DEFAULT_REGISTRY_ADDRESS } from '../../config.js'
import { NETWORKS } from '../../lib/solana/networks.js'
import { loadKeypairSigner, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { buy } from '../buy.js'
import { discover, getManifest, getReputation, type ReputationOptions } from '../discovery.js'
import type { Manifest } from '../documents.js'
import { BuyerError, isBuyerError } from '../errors.js'
import { parseHttpUrl } from '../http.js'
import { buyViaMcp, connectMerchantMcp, type McpBuyStep } from '../mcp.js'
import { registerAgent } from '../register.js'
import type { BuyStep } from '../steps.js'
import type { CommandName } from './arguments.js'
import { EXIT, UsageError } from './exit-codes.js'
import { formatManifest, formatMcpStep, formatRegistry, formatReputation, formatStep, paymentToken, toJson } from './format.js'

export interface CommandOutcome {
  /** What --json prints under "result". */
  result: unknown
  /** What a person sees on stdout. */
  text: string
  /** The exit code when it is not 0 though the command ran (check-config found problems). */
  exitCode?: number
  /** Nothing to print: stdout carried a protocol (mcp). */
  quiet?: boolean
}

/** Prints a progress line for a person (stderr); silent under --json. */
export type Progress = (line: string) => void

type Command = (args: Record<string, string>, progress: Progress) => Promise<CommandOutcome>

const WINDOWS = ['24h', '7d', '30d', 'all'] as const
const DEFAULT_REGISTRATION_RPC = NETWORKS.devnet.rpcUrl
/** The base fee of a one-signature transaction, all a registration pays. */
const REGISTRATION_FEE_LAMPORTS = 5000n
/** Retries back off up to 8 s each, so 20 bound a purchase's wait to a few minutes. */
const MAX_RETRIES = 20

async function signerFrom (path: string) {
  try {
    return await loadKeypairSigner(path)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function nonNegativeInteger (value: string, option: string): bigint {
  if (!/^\d{1,30}$/.test(value)) throw new UsageError(`--${option} must be a whole number of base units, got "${value}"`)
  return BigInt(value)
}

function httpUrl (value: string, what: string): string {
  try {
    return parseHttpUrl(value).href
  } catch {
    throw new UsageError(`${what} must be an absolute http(s) URL, got "${value}"`)
  }
}

/** --rpc, or the public endpoint of the manifest's cluster; a local chain has none. */
function rpcFor (network: string, given: string | undefined): string {
  if (given !== undefined) return httpUrl(given, '--rpc')
  const facts = (NETWORKS as Record<string, { rpcUrl?: string }>)[network]
  if (facts?.rpcUrl === undefined) throw new UsageError(`the merchant runs on "${network}", which has no public RPC endpoint: give --rpc <url>`)
  return facts.rpcUrl
}

const registry: Command = async (args) => {
  if (args.wallet !== undefined && !isAddress(args.wallet)) throw new UsageError(`--wallet must be a base58 Solana address, got "${args.wallet}"`)
  const listing = await discover(httpUrl(args.url, '<url>'), { wallet: args.wallet, name: args.name })
  return { result: listing, text: formatRegistry(listing) }
}

const manifest: Command = async (args) => {
  const document = await getManifest(httpUrl(args.url, '<url>'))
  return { result: document, text: formatManifest(document) }
}

const reputation: Command = async (args) => {
  const window = args.window as ReputationOptions['window']
  if (window !== undefined && !WINDOWS.includes(window)) throw new UsageError(`--window must be one of ${WINDOWS.join(', ')}, got "${args.window}"`)
  const document = await getReputation(httpUrl(args.url, '<url>'), { window })
  return { result: document, text: formatReputation(document) }
}

const VIAS = ['http', 'mcp'] as const

const buyCommand: Command = async (args, progress) => {
  const url = httpUrl(args.url, '<url>')
  const maxPrice = args['max-price'] === undefined ? undefined : nonNegativeInteger(args['max-price'], 'max-price')
  const deliveryRetries = args.retries === undefined ? undefined : Number(nonNegativeInteger(args.retries, 'retries'))
  if (deliveryRetries !== undefined && deliveryRetries > MAX_RETRIES) throw new UsageError(`--retries must be at most ${MAX_RETRIES}`)
  const flow = args.flow ?? 'auto'
  if (flow !== 'auto' && flow !== 'x402' && flow !== 'proof') throw new UsageError(`--flow must be auto, x402 or proof, got "${flow}"`)
  if (flow === 'x402' && args.signature !== undefined) throw new UsageError('--signature is a pay-then-prove proof: it goes with --flow proof or auto')
  const via = args.via ?? 'http'
  if (!(VIAS as readonly string[]).includes(via)) throw new UsageError(`--via must be one of ${VIAS.join(', ')}, got "${via}"`)
  if (via === 'mcp' && args.signature !== undefined) throw new UsageError('--signature applies to HTTP proofs; an MCP payment that was not delivered moved nothing, buy again')
  if (via === 'mcp' && flow === 'proof') throw new UsageError('--via mcp pays with x402 only: drop --flow proof')
  const signer = await signerFrom(args.keypair)
  const merchant = await getManifest(new URL(url).origin)
  const rpc = rpcFor(merchant.network, args.rpc)
  progress(`merchant ${merchant.name} on ${merchant.network}; buyer ${signer.address}; RPC ${rpc}`)
  if (via === 'mcp') return await buyThroughMcp(url, merchant, signer, rpc, { maxPrice, retries: deliveryRetries }, progress)

  const steps: BuyStep[] = []
  try {
    const bought = await buy(url, {
      signer,
      rpc,
      maxPrice,
      manifest: merchant,
      paidSignature: args.signature,
      deliveryRetries,
      flow,
      onStep: step => {
        steps.push(step)
        progress(formatStep(step, paymentToken(merchant)))
      }
    })
    return { result: { ...bought, steps }, text: toJson(bought.data) }
  } catch (error) {
    // Retrying is advice only while the payment may still buy its delivery: not once the merchant says it already did.
    const spent = error instanceof BuyerError && error.details.serverCode === 'PAYMENT_ALREADY_USED'
    if ((isBuyerError(error, 'DELIVERY_FAILED') || isBuyerError(error, 'PAYMENT_UNCONFIRMED')) && error.signature !== undefined && !spent) {
      error.details.retryCommand = `token-merchant buy ${url} --keypair ${args.keypair}${args.rpc === undefined ? '' : ` --rpc ${args.rpc}`} --signature ${error.signature}`
    }
    throw error
  }
}

/** `buy --via mcp`: the same product through the merchant's MCP tool, paid with x402. */
async function buyThroughMcp (url: string, merchant: Manifest, signer: TransactionSigner, rpcUrl: string,
  limits: { maxPrice?: bigint, retries?: number }, progress: Progress): Promise<CommandOutcome> {
  if (merchant.mcp_url === undefined) throw new BuyerError('INVALID_INPUT', `${merchant.name} names no MCP endpoint in its manifest (mcp_url)`)
  progress(`MCP endpoint ${merchant.mcp_url}`)
  const client = await connectMerchantMcp(merchant.mcp_url)
  const steps: McpBuyStep[] = []
  try {
    const bought = await buyViaMcp(client, url, {
      signer,
      rpcUrl,
      manifest: merchant,
      maxPrice: limits.maxPrice,
      retries: limits.retries,
      onStep: step => {
        steps.push(step)
        progress(formatMcpStep(step, paymentToken(merchant)))
      }
    })
    return { result: { ...bought, via: 'mcp', steps }, text: toJson(bought.data) }
  } finally {
    await client.close()
  }
}

/**
 * A registration is one transaction with one signature and no priority fee: the base fee. The
 * wallet is checked first, so an empty one gets this sentence rather than the node's refusal.
 */
async function ensureFeeFunds (rpc: ReturnType<typeof createSolanaRpc>, wallet: Address): Promise<void> {
  let lamports: bigint
  try {
    lamports = (await rpc.getBalance(wallet).send()).value
  } catch {
    return // unreachable RPC: registerAgent reports it
  }
  if (lamports >= REGISTRATION_FEE_LAMPORTS) return
  throw new BuyerError('INSUFFICIENT_FUNDS', `the wallet ${wallet} needs SOL to pay the registration fee: it holds ${formatSol(lamports)} SOL, ` +
    `the fee is ${formatSol(REGISTRATION_FEE_LAMPORTS)} SOL (${REGISTRATION_FEE_LAMPORTS} lamports); fund it (devnet: solana airdrop 1 ${wallet} --url devnet) and run register again; nothing was sent`,
  { lamports: lamports.toString(), neededLamports: REGISTRATION_FEE_LAMPORTS.toString() })
}

function formatSol (lamports: bigint): string {
  return (Number(lamports) / 1e9).toFixed(9).replace(/\.?0+$/, '')
}

const register: Command = async (args, progress) => {
  const signer = await signerFrom(args.keypair)
  const registryAddress = args.registry ?? DEFAULT_REGISTRY_ADDRESS
  const rpcUrl = args.rpc === undefined ? DEFAULT_REGISTRATION_RPC : httpUrl(args.rpc, '--rpc')
  const rpc = createSolanaRpc(rpcUrl)
  await ensureFeeFunds(rpc, signer.address)
  progress(`registering "${args.name}" → ${args.manifest} on registry ${registryAddress} from ${signer.address} via ${rpcUrl}`)
  const signature = await registerAgent({
    rpc,
    signer,
    registryAddress,
    name: args.name,
    manifestUrl: args.manifest
  })
  const result = { signature, wallet: signer.address, name: args.name, manifest: args.manifest, registry: registryAddress, rpc: rpcUrl }
  progress(`merchants read the chain again every REGISTRY_REFRESH_SECONDS (30 s by default): \`token-merchant registry <merchant url>\` may take that long to list "${args.name}"`)
  return { result, text: `registered "${args.name}": signature ${signature}` }
}

const keygen: Command = async (args) => {
  const path = resolve(args.file)
  let address: string
  try {
    address = writeKeypairFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') throw new UsageError(`${path} exists; keygen never overwrites a keypair file`)
    throw new UsageError(`cannot write ${path} (${code ?? (error as Error).message})`)
  }
  return { result: { path, address }, text: `wrote ${path} (mode 0600)\naddress ${address}` }
}

/** The service's own configuration check; loaded only when asked, so buyers never load the service. */
const checkConfig: Command = async (args) => {
  const { checkConfig: check, formatConfigCheck } = await import('../../check-config.js')
  const report = await check({ offline: args.offline === 'true' })
  return { result: report, text: formatConfigCheck(report), ...(report.ok ? {} : { exitCode: EXIT.USAGE }) }
}

/** The paying MCP bridge on stdio; its log lines go to stderr whatever --json says, stdout is the protocol. */
const mcp: Command = async (args) => {
  const { bridgeOptions } = await import('../mcp-bridge/options.js')
  const { runBridge } = await import('../mcp-bridge/run-bridge.js')
  await runBridge(bridgeOptions(args), line => { process.stderr.write(`${line}\n`) })
  return { result: null, text: '', quiet: true }
}

export const HANDLERS: Record<CommandName, Command> = { registry, manifest, reputation, buy: buyCommand, mcp, register, keygen, 'check-config': checkConfig }
