import { unwrapOption, type Address, type Option } from '@solana/kit'
import { AccountState, type TransferFee } from '@solana-program/token-2022'
import type { TokenExtensionBody } from '../../schemas/token-analysis.js'
import type { MintExtension } from './read-mint.js'

/** Token-2022 stores an absent authority as 32 zero bytes, which base58 renders as this. */
const ZERO_ADDRESS = '11111111111111111111111111111111'

function nonZero (address: Address): Address | null {
  return address === ZERO_ADDRESS ? null : address
}

function authority (value: Address | Option<Address>): Address | null {
  return typeof value === 'string' ? nonZero(value) : unwrapOption(value)
}

function fee (schedule: TransferFee) {
  return { epoch: Number(schedule.epoch), basis_points: schedule.transferFeeBasisPoints, maximum_fee: schedule.maximumFee.toString() }
}

const ACCOUNT_STATES = {
  [AccountState.Uninitialized]: 'uninitialized',
  [AccountState.Initialized]: 'initialized',
  [AccountState.Frozen]: 'frozen'
} as const

/**
 * The settings of one mint extension in the API's snake_case shape. Authorities that Token-2022
 * leaves empty come out as null; u64 amounts as decimal strings; ciphertexts are left out.
 */
export function normaliseExtension (extension: MintExtension): TokenExtensionBody {
  switch (extension.__kind) {
    case 'TransferFeeConfig':
      return {
        type: 'transfer_fee',
        older_fee: fee(extension.olderTransferFee),
        newer_fee: fee(extension.newerTransferFee),
        config_authority: authority(extension.transferFeeConfigAuthority),
        withdraw_withheld_authority: authority(extension.withdrawWithheldAuthority),
        withheld_amount: extension.withheldAmount.toString()
      }
    case 'PermanentDelegate':
      return { type: 'permanent_delegate', delegate: authority(extension.delegate) }
    case 'TransferHook':
      return { type: 'transfer_hook', program_id: authority(extension.programId), authority: authority(extension.authority) }
    case 'NonTransferable':
      return { type: 'non_transferable' }
    case 'DefaultAccountState':
      return { type: 'default_account_state', state: ACCOUNT_STATES[extension.state] }
    case 'MintCloseAuthority':
      return { type: 'mint_close_authority', close_authority: authority(extension.closeAuthority) }
    case 'PausableConfig':
      return { type: 'pausable', authority: authority(extension.authority), paused: extension.paused }
    case 'MetadataPointer':
      return { type: 'metadata_pointer', authority: authority(extension.authority), metadata_address: authority(extension.metadataAddress) }
    case 'TokenMetadata':
      return {
        type: 'token_metadata',
        update_authority: authority(extension.updateAuthority),
        name: extension.name,
        symbol: extension.symbol,
        uri: extension.uri,
        additional_metadata: [...extension.additionalMetadata].map(([key, value]) => ({ key, value }))
      }
    case 'InterestBearingConfig':
      return {
        type: 'interest_bearing',
        rate_authority: authority(extension.rateAuthority),
        current_rate_basis_points: extension.currentRate,
        pre_update_average_rate_basis_points: extension.preUpdateAverageRate,
        initialization_timestamp: Number(extension.initializationTimestamp),
        last_update_timestamp: Number(extension.lastUpdateTimestamp)
      }
    case 'ScaledUiAmountConfig':
      return {
        type: 'scaled_ui_amount',
        authority: authority(extension.authority),
        multiplier: extension.multiplier,
        new_multiplier: extension.newMultiplier,
        new_multiplier_effective_timestamp: Number(extension.newMultiplierEffectiveTimestamp)
      }
    case 'ConfidentialTransferMint':
      return {
        type: 'confidential_transfer',
        authority: authority(extension.authority),
        auto_approve_new_accounts: extension.autoApproveNewAccounts,
        auditor_elgamal_pubkey: authority(extension.auditorElgamalPubkey)
      }
    case 'ConfidentialTransferFee':
      return { type: 'confidential_transfer_fee', authority: authority(extension.authority), harvest_to_mint_enabled: extension.harvestToMintEnabled }
    case 'ConfidentialMintBurn':
      return { type: 'confidential_mint_burn' }
    case 'GroupPointer':
      return { type: 'group_pointer', authority: authority(extension.authority), group_address: authority(extension.groupAddress) }
    case 'TokenGroup':
      return { type: 'token_group', update_authority: authority(extension.updateAuthority), size: Number(extension.size), max_size: Number(extension.maxSize) }
    case 'GroupMemberPointer':
      return { type: 'group_member_pointer', authority: authority(extension.authority), member_address: authority(extension.memberAddress) }
    case 'TokenGroupMember':
      return { type: 'token_group_member', group: extension.group, member_number: Number(extension.memberNumber) }
    case 'PermissionedBurn':
      return { type: 'permissioned_burn', authority: authority(extension.authority) }
    case 'Unknown':
      return { type: 'unknown', extension_type: extension.extensionType }
  }
}
