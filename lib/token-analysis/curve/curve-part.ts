import type { Base64EncodedBytes, GetMultipleAccountsApi, Rpc } from '@solana/kit'
import type { BondingCurveBody } from '../../../schemas/token-analysis-curve.js'
import type { AnalysisPart, PartInput, PartOutcome } from '../analysis-part.js'
import { percentOf, shareOf } from '../holders.js'
import { POOL_PROGRAMS } from '../pools/pool-programs.js'
import type { Finding } from '../risk-weights.js'
import { curveAddress, decodeCurve, decodeInitialRealTokens, globalAddress, graduatedPoolAddress, PUMP_PROGRAM, type CurveState } from './pump-curve.js'

export type CurveRpc = Rpc<GetMultipleAccountsApi>

function unavailableCurve (reason: string): PartOutcome {
  return { fields: { bonding_curve: { available: false, reason, evidence: [] } }, findings: [], checks: [{ check: 'bonding_curve', source: 'chain', status: 'unavailable', reason }] }
}

/**
 * What of the curve is sold, as wave5.md defines it: the initial real token reserves (Global)
 * less what the curve still holds to sell; all of it once complete. Undefined without Global.
 */
function soldOf (curve: CurveState, initialRealTokens: bigint | null): { sold: bigint, of: bigint } | undefined {
  if (curve.complete) return { sold: 1n, of: 1n }
  if (initialRealTokens === null || initialRealTokens === 0n) return undefined
  return { sold: initialRealTokens > curve.realTokenReserves ? initialRealTokens - curve.realTokenReserves : 0n, of: initialRealTokens }
}

/**
 * `bonding_curve`: the mint's pump.fun curve (PDA["bonding-curve", mint]), pump.fun's Global
 * account (the initial reserves progress is measured against) and the PumpSwap pool a complete
 * curve migrates to, in one getMultipleAccounts at one slot. No curve account: the mint was not
 * launched on pump.fun, which the part says without judging it.
 */
export function createCurvePart ({ rpc }: { rpc: CurveRpc }): AnalysisPart {
  const globalRead = globalAddress()
  return {
    name: 'bonding_curve',
    async read (input: PartInput): Promise<PartOutcome> {
      const [curveAt, globalAt, poolAt] = await Promise.all([curveAddress(input.mint), globalRead, graduatedPoolAddress(input.mint)])
      const { context, value } = await rpc.getMultipleAccounts([curveAt, globalAt, poolAt], { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: input.signal })
      const [curveAccount, globalAccount, poolAccount] = value.map(account => account === null ? null : { owner: account.owner, data: Buffer.from(account.data[0] as Base64EncodedBytes, 'base64') })
      const slot = Number(context.slot)
      const head = { available: true, slot, address: curveAt, program: PUMP_PROGRAM }
      if (curveAccount === null) {
        const reason = 'The mint has no pump.fun bonding curve: it was not launched there.'
        return { fields: { bonding_curve: { ...head, found: false, reason, evidence: [curveAt] } }, findings: [], checks: [{ check: 'bonding_curve', source: 'chain', status: 'not_applicable', slot, reason }] }
      }
      const curve = decodeCurve(curveAccount)
      if (curve === null) return unavailableCurve(`The account at the mint's pump.fun curve address ${curveAt} is not a bonding curve (owner, size or discriminator differ): it is not trusted.`)
      const initialRealTokens = globalAccount === null ? null : decodeInitialRealTokens(globalAccount)
      const sold = soldOf(curve, initialRealTokens)
      const progress = sold === undefined ? undefined : shareOf(sold.sold, sold.of)
      const graduated = curve.complete && poolAccount?.owner === POOL_PROGRAMS.pumpswap.id ? poolAt : null
      const reasons: string[] = []
      if (progress === undefined) reasons.push(`pump.fun's Global account ${globalAt} could not be read, so the progress is unknown`)
      if (curve.complete && graduated === null) reasons.push(`no PumpSwap pool exists at the canonical address ${poolAt}; the pools found are under liquidity`)
      const body: BondingCurveBody = {
        ...head,
        found: true,
        complete: curve.complete,
        ...(progress === undefined ? {} : { progress }),
        virtual_token_reserves: curve.virtualTokenReserves.toString(),
        virtual_sol_reserves: curve.virtualSolReserves.toString(),
        real_token_reserves: curve.realTokenReserves.toString(),
        real_sol_reserves: curve.realSolReserves.toString(),
        token_total_supply: curve.tokenTotalSupply.toString(),
        ...(curve.complete ? { graduated_pool: graduated } : {}),
        evidence: [curveAt, ...(initialRealTokens === null ? [] : [globalAt]), ...(graduated === null ? [] : [graduated])],
        ...(reasons.length === 0 ? {} : { reason: `${reasons.join('; ')}.` })
      }
      const findings: Finding[] = curve.complete
        ? []
        : [{ code: 'ON_BONDING_CURVE', params: { curve: curveAt, progress: sold === undefined ? 'an unknown share' : percentOf(sold.sold, sold.of) } }]
      return { fields: { bonding_curve: body }, findings, checks: [{ check: 'bonding_curve', source: 'chain', status: 'passed', slot }] }
    },
    unavailable: reason => unavailableCurve(reason)
  }
}
