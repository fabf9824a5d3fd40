// What every bench section shares: the local chain (own process), the price API stand-in, a funded
// x402 fee payer, a scratch folder, and a way to start the built service against them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit'
import { request } from 'undici'
import { startPriceApi, type PriceApi } from '@token-merchant/localnet/price-api'
import { generateKeypairBytes, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { startChain, type BenchChain } from './chain.js'
import { startService, type BenchProcess } from './processes.js'

const FEE_PAYER_LAMPORTS = 100_000_000_000

export interface BenchWorld {
  chain: BenchChain
  priceApi: PriceApi
  scratch: string
  /** The x402 fee payer every service start co-signs with (funded on the chain). */
  feePayer: KeyPairSigner
  /** What the service needs to reach the chain and the price API (the logging bench starts its own). */
  env: Record<string, string>
  startService: (database: string, overrides?: Record<string, string>) => Promise<BenchProcess>
  /** Stops the chain and the price API; the scratch folder is removed unless `keep`. */
  stop: (keep: boolean) => Promise<void>
}

export async function startBenchWorld (logLevel: string): Promise<BenchWorld> {
  const scratch = mkdtempSync(join(tmpdir(), 'token-merchant-bench-'))
  const chain = await startChain()
  const priceApi = await startPriceApi()
  // The standard x402 flow needs a funded fee payer, and a network official clients know.
  const feePayerBytes = generateKeypairBytes()
  const feePayerPath = join(scratch, 'fee-payer.json')
  writeKeypairFile(feePayerPath, feePayerBytes)
  const feePayer = await createKeyPairSignerFromBytes(feePayerBytes)
  await request(chain.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [feePayer.address, FEE_PAYER_LAMPORTS] })
  }).then(async response => await response.body.dump())
  const env = {
    SOLANA_RPC_URL: chain.url,
    PAYMENT_MINT: chain.mint,
    PAYMENT_ADDRESS: chain.merchant,
    PRICE_API_URL: priceApi.url,
    X402_NETWORK: 'solana-devnet',
    X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath,
    // The bench is one client at thousands of calls a minute: the per-client limits would measure themselves.
    RATE_LIMIT_MAX: '0',
    PROOF_FAILURE_LIMIT: '0'
  }
  return {
    chain,
    priceApi,
    scratch,
    feePayer,
    env,
    startService: async (database, overrides = {}) => await startService({
      ...env,
      LOG_LEVEL: logLevel,
      SOLANA_NETWORK: 'localnet',
      DATABASE_PATH: join(scratch, database),
      PRICE_CACHE_TTL_MS: '3600000',
      REGISTRY_REFRESH_SECONDS: '86400',
      ...overrides
    }, scratch, join(scratch, `${database}.log`)),
    async stop (keep) {
      await priceApi.stop()
      await chain.stop()
      if (keep) process.stderr.write(`logs and databases kept in ${scratch}\n`)
      else rmSync(scratch, { recursive: true, force: true })
    }
  }
}
