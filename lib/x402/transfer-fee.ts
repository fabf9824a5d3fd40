import { decodeMint, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { Address } from '@solana/kit'
import type { SolanaRpc } from '../solana/rpc-client.js'

const FEE_CONFIG_TTL_MS = 60_000

interface TransferFee { transferFeeBasisPoints: number, maximumFee: bigint }

function feeOf (fee: TransferFee, amount: bigint): bigint {
  const proportional = (amount * BigInt(fee.transferFeeBasisPoints) + 9_999n) / 10_000n
  return proportional < fee.maximumFee ? proportional : fee.maximumFee
}

/**
 * What a Token-2022 payment mint withholds from a transfer (the transfer-fee extension), so an
 * x402 payment is judged by what arrives, as pay-then-prove's balance check judges it. The larger
 * of the mint's older and newer fee is taken (no epoch lookup: a fee about to change never lets
 * less than the price through). The mint is read at most once a minute; a plain SPL mint has no fee.
 */
export function createTransferFeeReader (rpc: SolanaRpc, mint: Address) {
  let cached: { fees: TransferFee[], readAt: number } | undefined

  async function fees (): Promise<TransferFee[]> {
    if (cached !== undefined && Date.now() - cached.readAt < FEE_CONFIG_TTL_MS) return cached.fees
    const { value } = await rpc.getAccountInfo(mint, { encoding: 'base64' }).send()
    let found: TransferFee[] = []
    if (value !== null && value.owner === TOKEN_2022_PROGRAM_ADDRESS) {
      const decoded = decodeMint({ address: mint, ...value, data: Buffer.from(value.data[0], 'base64') } as never)
      const extensions = decoded.data.extensions as { __option: string, value?: Array<Record<string, unknown>> }
      for (const extension of extensions.__option === 'Some' ? extensions.value ?? [] : []) {
        if (extension.__kind === 'TransferFeeConfig') found = [extension.olderTransferFee as TransferFee, extension.newerTransferFee as TransferFee]
      }
    }
    cached = { fees: found, readAt: Date.now() }
    return found
  }

  return {
    /** The most the mint withholds from a transfer of `amount`: 0 for a mint without a transfer fee. */
    async withheld (amount: bigint): Promise<bigint> {
      return (await fees()).reduce((most, fee) => {
        const withheld = feeOf(fee, amount)
        return withheld > most ? withheld : most
      }, 0n)
    }
  }
}
