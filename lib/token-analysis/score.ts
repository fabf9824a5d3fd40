import type { Address } from '@solana/kit'
import type { AuthorityPowerBody, RiskBody, TokenExtensionBody, TokenIssuerBody, TokenMetadataBody } from '../../schemas/token-analysis.js'
import { describeHolder, holderShare, weighFor } from './authority-weights.js'
import { formatTokenAmount } from '../solana/token-amount.js'
import { isAtLeast, largestAmount, percentOf, topAmount, type HolderRead } from './holders.js'
import type { MarketRead } from './market.js'
import { marketFindings, sellFindings } from './market-risks.js'
import type { SellRead } from './sell-check.js'
import type { TransferSimulationRead } from './transfer-simulation.js'
import { MAX_SCORE, MIN_SCORE, RISK_RULES, THRESHOLDS, type Finding } from './risk-weights.js'

/** Everything the risks are judged from: the mint as read, its metadata, its holders. */
export interface RiskFacts {
  mintAuthority: Address | null
  freezeAuthority: Address | null
  decimals: number
  supply: bigint
  extensions: TokenExtensionBody[]
  metadata: TokenMetadataBody | null
  holders: HolderRead
  issuer?: TokenIssuerBody
  /** Jupiter's token record and sell quotes; absent when the analysis has no price API. */
  market?: MarketRead
  sell?: SellRead
  /** The simulated plain transfer; absent when none was run. */
  transfer?: TransferSimulationRead
  /** Who holds each power; a power's finding weighs by its holder's kind. Absent: every holder weighs as one key. */
  powers?: AuthorityPowerBody[]
  /** The native mint (wrapped SOL): no mint authority, and its supply field is not its supply. */
  nativeMint?: boolean
  /** What the deeper parts of the analysis found (analysis-part.ts), weighed on the same scale. */
  partFindings?: Finding[]
}

type FeeSchedule = Extract<TokenExtensionBody, { type: 'transfer_fee' }>['newer_fee']

function describeFee (schedule: FeeSchedule, decimals: number): string {
  return `${schedule.basis_points / 100}% (at most ${formatTokenAmount(BigInt(schedule.maximum_fee), decimals)} tokens per transfer)`
}

function transferFeeFindings (extension: Extract<TokenExtensionBody, { type: 'transfer_fee' }>, decimals: number): Finding[] {
  const { older_fee: older, newer_fee: newer } = extension
  const findings: Finding[] = []
  // Which of the two applies depends on the current epoch; one of them is or will be in force, so
  // the higher one is graded.
  const basisPoints = Math.max(older.basis_points, newer.basis_points)
  if (basisPoints > 0) {
    const same = older.basis_points === newer.basis_points && older.maximum_fee === newer.maximum_fee
    const fee = same ? describeFee(newer, decimals) : `${describeFee(older, decimals)} before epoch ${newer.epoch} and ${describeFee(newer, decimals)} from then on`
    const code = basisPoints >= THRESHOLDS.transferFeeHighBasisPoints
      ? 'TRANSFER_FEE_HIGH'
      : basisPoints >= THRESHOLDS.transferFeeBasisPoints ? 'TRANSFER_FEE' : 'TRANSFER_FEE_LOW'
    findings.push({ code, params: { fee } })
  }
  if (extension.config_authority !== null) findings.push({ code: 'TRANSFER_FEE_MUTABLE', params: { authority: extension.config_authority }, holders: [extension.config_authority] })
  return findings
}

function extensionFindings (extension: TokenExtensionBody, decimals: number): Finding[] {
  switch (extension.type) {
    case 'transfer_fee':
      return transferFeeFindings(extension, decimals)
    case 'permanent_delegate':
      return extension.delegate === null ? [] : [{ code: 'PERMANENT_DELEGATE', params: { delegate: extension.delegate }, holders: [extension.delegate] }]
    case 'non_transferable':
      return [{ code: 'NON_TRANSFERABLE', params: {} }]
    case 'default_account_state':
      return extension.state === 'frozen' ? [{ code: 'DEFAULT_ACCOUNT_STATE_FROZEN', params: {} }] : []
    case 'transfer_hook':
      if (extension.program_id !== null) return [{ code: 'TRANSFER_HOOK', params: { program: extension.program_id, authority: extension.authority ?? 'nobody' } }]
      return extension.authority === null ? [] : [{ code: 'TRANSFER_HOOK_ENABLEABLE', params: { authority: extension.authority }, holders: [extension.authority] }]
    case 'pausable':
      if (extension.paused) return [{ code: 'PAUSED', params: { authority: extension.authority ?? 'none' } }]
      return extension.authority === null ? [] : [{ code: 'PAUSABLE', params: { authority: extension.authority }, holders: [extension.authority] }]
    case 'mint_close_authority':
      return extension.close_authority === null ? [] : [{ code: 'MINT_CLOSE_AUTHORITY', params: { authority: extension.close_authority }, holders: [extension.close_authority] }]
    case 'confidential_transfer':
      return [{ code: 'CONFIDENTIAL_TRANSFERS', params: {} }]
    case 'confidential_mint_burn':
      return [{ code: 'CONFIDENTIAL_SUPPLY', params: {} }]
    case 'interest_bearing':
      return extension.rate_authority === null ? [] : [{ code: 'UI_AMOUNT_ADJUSTABLE', params: { authority: `Rate authority ${extension.rate_authority}`, mechanism: 'an interest rate' }, holders: [extension.rate_authority] }]
    case 'scaled_ui_amount':
      return extension.authority === null ? [] : [{ code: 'UI_AMOUNT_ADJUSTABLE', params: { authority: `Multiplier authority ${extension.authority}`, mechanism: 'a multiplier' }, holders: [extension.authority] }]
    case 'permissioned_burn':
      return extension.authority === null ? [] : [{ code: 'PERMISSIONED_BURN', params: { authority: extension.authority }, holders: [extension.authority] }]
    case 'unknown':
      return [{ code: 'UNKNOWN_EXTENSION', params: { type: extension.extension_type } }]
    default:
      // Pointers, groups, members, token metadata and the confidential fee settings are harmless by themselves.
      return []
  }
}

function holderFindings (holders: HolderRead): Finding[] {
  if (!holders.available) return [{ code: 'HOLDERS_UNAVAILABLE', params: { reason: holders.reason } }]
  const findings: Finding[] = []
  const { supply } = holders
  const largest = largestAmount(holders)
  const largestParams = { address: holders.accounts[0]?.address ?? '', percent: percentOf(largest, supply) }
  if (isAtLeast(largest, supply, THRESHOLDS.largestHolderMajorityBasisPoints)) findings.push({ code: 'LARGEST_HOLDER_MAJORITY', params: largestParams })
  else if (isAtLeast(largest, supply, THRESHOLDS.largestHolderHighBasisPoints)) findings.push({ code: 'LARGEST_HOLDER_HIGH', params: largestParams })
  const top = topAmount(holders)
  const topParams = { percent: percentOf(top, supply) }
  if (isAtLeast(top, supply, THRESHOLDS.top10ConcentratedBasisPoints)) findings.push({ code: 'TOP10_CONCENTRATED', params: topParams })
  else if (isAtLeast(top, supply, THRESHOLDS.top10HighBasisPoints)) findings.push({ code: 'TOP10_HIGH', params: topParams })
  const count = holders.accounts.length
  if (holders.complete && count > 0 && count < THRESHOLDS.fewHolders) findings.push({ code: 'FEW_HOLDERS', params: { count } })
  return findings
}

/** Who can change what holders see as the token's name: its update authority, a metadata pointer authority, or both. */
function metadataFindings (metadata: TokenMetadataBody | null, extensions: TokenExtensionBody[]): Finding[] {
  if (metadata === null) return [{ code: 'METADATA_MISSING', params: {} }]
  if (!metadata.mutable) return []
  const pointer = extensions.find(extension => extension.type === 'metadata_pointer')
  const names = []
  const holders: string[] = []
  if (metadata.update_authority !== null) {
    names.push(`update authority ${metadata.update_authority}`)
    holders.push(metadata.update_authority)
  }
  if (pointer?.authority != null) {
    names.push(`metadata pointer authority ${pointer.authority}`)
    holders.push(pointer.authority)
  }
  const authority = names.join(' and ')
  return [{ code: 'MUTABLE_METADATA', params: { authority: authority.charAt(0).toUpperCase() + authority.slice(1) }, holders }]
}

function findingsOf (facts: RiskFacts): Finding[] {
  const findings: Finding[] = []
  if (facts.mintAuthority !== null) findings.push({ code: 'MINT_AUTHORITY_ACTIVE', params: { authority: facts.mintAuthority }, holders: [facts.mintAuthority] })
  if (facts.freezeAuthority !== null) findings.push({ code: 'FREEZE_AUTHORITY_ACTIVE', params: { authority: facts.freezeAuthority }, holders: [facts.freezeAuthority] })
  for (const extension of facts.extensions) findings.push(...extensionFindings(extension, facts.decimals))
  findings.push(...metadataFindings(facts.metadata, facts.extensions))
  // Wrapped SOL is made by depositing SOL into token accounts: the mint's supply field stays 0.
  if (facts.nativeMint !== true && facts.supply < 10n ** BigInt(facts.decimals)) findings.push({ code: 'TINY_SUPPLY', params: { supply: formatTokenAmount(facts.supply, facts.decimals) } })
  findings.push(...holderFindings(facts.holders))
  if (facts.issuer !== undefined) {
    findings.push({ code: 'CENTRAL_ISSUER', params: { asset: facts.issuer.asset, issuer: facts.issuer.name, trust: facts.issuer.trust_assumption } })
  }
  findings.push(...marketFindings(facts.market), ...sellFindings(facts.sell, facts.market))
  // An unavailable simulation weighs nothing: what it would show (frozen, non-transferable,
  // paused, fees) is read from the mint and weighed already; it is a second, executed opinion.
  if (facts.transfer?.state === 'failed') findings.push({ code: 'TRANSFER_SIMULATION_FAILED', params: { error: facts.transfer.error } })
  findings.push(...facts.partFindings ?? [])
  return findings
}

function fill (template: string, params: Finding['params']): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]))
}

const TABLE_ORDER = Object.keys(RISK_RULES)

/** The holder of a finding's power that weighs most (the power is as strong as its weakest holder). */
function heaviestHolder (addresses: string[] | undefined, powers: AuthorityPowerBody[] | undefined): AuthorityPowerBody | undefined {
  const held = (powers ?? []).filter(power => addresses?.includes(power.address) === true)
  return held.sort((a, b) => holderShare(b) - holderShare(a))[0]
}

function toRisk ({ code, params, holders }: Finding, facts: RiskFacts): RiskBody {
  const rule: { level: RiskBody['level'], weight: number, issuerWeight?: number, message: string } = RISK_RULES[code]
  const { issuer } = facts
  let message = fill(rule.message, params)
  let weight = rule.weight
  if (issuer !== undefined && rule.issuerWeight !== undefined) {
    weight = rule.issuerWeight
    message += ` This power is held by ${issuer.name}, the known issuer, so it weighs ${weight} instead of ${rule.weight}.`
  }
  const holder = heaviestHolder(holders, facts.powers)
  if (holder !== undefined) {
    const weighed = weighFor(weight, holderShare(holder))
    message += ` ${holder.address} is ${describeHolder(holder)}${weighed === weight ? '' : `, so it weighs ${weighed} instead of ${weight}`}.`
    weight = weighed
  }
  return { code, level: rule.level, weight, message }
}

/** Every finding as a risk, heaviest first (ties in table order), with its sentence filled in. */
export function assessRisks (facts: RiskFacts): RiskBody[] {
  return findingsOf(facts)
    .map(finding => toRisk(finding, facts))
    .sort((a, b) => b.weight - a.weight || TABLE_ORDER.indexOf(a.code) - TABLE_ORDER.indexOf(b.code))
}

/** The sum of the weights, clamped to 1..100. */
export function riskScore (risks: RiskBody[]): number {
  const total = risks.reduce((sum, risk) => sum + risk.weight, 0)
  return Math.min(MAX_SCORE, Math.max(MIN_SCORE, total))
}
