import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { address, type Address, type KeyPairSigner } from '@solana/kit'
import { loadKeypairSigner } from '../lib/solana/keypair-file.js'
import { startLocalnet, type Localnet } from '@token-merchant/localnet'
import { startPriceApi, type PriceApi } from '@token-merchant/localnet/price-api'
import { writeKeypairFile } from '../lib/solana/keypair-file.js'
import { startMerchantProcess, type MerchantProcess } from './merchant-process.js'

/** The payment mint sits where devnet USDC lives, with its 6 decimals. */
export const DEVNET_USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
export const USDC_DECIMALS = 6
const MERCHANT_LAMPORTS = 1_000_000_000n

export interface DemoEnvironmentOptions {
  /** Extra environment of the merchant process (wins over the defaults). */
  merchantEnv?: Record<string, string>
  /** The RPC URL the merchant is given, when something should stand between it and the chain. */
  merchantRpcUrl?: (localnetUrl: string) => string | Promise<string>
}

export interface DemoEnvironment {
  net: Localnet
  priceApi: PriceApi
  mint: Address
  merchant: {
    url: string
    process: MerchantProcess
    /** The merchant's wallet (its keypair file is the merchant's own), funded for fees. */
    signer: KeyPairSigner
    /** Its associated token account for the payment mint, created so buyers can pay it. */
    tokenAccount: Address
  }
  /** A new wallet with 10 SOL and `usdc` base units of the payment token. */
  createBuyer (usdc: bigint): Promise<KeyPairSigner>
  /** Stops everything that was started; safe to call more than once. */
  stop (): Promise<void>
}

/**
 * Everything the merchant needs, offline: the local chain with the payment mint at the devnet
 * USDC address, the Jupiter stand-in, and the merchant itself as a real process on
 * SOLANA_NETWORK=localnet (the local chain has its own genesis hash, which a devnet merchant
 * would refuse).
 */
export async function startDemoEnvironment (options: DemoEnvironmentOptions = {}): Promise<DemoEnvironment> {
  const cleanups: Array<() => Promise<unknown>> = []
  let stopped: Promise<void> | undefined
  const stop = async () => {
    stopped ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
    })()
    await stopped
  }
  try {
    // The merchant's database and keypair live here, and go with stop().
    const dir = await mkdtemp(join(tmpdir(), 'token-merchant-demo-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const net = await startLocalnet()
    cleanups.push(() => net.stop())
    const priceApi = await startPriceApi()
    cleanups.push(() => priceApi.stop())

    const mint = await net.createMint({ address: DEVNET_USDC, decimals: USDC_DECIMALS })
    const keypairPath = join(dir, 'merchant-keypair.json')
    writeKeypairFile(keypairPath)
    const signer = await loadKeypairSigner(keypairPath)
    await net.airdrop(signer.address, MERCHANT_LAMPORTS)
    const tokenAccount = await net.createAta(mint, signer.address)

    const merchantProcess = await startMerchantProcess({
      SOLANA_NETWORK: 'localnet',
      SOLANA_RPC_URL: await options.merchantRpcUrl?.(net.url) ?? net.url,
      PAYMENT_MINT: mint,
      PRICE_API_URL: priceApi.url,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'merchant.db'),
      MERCHANT_KEYPAIR_PATH: keypairPath,
      REGISTRY_REFRESH_SECONDS: '1',
      // Official x402 clients know only the public clusters: the local chain poses as devnet (its
      // payment mint sits at the devnet USDC address), as an operator of a local chain would set it.
      X402_NETWORK: 'solana-devnet',
      ...options.merchantEnv
    }, dir)
    cleanups.push(() => merchantProcess.stop())

    return {
      net,
      priceApi,
      mint,
      merchant: { url: merchantProcess.url, process: merchantProcess, signer, tokenAccount },
      async createBuyer (usdc) {
        const buyer = await net.createWallet()
        if (usdc > 0n) await net.mintTo(mint, buyer.address, usdc)
        return buyer
      },
      stop
    }
  } catch (error) {
    await stop()
    throw error
  }
}
