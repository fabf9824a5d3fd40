import type { X402NetworkName } from '../x402/networks.js'

/** How MPP's Solana charge spells a cluster (draft-solana-charge: mainnet-beta, devnet or localnet). */
const MPP_NETWORKS: Record<X402NetworkName, string> = {
  solana: 'mainnet-beta',
  'solana-devnet': 'devnet',
  'solana-testnet': 'testnet',
  'solana-localnet': 'localnet'
}

/** The network the charge names: the one the merchant advertises to x402 buyers (X402_NETWORK), in MPP's spelling. */
export function mppNetwork (advertised: X402NetworkName): string {
  return MPP_NETWORKS[advertised]
}

/** What every charge of this merchant asks, whatever the product. */
export interface ChargeTerms {
  /** The payment mint (the charge's `currency`). */
  mint: string
  decimals: number
  /** The wallet paid (the charge's `recipient`: the client pays its associated token account). */
  payTo: string
  /** MPP's spelling of the advertised network (mppNetwork). */
  network: string
  /** The x402 fee payer, which co-signs and sends a pull payment. */
  feePayer: string
  /** The mint's token program, once known (read in the background). */
  tokenProgram: () => string | undefined
}

/** The two ways a charge is paid: pull (the buyer signs, the merchant co-signs as fee payer and sends) or push (the buyer sends and shows the signature). */
export type ChargeMode = 'pull' | 'push'

/** The charge request (draft-solana-charge) of one price in one mode; `recentBlockhash` only in pull mode. */
export function chargeRequest (terms: ChargeTerms, amount: bigint, mode: ChargeMode, recentBlockhash?: string): Record<string, unknown> {
  const tokenProgram = terms.tokenProgram()
  return {
    amount: amount.toString(),
    currency: terms.mint,
    recipient: terms.payTo,
    methodDetails: {
      network: terms.network,
      decimals: terms.decimals,
      ...(tokenProgram === undefined ? {} : { tokenProgram }),
      ...(mode === 'pull' ? { feePayer: true, feePayerKey: terms.feePayer, ...(recentBlockhash === undefined ? {} : { recentBlockhash }) } : {})
    }
  }
}
