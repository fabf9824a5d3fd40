import { Type, type Static } from '@sinclair/typebox'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { existsSync } from 'node:fs'
import { isIP } from 'node:net'
import { address, isAddress, type Address } from '@solana/kit'
import { NETWORK_NAMES, NETWORKS, type NetworkName } from './lib/solana/networks.js'
import { resolveMerchantAddress } from './lib/solana/keypair-file.js'
import { DEFAULT_MERCHANT_KEYPAIR_PATH, inspectKeypairFile, isDefaultKeypairPath } from './lib/solana/keypair-policy.js'
import { parseOriginList } from './lib/http/origin-policy.js'
import { defaultX402Network, X402_NETWORK_NAMES, type X402NetworkName } from './lib/x402/networks.js'
import { isPostgresUrl } from './db/database-url.js'
import { leaseProblem, paidRequestPhases, resolveCloseGrace, type PaidRequestTimeouts } from './lib/ops/shutdown-grace.js'
import { CATALOGUE } from './lib/catalogue/catalogue.js'

/**
 * The registry everyone on the defaults shares: a program-derived address of the memo program
 * from the seed "token-merchant/registry/v1". Nobody holds its key, so nobody speaks for it
 * (test/config.test.ts derives it again).
 */
export const DEFAULT_REGISTRY_ADDRESS = 'DuENzGwryL5Am1JhNSXNEsP26QkGnSLjg5NuA9G4MAgU'
export const REGISTRY_SEED = 'token-merchant/registry/v1'

const Int = (min: number, max: number, def: number, description: string) =>
  Type.Integer({ minimum: min, maximum: max, default: def, description })
const Base58Address = (description: string) => Type.String({ format: 'solana-address', description })
const HttpUrl = (description: string) => Type.String({ format: 'http-url', description })

/** Every environment variable the service reads, with its default. Validated once, at start-up. */
export const ConfigSchema = Type.Object({
  PORT: Int(0, 65535, 3000, 'TCP port to listen on (0 picks a free one)'),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0', description: 'interface to listen on' }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map(l => Type.Literal(l)), { default: 'info' }),
  AGENT_NAME: Type.String({ minLength: 1, maxLength: 64, default: 'token-merchant' }),
  AGENT_DESCRIPTION: Type.String({
    minLength: 1,
    maxLength: 500,
    default: 'Solana token prices and token security analysis, sold per request over x402.'
  }),
  SOLANA_NETWORK: Type.Union(NETWORK_NAMES.map(n => Type.Literal(n)), { default: 'devnet' }),
  SOLANA_RPC_URL: Type.Optional(HttpUrl('JSON-RPC endpoint; defaults to the public endpoint of the network')),
  DATA_NETWORK: Type.Optional(Type.Union(NETWORK_NAMES.map(n => Type.Literal(n)), {
    description: 'cluster token data is read from; mainnet-beta when SOLANA_NETWORK is a public cluster, localnet when it is localnet'
  })),
  DATA_RPC_URL: Type.Optional(HttpUrl('JSON-RPC endpoint of DATA_NETWORK; SOLANA_RPC_URL when both networks are the same, else its public endpoint')),
  PAYMENT_MINT: Type.Optional(Base58Address('mint of the 6-decimal payment token; defaults to USDC of the network')),
  PAYMENT_TOKEN_SYMBOL: Type.String({ minLength: 1, maxLength: 16, default: 'USDC' }),
  PAYMENT_ADDRESS: Type.Optional(Base58Address('wallet that receives payments')),
  MERCHANT_KEYPAIR_PATH: Type.String({ minLength: 1, default: DEFAULT_MERCHANT_KEYPAIR_PATH }),
  CREATE_KEYPAIR: Type.Boolean({
    default: false,
    description: 'create a missing MERCHANT_KEYPAIR_PATH on start even when it is not the default path (which is always created when missing)'
  }),
  DATABASE_PATH: Type.String({ minLength: 1, default: './data/merchant.db' }),
  DATABASE_URL: Type.Optional(Type.String({
    format: 'postgres-url',
    description: 'postgres://user:password@host:port/database: PostgreSQL stores everything (shared by several instances); unset: the SQLite file at DATABASE_PATH'
  })),
  DATABASE_CONNECT_TIMEOUT_SECONDS: Int(0, 31_536_000, 0, 'how long start-up waits for an unreachable PostgreSQL before exiting 1; 0 waits as long as it takes'),
  DATABASE_POOL_SIZE: Int(2, 1000, 10, 'PostgreSQL connections per process, plus a quarter as many for claims'),
  SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('NORMAL'), Type.Literal('FULL')], {
    default: 'NORMAL',
    description: 'NORMAL survives a process crash; FULL also survives power loss, at a cost per write'
  }),
  PUBLIC_BASE_URL: Type.Optional(HttpUrl('base of the absolute URLs the service prints')),
  REGISTRY_ADDRESS: Base58Address('registry coordination address'),
  TRUST_PROXY: Type.String({
    format: 'trust-proxy',
    default: 'false',
    description: 'which X-Forwarded-* hops to trust: false, a hop count (1 = one proxy in front), or proxy addresses/CIDRs, comma-separated'
  }),
  RATE_LIMIT_MAX: Int(0, 1_000_000, 300, 'requests per window and client (health probes are not counted); 0 turns rate limiting off'),
  RATE_LIMIT_WINDOW_MS: Int(1000, 86_400_000, 60_000, 'rate limit window'),
  REQUIRE_WALLET_SIGNATURE: Type.Boolean({ default: false, description: 'refuse pay-then-prove proofs without x-payment-wallet-signature (binds a proof to its request)' }),
  PROOF_FAILURE_LIMIT: Int(0, 1_000_000, 20, 'failed payment proofs per client and rate-limit window before 429; 0 turns it off'),
  BODY_LIMIT_BYTES: Int(1024, 10_485_760, 16_384, 'largest accepted request body'),
  RPC_TIMEOUT_MS: Int(100, 120_000, 10_000, 'timeout of one RPC request'),
  DATA_RPC_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000, description: 'timeout of one request to the data RPC; RPC_TIMEOUT_MS when unset' })),
  PAYMENT_COMMITMENT: Type.Union([Type.Literal('confirmed'), Type.Literal('finalized')], { default: 'confirmed' }),
  PAYMENT_MAX_AGE_SECONDS: Int(10, 31_536_000, 900, 'oldest payment accepted, by blockTime'),
  PAYMENT_LEASE_SECONDS: Int(5, 3600, 90, 'how long a claimed payment stays reserved for one request without renewal; at least the handler and settlement timeouts'),
  PAYMENT_NOT_FOUND_WAIT_MS: Int(0, 30_000, 0, 'how long to wait for a just-sent transaction to appear'),
  AUDIT_RETENTION_DAYS: Int(1, 3650, 90, 'audit rows older than this are deleted'),
  DELIVERY_RETENTION_SECONDS: Int(0, 604_800, 3600, 'how long a paid answer is kept for re-delivery to the same payment (0: not kept)'),
  REDELIVERY: Type.Union([Type.Literal('payment'), Type.Literal('buyer-only')], {
    default: 'payment',
    description: 'who may fetch an answer that did not reach its buyer: anyone bringing the same payment, or only the buyer (same payment-identifier, or a wallet signature)'
  }),
  PRICE_API_URL: HttpUrl('price aggregator base URL'),
  PRICE_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'Jupiter API key (x-api-key)' })),
  PRICE_CACHE_TTL_MS: Int(0, 3_600_000, 10_000, 'how long a price is reused'),
  TOKEN_CACHE_TTL_MS: Int(0, 604_800_000, 21_600_000, 'how long a symbol-to-mint answer is reused'),
  UPSTREAM_TIMEOUT_MS: Int(100, 60_000, 5000, 'timeout of one upstream HTTP call'),
  ANALYSIS_CACHE_TTL_MS: Int(0, 3_600_000, 15_000, 'how long a token analysis is reused'),
  REGISTRY_REFRESH_SECONDS: Int(1, 86_400, 30, 'age after which /registry reads the chain again'),
  REGISTRY_MAX_PAGES: Int(1, 100_000, 100, 'getSignaturesForAddress pages (1,000 signatures each) one registry read may walk; the next read resumes'),
  REGISTRY_BATCH_SIZE: Int(1, 1000, 100, 'getTransaction calls per JSON-RPC batch request of a registry read; 1 sends single requests'),
  X402_NETWORK: Type.Optional(Type.Union(X402_NETWORK_NAMES.map(n => Type.Literal(n)), {
    description: 'x402 network advertised (v1 name; v2 uses its CAIP-2 id); derived from SOLANA_NETWORK. On a local chain set solana-devnet: official clients know only the public clusters'
  })),
  RECEIPT_KEYPAIR_PATH: Type.Optional(Type.String({ minLength: 1, description: 'keypair file (solana-keygen JSON, mode 0600) that signs offers, receipts and the reputation, published at /.well-known/did.json; never the money key. receipt-keypair.json next to MERCHANT_KEYPAIR_PATH when unset, created when absent' })),
  RECEIPT_RETIRED_KEYS: Type.Optional(Type.String({ description: 'comma-separated base58 public keys of receipt keys rotated out: still listed in the DID document so the receipts they signed stay verifiable' })),
  X402_FEE_PAYER_KEYPAIR_PATH: Type.Optional(Type.String({ minLength: 1, description: 'keypair file (solana-keygen JSON, mode 0600) that co-signs x402 payments and pays their fees; MERCHANT_KEYPAIR_PATH when unset' })),
  X402_SHARED_FEE_PAYER: Type.Boolean({ default: false, description: 'accept under NODE_ENV=production a fee payer that is also the wallet paid (payTo): one key then both holds the revenue and signs every x402 transaction' }),
  X402_MAX_PRIORITY_FEE_LAMPORTS: Int(0, 1_000_000, 1_000, 'the most priority fee (compute unit limit × price) the fee payer pays for one x402 payment; a payload asking more is refused'),
  X402_PAYER_FAILURE_LIMIT: Int(0, 1000, 2, 'failed x402 settlements (failed on chain or refused at send) a paying wallet may cause per X402_PAYER_FAILURE_WINDOW_SECONDS before it is refused with 429 PAYER_BLOCKED; 0 turns it off'),
  X402_PAYER_FAILURE_WINDOW_SECONDS: Int(1, 86_400, 3600, 'the window of X402_PAYER_FAILURE_LIMIT'),
  X402_FEE_PAYER_MIN_LAMPORTS: Int(0, Number.MAX_SAFE_INTEGER, 10_000_000, 'fee payer balance below which a warning is logged and /health/ready shows fee_payer "low"'),
  X402_SETTLEMENT_TIMEOUT_MS: Int(100, 120_000, 30_000, 'how long an x402 settlement waits for confirmation before answering 503 pending'),
  CLOSE_GRACE_MS: Type.Optional(Type.Integer({
    minimum: 100,
    maximum: 600_000,
    description: 'time in-flight requests get to finish on shutdown; derived from the timeouts when unset, refused when shorter than the longest paid request'
  })),
  LOG_FILE: Type.Optional(Type.String({ minLength: 1, description: 'write logs to this file (asynchronously, reopened on SIGUSR2) instead of stdout' })),
  METRICS_ENABLED: Type.Boolean({ default: false, description: 'serve Prometheus metrics at /metrics' }),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'serve /metrics on this port (on METRICS_HOST) instead of the main one' })),
  METRICS_HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'interface of METRICS_PORT' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'bearer token /metrics requires' })),
  PAYWALL: Type.Boolean({ default: true, description: 'answer a browser\'s navigation to a paid route (Accept ranks text/html first) with the payment page instead of the JSON 402; false turns the page, its assets and POST /api/x402/prepare off' }),
  PAYWALL_PREPARE_MAX: Int(1, 10_000, 30, 'payment preparations (POST /api/x402/prepare, two RPC reads each) per client and RATE_LIMIT_WINDOW_MS'),
  MPP_CHARGE: Type.Boolean({ default: true, description: 'offer MPP\'s Solana charge (WWW-Authenticate: Payment, pull and push) beside x402 on every paid route, and take its credentials (Authorization: Payment); false removes it everywhere' }),
  MPP_SECRET_KEY: Type.Optional(Type.String({ minLength: 32, description: 'HMAC key binding MPP challenges to their contents; unset: made at first start and kept in the store, so every instance sharing the store agrees' })),
  REFUNDS: Type.Boolean({ default: false, description: 'refund payments that were never delivered (POST /api/refunds, advertised in the 402 as extensions.refund); the merchant keypair (MERCHANT_KEYPAIR_PATH) must be PAYMENT_ADDRESS\'s key, which signs the refunds' }),
  REFUND_WINDOW_SECONDS: Int(60, 90 * 86_400, 86_400, 'how long after a payment landed its refund may be asked for'),
  REFUND_REQUEST_MAX: Int(1, 10_000, 10, 'refund requests per client and RATE_LIMIT_WINDOW_MS (each checked one costs a getTransaction)'),
  MCP_DIRECT_CALLS: Type.Boolean({ default: true, description: 'answer a single tools/call POST to /mcp in the merchant\'s own code instead of the MCP SDK\'s transport (the same answer, faster); false sends every message through the SDK' }),
  MCP_ALLOWED_ORIGINS: Type.String({
    format: 'origin-list',
    default: '',
    description: 'browser origins allowed on /mcp besides loopback and PUBLIC_BASE_URL\'s: comma-separated http(s) origins, or * for any'
  })
}, { additionalProperties: true })

const DEFAULTS = { REGISTRY_ADDRESS: DEFAULT_REGISTRY_ADDRESS, PRICE_API_URL: 'https://lite-api.jup.ag' }

export type EnvConfig = Static<typeof ConfigSchema>

/** Validated configuration, with the values that defaults and the keypair file decide filled in. */
export type Config = EnvConfig & {
  network: NetworkName
  rpcUrl: string
  /** Cluster, endpoint and timeout of the RPC token data is read from (DATA_*), resolved. */
  dataNetwork: NetworkName
  dataRpcUrl: string
  dataRpcTimeoutMs: number
  paymentMint: Address
  paymentAddress: Address
  /** TRUST_PROXY as Fastify takes it. */
  trustProxy: false | number | string
  /** Set when start-up wrote a new merchant keypair file. */
  merchantKeypairCreated: boolean
  /** The merchant keypair file still to be created (by the x402 plugin: it is only the default fee payer). */
  keypairToCreate: string | undefined
  /** Problems not worth refusing to start for (a keypair others can read, outside production): logged at start. */
  warnings: string[]
  /** The x402 network advertised (v1 name), X402_NETWORK or derived from SOLANA_NETWORK. */
  x402Network: X402NetworkName
  /** The x402 fee payer's keypair file. */
  feePayerKeypairPath: string
  /** CLOSE_GRACE_MS, or the grace derived from the timeouts when it is unset. */
  closeGraceMs: number
  /** METRICS_PORT plus this worker's PM2 instance number. */
  metricsPort: number | undefined
  /** PM2's NODE_APP_INSTANCE: which worker this is, when several run. */
  workerInstance: string | undefined
}

/** Thrown with one line per problem; server.ts prints them and exits 1. */
export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map(p => `  ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

function isHttpUrl (value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** TRUST_PROXY: `false`, a hop count, or proxy addresses and CIDRs. Never `true`: trusting every hop lets anyone choose their address. */
function trustProxySetting (value: string): false | number | string | undefined {
  if (value === 'false') return false
  if (/^\d{1,2}$/.test(value)) return Number(value)
  const entries = value.split(',').map(entry => entry.trim())
  const valid = entries.every(entry => {
    const [ip, bits, ...rest] = entry.split('/')
    const family = isIP(ip)
    return family !== 0 && rest.length === 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)))
  })
  return valid ? entries.join(',') : undefined
}

FormatRegistry.Set('solana-address', isAddress)
FormatRegistry.Set('trust-proxy', value => trustProxySetting(value) !== undefined)
FormatRegistry.Set('http-url', isHttpUrl)
FormatRegistry.Set('postgres-url', isPostgresUrl)
FormatRegistry.Set('origin-list', value => parseOriginList(value) !== undefined)

const FORMAT_PROBLEMS: Record<string, string> = {
  'solana-address': 'is not a base58-encoded 32-byte Solana address',
  'http-url': 'is not an absolute http(s) URL',
  'postgres-url': 'is not a postgres:// or postgresql:// URL with a host',
  'origin-list': 'is not * or a comma-separated list of http(s) origins (scheme://host[:port], no path)',
  'trust-proxy': 'is not false, a hop count (1 for one proxy) or a list of proxy addresses/CIDRs (true would trust any client)'
}

/** One readable line for the first error of a variable. */
function describe (key: string, value: unknown): string {
  const schema = ConfigSchema.properties[key as keyof EnvConfig] as { format?: string, anyOf?: Array<{ const: string }>, minimum?: number, maximum?: number, type?: string }
  // A connection string may carry a password: never echoed.
  const got = key === 'DATABASE_URL' ? 'the value' : JSON.stringify(value)
  if (schema.anyOf !== undefined) return `${key}: ${got} is not one of ${schema.anyOf.map(s => s.const).join(', ')}`
  if (schema.format !== undefined) return `${key}: ${got} ${FORMAT_PROBLEMS[schema.format]}`
  if (schema.type === 'integer') return `${key}: ${got} is not a whole number from ${schema.minimum} to ${schema.maximum}`
  if (schema.type === 'boolean') return `${key}: ${got} is not true or false`
  return `${key}: ${got} is not a valid value`
}

type DataRpc = Pick<Config, 'dataNetwork' | 'dataRpcUrl' | 'dataRpcTimeoutMs'>

/**
 * Where token data comes from. Public clusters default to mainnet-beta, where the tokens that have
 * prices live; a local setup stays local. The same cluster without its own URL reuses the payment
 * endpoint, so one node serves both roles.
 */
function resolveDataRpc (envConfig: EnvConfig, network: NetworkName, rpcUrl: string | undefined): DataRpc | { problem?: string } {
  const dataNetwork = (envConfig.DATA_NETWORK ?? (network === 'localnet' ? 'localnet' : 'mainnet-beta')) as NetworkName
  // An unknown name was reported by validation already.
  const facts = NETWORKS[dataNetwork]
  if (facts === undefined) return {}
  const dataRpcUrl = envConfig.DATA_RPC_URL ?? (dataNetwork === network ? rpcUrl : facts.rpcUrl)
  if (dataRpcUrl === undefined) {
    // On the payment cluster, the missing SOLANA_RPC_URL is the problem, and it is reported already.
    return dataNetwork === network ? {} : { problem: `DATA_RPC_URL: required when DATA_NETWORK is ${dataNetwork}` }
  }
  return { dataNetwork, dataRpcUrl, dataRpcTimeoutMs: envConfig.DATA_RPC_TIMEOUT_MS ?? envConfig.RPC_TIMEOUT_MS }
}

/** /metrics is never public by default: on its own listener (METRICS_PORT), or behind METRICS_TOKEN. */
function metricsProblems (envConfig: EnvConfig): string[] {
  if (!envConfig.METRICS_ENABLED) {
    return envConfig.METRICS_PORT === undefined && envConfig.METRICS_TOKEN === undefined ? [] : ['METRICS_ENABLED: METRICS_PORT or METRICS_TOKEN is set, but METRICS_ENABLED is not true']
  }
  if (envConfig.METRICS_PORT === undefined && envConfig.METRICS_TOKEN === undefined) {
    return ['METRICS_ENABLED: set METRICS_PORT (a listener of its own, on METRICS_HOST) or METRICS_TOKEN (on the main port, for bearers of the token), so metrics are not public']
  }
  return []
}

/**
 * The metrics port of this process: under PM2 each worker (NODE_APP_INSTANCE 0, 1, …) listens on
 * METRICS_PORT plus its number, so every worker can be scraped on its own.
 */
function metricsPortOf (envConfig: EnvConfig, env: NodeJS.ProcessEnv): number | undefined {
  if (envConfig.METRICS_PORT === undefined || envConfig.METRICS_PORT === 0) return envConfig.METRICS_PORT
  const instance = Number(env.NODE_APP_INSTANCE ?? 0)
  return envConfig.METRICS_PORT + (Number.isInteger(instance) && instance >= 0 ? instance : 0)
}

/** The configured timeouts that bound a paid request (lib/ops/shutdown-grace.ts). */
export function paidRequestTimeouts (config: Pick<EnvConfig, 'RPC_TIMEOUT_MS' | 'PAYMENT_NOT_FOUND_WAIT_MS' | 'UPSTREAM_TIMEOUT_MS' | 'X402_SETTLEMENT_TIMEOUT_MS'> & Pick<DataRpc, 'dataRpcTimeoutMs'>): PaidRequestTimeouts {
  return {
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    notFoundWaitMs: config.PAYMENT_NOT_FOUND_WAIT_MS,
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    dataRpcTimeoutMs: config.dataRpcTimeoutMs,
    settlementTimeoutMs: config.X402_SETTLEMENT_TIMEOUT_MS
  }
}

// The service sells the built-in catalogue (server.ts gives the app CATALOGUE): the close grace is
// derived and checked from its products. An app given another catalogue checks that one again
// before it starts (plugins/app/catalogue.ts).
function phasesOf (envConfig: EnvConfig, data: DataRpc) {
  return paidRequestPhases(paidRequestTimeouts({ ...envConfig, ...data }), CATALOGUE.products)
}

/**
 * The configuration as start-up would run it, checked without writing anything: `keypairToCreate`
 * names the merchant keypair file start-up would create, and `paymentAddress` is unknown until it
 * is. check-config prints this; loadConfig completes it.
 */
export type ConfigPlan = Omit<Config, 'paymentAddress' | 'merchantKeypairCreated'> & {
  paymentAddress: Address | undefined
}

/** Reads environment variables (empty strings count as unset) and validates them, keypair files included; creates nothing. */
export function inspectConfig (env: NodeJS.ProcessEnv = process.env): ConfigPlan {
  const raw: Record<string, unknown> = { ...DEFAULTS }
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw)) as Record<string, unknown>
  const badKeys = new Set([...Value.Errors(ConfigSchema, converted)].map(e => e.path.split('/')[1]))
  const problems = [...badKeys].map(key => describe(key, converted[key]))
  const envConfig = converted as EnvConfig

  const network = envConfig.SOLANA_NETWORK as NetworkName
  const facts = NETWORKS[network]
  const rpcUrl = envConfig.SOLANA_RPC_URL ?? facts?.rpcUrl
  if (facts !== undefined && rpcUrl === undefined) {
    problems.push(`SOLANA_RPC_URL: required when SOLANA_NETWORK is ${network}`)
  }
  const data = resolveDataRpc(envConfig, network, rpcUrl)
  if ('problem' in data && data.problem !== undefined) problems.push(data.problem)
  const phases = problems.length > 0 ? undefined : phasesOf(envConfig, data as DataRpc)
  // The shutdown grace: CLOSE_GRACE_MS when it covers the longest paid request, derived from the timeouts when unset.
  const grace = phases === undefined ? { ms: 0 } : resolveCloseGrace(envConfig.CLOSE_GRACE_MS, phases)
  if ('problem' in grace) problems.push(grace.problem)
  const lease = phases === undefined ? undefined : leaseProblem(envConfig.PAYMENT_LEASE_SECONDS, phases)
  if (lease !== undefined) problems.push(lease)
  problems.push(...metricsProblems(envConfig))
  if (problems.length > 0) throw new ConfigError(problems)

  const keypairs = inspectKeypairs(envConfig, env.NODE_ENV === 'production')
  if (keypairs.problems.length > 0) throw new ConfigError(keypairs.problems)

  return {
    ...envConfig,
    network,
    rpcUrl: rpcUrl as string,
    ...(data as DataRpc),
    // Both passed the solana-address format check (or came from a keypair file): brand them once.
    paymentMint: address(envConfig.PAYMENT_MINT ?? facts.usdcMint),
    paymentAddress: keypairs.paymentAddress,
    keypairToCreate: keypairs.toCreate,
    warnings: keypairs.warnings,
    x402Network: (envConfig.X402_NETWORK ?? defaultX402Network(network)) as X402NetworkName,
    feePayerKeypairPath: envConfig.X402_FEE_PAYER_KEYPAIR_PATH ?? envConfig.MERCHANT_KEYPAIR_PATH,
    closeGraceMs: (grace as { ms: number }).ms,
    metricsPort: metricsPortOf(envConfig, env),
    workerInstance: env.NODE_APP_INSTANCE,
    trustProxy: trustProxySetting(envConfig.TRUST_PROXY) as false | number | string
  }
}

/**
 * The merchant keypair (the payment address when PAYMENT_ADDRESS is unset, and the default fee
 * payer) and a separate fee payer keypair: valid, private, and missing only where start-up may
 * create one (the default path, or CREATE_KEYPAIR). A fee payer of its own is never created.
 */
function inspectKeypairs (envConfig: EnvConfig, production: boolean) {
  const merchantPath = envConfig.MERCHANT_KEYPAIR_PATH
  const feePayerPath = envConfig.X402_FEE_PAYER_KEYPAIR_PATH
  const problems: string[] = []
  const warnings: string[] = []
  let paymentAddress = envConfig.PAYMENT_ADDRESS === undefined ? undefined : address(envConfig.PAYMENT_ADDRESS)
  let toCreate: string | undefined
  // The merchant keypair's address, or 'to-create' when start-up makes it.
  let merchantAddress: string | undefined
  const merchantNeeded = paymentAddress === undefined || feePayerPath === undefined || feePayerPath === merchantPath
  if (merchantNeeded) {
    const merchant = inspectKeypairFile(merchantPath, {
      variable: 'MERCHANT_KEYPAIR_PATH',
      mayCreate: isDefaultKeypairPath(merchantPath) || envConfig.CREATE_KEYPAIR,
      strictMode: production
    })
    if (merchant.state === 'problem') problems.push(merchant.problem)
    else if (merchant.state === 'to-create') {
      toCreate = merchantPath
      merchantAddress = 'to-create'
    } else {
      merchantAddress = merchant.address
      paymentAddress ??= merchant.address
      if (merchant.warning !== undefined) warnings.push(merchant.warning)
    }
  }
  let feePayerAddress = feePayerPath === undefined || feePayerPath === merchantPath ? merchantAddress : undefined
  if (feePayerPath !== undefined && feePayerPath !== merchantPath) {
    const feePayer = inspectKeypairFile(feePayerPath, { variable: 'X402_FEE_PAYER_KEYPAIR_PATH', mayCreate: false, strictMode: production })
    if (feePayer.state === 'problem') problems.push(feePayer.problem)
    else if (feePayer.state === 'exists') {
      feePayerAddress = feePayer.address
      if (feePayer.warning !== undefined) warnings.push(feePayer.warning)
    }
  }
  // The key that signs every x402 transaction (and is read from disk by every worker) should not
  // also be the one that holds the revenue: in production that takes a deliberate opt-in.
  const shared = feePayerAddress !== undefined && (feePayerAddress === paymentAddress || (feePayerAddress === 'to-create' && paymentAddress === undefined))
  if (production && shared && !envConfig.X402_SHARED_FEE_PAYER) {
    problems.push('X402_FEE_PAYER_KEYPAIR_PATH: the fee payer would be the wallet paid (payTo), so the key that co-signs every x402 transaction also holds the revenue; ' +
      'under NODE_ENV=production give the fee payer a SOL-only key of its own (token-merchant keygen <file>, funded with a little SOL), set PAYMENT_ADDRESS to another wallet, or set X402_SHARED_FEE_PAYER=true')
  }
  return { problems, warnings, paymentAddress, toCreate }
}

/**
 * What the service runs with: .env in the working directory when present (variables already set
 * win), then the environment, validated. server.ts and `token-merchant check-config` both read it here.
 */
export function planFromEnvironment (env: NodeJS.ProcessEnv = process.env): ConfigPlan {
  if (existsSync('.env')) process.loadEnvFile('.env')
  return inspectConfig(env)
}

/** The validated configuration, with the merchant keypair created when the rules allow it (inspectConfig). */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  return completeConfig(inspectConfig(env))
}

/**
 * Creates the merchant keypair a plan calls for when it is the payment address; workers starting
 * together agree on one file. When it serves only as the default fee payer, the x402 plugin
 * creates it (`keypairToCreate` stays set), so loading a configuration alone writes nothing then.
 */
export function completeConfig (plan: ConfigPlan): Config {
  if (plan.keypairToCreate === undefined || plan.paymentAddress !== undefined) return { ...plan, paymentAddress: plan.paymentAddress as Address, merchantKeypairCreated: false }
  try {
    const resolved = resolveMerchantAddress(plan.keypairToCreate)
    return { ...plan, paymentAddress: resolved.address, merchantKeypairCreated: resolved.created, keypairToCreate: undefined }
  } catch (error) {
    throw new ConfigError([`MERCHANT_KEYPAIR_PATH: ${(error as Error).message}`])
  }
}
