import { x402Facilitator as X402Facilitator } from '@x402/core/facilitator'
import { x402ResourceServer as X402ResourceServer, type FacilitatorClient } from '@x402/core/server'
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorSvmSigner, type FacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as ExactSvmFacilitator } from '@x402/svm/exact/facilitator'
import { ExactSvmScheme as ExactSvmServer } from '@x402/svm/exact/server'
import { ExactSvmSchemeV1 as ExactSvmFacilitatorV1 } from '@x402/svm/exact/v1/facilitator'
import type { KeyPairSigner } from '@solana/kit'
import { isRpcUnavailable } from '../solana/rpc-errors.js'
import type { SolanaRpc } from '../solana/rpc-client.js'
import type { X402Network } from './networks.js'
import { acceptedMatches } from './accepted-match.js'
import { MAX_COMPUTE_UNIT_LIMIT, MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS } from './transaction-rules.js'

/** Marks a simulation that failed because the RPC could not answer, not because of the payment. */
const RPC_UNAVAILABLE_MARK = 'rpc-unavailable:'

/**
 * The maintained x402 libraries, run in process: an x402ResourceServer that builds the v2
 * requirements (a payload's `accepted` is matched to them by accepted-match.ts); and @x402/svm's exact facilitator (v2
 * and v1) over our own payment RPC, signing with our fee payer, behind an x402Facilitator. The
 * service verifies payments itself (exact-verification.ts); `verify` is the oracle its
 * differential test and the bench compare with.
 */
export async function createX402Library (options: { rpc: SolanaRpc, feePayer: KeyPairSigner, network: X402Network }) {
  const { rpc, feePayer, network } = options
  // Both spellings of the network reach our RPC (the library's v1 scheme passes the v1 name).
  const base = toFacilitatorSvmSigner(feePayer, { [network.v2]: rpc, [network.v1]: rpc } as never)
  const signer: FacilitatorSvmSigner = {
    ...base,
    // The library turns every simulation error into "simulation failed" (402); an RPC that does
    // not answer is our problem, so it is marked for the caller to answer 503 instead.
    async simulateTransaction (transaction, net, simulateOptions) {
      try {
        await base.simulateTransaction(transaction, net, simulateOptions)
      } catch (error) {
        if (isRpcUnavailable(error)) throw new Error(`${RPC_UNAVAILABLE_MARK} ${(error as Error).message}`)
        throw error
      }
    }
  }

  const facilitator = new X402Facilitator()
    .register(network.v2 as Network, new ExactSvmFacilitator(signer, undefined, {
      maxPriorityFeeMicroLamports: Number(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS),
      maxComputeUnits: MAX_COMPUTE_UNIT_LIMIT,
      maxRequiredSignatures: 2
    }))
    .registerV1(network.v1 as Network, new ExactSvmFacilitatorV1(signer))

  const local: FacilitatorClient = {
    verify: async (payload, requirements) => await facilitator.verify(payload, requirements),
    settle: async (payload, requirements) => await facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as never
  }
  const resourceServer = new X402ResourceServer(local).register(network.v2 as Network, new ExactSvmServer())
  await resourceServer.initialize()

  return {
    /** The v2 requirement of one price, with extra.feePayer filled in by the scheme's server side. */
    async requirement (amount: bigint, asset: string, payTo: string, maxTimeoutSeconds: number): Promise<PaymentRequirements> {
      const [requirement] = await resourceServer.buildPaymentRequirements({
        scheme: 'exact', network: network.v2 as Network, payTo, price: { amount: amount.toString(), asset }, maxTimeoutSeconds
      })
      return requirement
    },
    /** True when a v2 payload's `accepted` is the given requirement (dynamic extra fields aside); ours, not the library's deep equality. */
    matches (requirement: PaymentRequirements, payload: Record<string, unknown>): boolean {
      return acceptedMatches(requirement, payload.accepted)
    },
    async verify (payload: Record<string, unknown>, requirement: unknown) {
      return await facilitator.verify(payload as unknown as PaymentPayload, requirement as PaymentRequirements)
    },
    signer
  }
}

export type X402Library = Awaited<ReturnType<typeof createX402Library>>
