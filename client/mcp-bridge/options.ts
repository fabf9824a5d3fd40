import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseHttpUrl } from '../http.js'
import { UsageError } from '../cli/exit-codes.js'

/** The bridge's settings, each a flag or a TOKEN_MERCHANT_MCP_* variable (a host config is then one entry). */
export interface BridgeOptions {
  /** The merchant's manifest (or its origin), or its MCP endpoint directly. */
  merchant: string
  /** The buyer's keypair file; not needed for a dry run. */
  keypair?: string
  /** Most a single call may cost, in base units; no limit when absent. */
  maxPrice?: bigint
  /** Most all calls of a UTC day may cost together, in base units; no limit when absent. */
  budget?: bigint
  /** Where payments and the day's spending are kept (it survives restarts). */
  ledger: string
  /** Price calls, pay nothing. */
  dryRun: boolean
  /** RPC for building payments; default: the public endpoint of the cluster the requirements name. */
  rpc?: string
}

export const BRIDGE_FLAGS = ['merchant', 'keypair', 'max-price', 'budget', 'ledger', 'dry-run', 'rpc'] as const

/** TOKEN_MERCHANT_MCP_MAX_PRICE for --max-price, and so on. */
export const envName = (flag: string) => `TOKEN_MERCHANT_MCP_${flag.toUpperCase().replaceAll('-', '_')}`

export const DEFAULT_LEDGER = join(homedir(), '.token-merchant', 'mcp-ledger.json')

function baseUnits (value: string, flag: string): bigint {
  if (!/^\d{1,30}$/.test(value)) throw new UsageError(`--${flag} (${envName(flag)}) must be a whole number of base units, got "${value}"`)
  return BigInt(value)
}

function httpUrl (value: string, flag: string): string {
  try {
    return parseHttpUrl(value).href
  } catch {
    throw new UsageError(`--${flag} (${envName(flag)}) must be an absolute http(s) URL, got "${value}"`)
  }
}

/** Flags over environment variables; a missing merchant (or keypair, unless a dry run) is a usage error naming both spellings. */
export function bridgeOptions (flags: Record<string, string>, env: NodeJS.ProcessEnv = process.env): BridgeOptions {
  const value = (flag: typeof BRIDGE_FLAGS[number]) => flags[flag] ?? (env[envName(flag)] === '' ? undefined : env[envName(flag)])
  const required = (flag: 'merchant' | 'keypair') => {
    const given = value(flag)
    if (given === undefined) throw new UsageError(`mcp needs --${flag} (or ${envName(flag)})`)
    return given
  }
  const maxPrice = value('max-price')
  const budget = value('budget')
  const rpc = value('rpc')
  const dryRun = value('dry-run')
  if (dryRun !== undefined && !['true', 'false', '1', '0'].includes(dryRun)) throw new UsageError(`${envName('dry-run')} must be true or false, got "${dryRun}"`)
  const dry = dryRun === 'true' || dryRun === '1'
  return {
    merchant: httpUrl(required('merchant'), 'merchant'),
    // A dry run pays nothing, so it signs nothing: it prices the calls before any wallet exists.
    keypair: dry ? value('keypair') : required('keypair'),
    maxPrice: maxPrice === undefined ? undefined : baseUnits(maxPrice, 'max-price'),
    budget: budget === undefined ? undefined : baseUnits(budget, 'budget'),
    ledger: value('ledger') ?? DEFAULT_LEDGER,
    dryRun: dry,
    rpc: rpc === undefined ? undefined : httpUrl(rpc, 'rpc')
  }
}
