import type { AuthorityPowerBody } from '../../schemas/token-analysis.js'
import { isRulesBound } from './authority-holders.js'

/**
 * How much of a power's weight its holder carries, in percent; argued in docs/token-analysis.md.
 * - wallet, executable, unknown: 100. One key decides (a program's deployer may still hold its
 *   key); unknown is not safe.
 * - a multisig of threshold 2 or more: 50. Two independent keys must agree, so one stolen or rogue
 *   key cannot use the power, but the same group still holds it. Threshold 1: 100, each member alone
 *   holds the power; a Squads account whose threshold is not read: 100.
 * - program, named by a known derivation whose rules bound the power (a stake pool mints only
 *   against deposits): 20; any other program-derived address: 50, only code signs, but what the
 *   code allows and who can upgrade it are not read here.
 */
export function holderShare (holder: Pick<AuthorityPowerBody, 'kind' | 'threshold' | 'program_name'>): number {
  switch (holder.kind) {
    case 'token_multisig':
    case 'squads_multisig':
      return holder.threshold !== undefined && holder.threshold >= 2 ? 50 : 100
    case 'program':
      return holder.program_name !== undefined && isRulesBound(holder.program_name) ? 20 : 50
    default:
      return 100
  }
}

/** The weight a power's finding carries for this holder: never below 1, a held power is never nothing. */
export function weighFor (weight: number, share: number): number {
  return weight === 0 ? 0 : Math.max(1, Math.ceil(weight * share / 100))
}

/** The holder in words, for the finding's message. */
export function describeHolder (holder: AuthorityPowerBody): string {
  switch (holder.kind) {
    case 'wallet':
      return 'a wallet (one private key)'
    case 'token_multisig':
    case 'squads_multisig':
      return holder.threshold === undefined
        ? `an account of ${holder.program_name ?? 'Squads'} whose threshold is not read`
        : `a ${holder.threshold}-of-${holder.signers?.length ?? 0} ${holder.program_name ?? ''} multisig`.replace(/ {2}/g, ' ')
    case 'program':
      return holder.program_name === undefined
        ? 'a program-derived address (no private key; the program is not named by its account)'
        : `a program-derived address of ${holder.program_name}`
    case 'executable':
      return 'an executable program account'
    case 'unknown':
      return 'of unknown kind (its account could not be read)'
  }
}
