// jsonParsed rendering of SPL Token / Token-2022 accounts (mint, token account, multisig) following
// agave's account-decoder: string amounts, null for absent authorities, Token-2022 extensions as
// [{ extension: "camelCaseName", state: {...} }] with unit variants carrying no state.
import { getMintDecoder, getTokenDecoder, getMultisigDecoder, type Extension } from '@solana-program/token-2022'
import { isSome, type Address, type Option } from '@solana/kit'
import { TOKEN_2022_PROGRAM, isMintData, isTokenAccountData, readMint } from './token-layout.js'
import { uiTokenAmount } from './ui-amount.js'
import type { EngineAccount } from '../svm.js'

export interface ParsedTokenData {
  program: 'spl-token' | 'spl-token-2022';
  parsed: { info: Record<string, unknown>; type: 'mint' | 'account' | 'multisig' };
  space: number;
}

const ZERO_ADDRESS = '11111111111111111111111111111111'
const MULTISIG_SIZE = 355
const NATIVE_MINTS = new Set(['So11111111111111111111111111111111111111112', '9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP'])
const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const

/** Parses a token-program account or returns null (the caller then falls back to base64 like a node does). */
export function parseTokenAccountData (
  account: EngineAccount,
  readAccount: (address: string) => EngineAccount | null
): ParsedTokenData | null {
  const program = account.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token'
  const data = account.data
  try {
    if (data.length === MULTISIG_SIZE) {
      return { program, parsed: { type: 'multisig', info: renderMultisig(data) }, space: data.length }
    }
    if (isMintData(data)) {
      const info = renderMint(data)
      return info ? { program, parsed: { type: 'mint', info }, space: data.length } : null
    }
    if (isTokenAccountData(data)) {
      const info = renderTokenAccount(data, account.owner, readAccount)
      return info ? { program, parsed: { type: 'account', info }, space: data.length } : null
    }
  } catch {
    return null
  }
  return null
}

function optionalAddress (value: Option<Address> | Address): string | null {
  if (typeof value === 'string') return value === ZERO_ADDRESS ? null : value
  return isSome(value) ? value.value : null
}

function renderMint (data: Uint8Array): Record<string, unknown> | null {
  const mint = getMintDecoder().decode(data)
  if (!mint.isInitialized) return null
  const info: Record<string, unknown> = {
    decimals: mint.decimals,
    freezeAuthority: optionalAddress(mint.freezeAuthority),
    isInitialized: mint.isInitialized,
    mintAuthority: optionalAddress(mint.mintAuthority),
    supply: mint.supply.toString(),
  }
  const extensions = isSome(mint.extensions) ? mint.extensions.value : []
  if (extensions.length > 0) info.extensions = extensions.map(renderExtension)
  return info
}

function renderTokenAccount (
  data: Uint8Array,
  programId: string,
  readAccount: (address: string) => EngineAccount | null
): Record<string, unknown> | null {
  const token = getTokenDecoder().decode(data)
  const mintAccount = readAccount(token.mint)
  const mint = mintAccount && mintAccount.owner === programId ? readMint(mintAccount.data) : null
  if (!mint) return null // a node cannot parse a token account without its mint's decimals
  const isNative = isSome(token.isNative)
  const info: Record<string, unknown> = {
    isNative,
    mint: token.mint,
    owner: token.owner,
    state: ACCOUNT_STATES[token.state] ?? 'uninitialized',
    tokenAmount: uiTokenAmount(token.amount, mint.decimals),
  }
  if (isSome(token.delegate)) {
    info.delegate = token.delegate.value
    info.delegatedAmount = uiTokenAmount(token.delegatedAmount, mint.decimals)
  }
  if (isNative && isSome(token.isNative) && NATIVE_MINTS.has(token.mint)) {
    info.rentExemptReserve = uiTokenAmount(token.isNative.value, mint.decimals)
  }
  if (isSome(token.closeAuthority)) info.closeAuthority = token.closeAuthority.value
  const extensions = isSome(token.extensions) ? token.extensions.value : []
  if (extensions.length > 0) info.extensions = extensions.map(renderExtension)
  return info
}

function renderMultisig (data: Uint8Array): Record<string, unknown> {
  const multisig = getMultisigDecoder().decode(data)
  return {
    isInitialized: multisig.isInitialized,
    numRequiredSigners: multisig.m,
    numValidSigners: multisig.n,
    signers: multisig.signers.slice(0, multisig.n),
  }
}

function unit (name: string) {
  return { extension: name }
}

function withState (name: string, state: Record<string, unknown>) {
  return { extension: name, state }
}

/** One Token-2022 extension as agave's UiExtension serializes it. */
export function renderExtension (extension: Extension): Record<string, unknown> {
  switch (extension.__kind) {
    case 'TransferFeeConfig': {
      const fee = (value: typeof extension.olderTransferFee) => ({
        epoch: value.epoch,
        maximumFee: value.maximumFee,
        transferFeeBasisPoints: value.transferFeeBasisPoints,
      })
      return withState('transferFeeConfig', {
        newerTransferFee: fee(extension.newerTransferFee),
        olderTransferFee: fee(extension.olderTransferFee),
        transferFeeConfigAuthority: optionalAddress(extension.transferFeeConfigAuthority),
        withdrawWithheldAuthority: optionalAddress(extension.withdrawWithheldAuthority),
        withheldAmount: extension.withheldAmount,
      })
    }
    case 'TransferFeeAmount':
      return withState('transferFeeAmount', { withheldAmount: extension.withheldAmount })
    case 'MintCloseAuthority':
      return withState('mintCloseAuthority', { closeAuthority: optionalAddress(extension.closeAuthority) })
    case 'DefaultAccountState':
      return withState('defaultAccountState', { accountState: ACCOUNT_STATES[extension.state] ?? 'uninitialized' })
    case 'ImmutableOwner':
      return unit('immutableOwner')
    case 'MemoTransfer':
      return withState('memoTransfer', { requireIncomingTransferMemos: extension.requireIncomingTransferMemos })
    case 'NonTransferable':
      return unit('nonTransferable')
    case 'NonTransferableAccount':
      return unit('nonTransferableAccount')
    case 'InterestBearingConfig':
      return withState('interestBearingConfig', {
        currentRate: extension.currentRate,
        initializationTimestamp: extension.initializationTimestamp,
        lastUpdateTimestamp: extension.lastUpdateTimestamp,
        preUpdateAverageRate: extension.preUpdateAverageRate,
        rateAuthority: optionalAddress(extension.rateAuthority),
      })
    case 'CpiGuard':
      return withState('cpiGuard', { lockCpi: extension.lockCpi })
    case 'PermanentDelegate':
      return withState('permanentDelegate', { delegate: optionalAddress(extension.delegate) })
    case 'TransferHook':
      return withState('transferHook', { authority: optionalAddress(extension.authority), programId: optionalAddress(extension.programId) })
    case 'TransferHookAccount':
      return withState('transferHookAccount', { transferring: extension.transferring })
    case 'MetadataPointer':
      return withState('metadataPointer', {
        authority: optionalAddress(extension.authority),
        metadataAddress: optionalAddress(extension.metadataAddress),
      })
    case 'TokenMetadata':
      return withState('tokenMetadata', {
        additionalMetadata: [...extension.additionalMetadata.entries()],
        mint: extension.mint,
        name: extension.name,
        symbol: extension.symbol,
        updateAuthority: optionalAddress(extension.updateAuthority),
        uri: extension.uri,
      })
    case 'GroupPointer':
      return withState('groupPointer', { authority: optionalAddress(extension.authority), groupAddress: optionalAddress(extension.groupAddress) })
    case 'GroupMemberPointer':
      return withState('groupMemberPointer', { authority: optionalAddress(extension.authority), memberAddress: optionalAddress(extension.memberAddress) })
    case 'TokenGroup':
      return withState('tokenGroup', {
        maxSize: extension.maxSize,
        mint: extension.mint,
        size: extension.size,
        updateAuthority: optionalAddress(extension.updateAuthority),
      })
    case 'TokenGroupMember':
      return withState('tokenGroupMember', { group: extension.group, memberNumber: extension.memberNumber, mint: extension.mint })
    case 'ScaledUiAmountConfig':
      return withState('scaledUiAmountConfig', {
        authority: optionalAddress(extension.authority),
        multiplier: String(extension.multiplier),
        newMultiplier: String(extension.newMultiplier),
        newMultiplierEffectiveTimestamp: extension.newMultiplierEffectiveTimestamp,
      })
    case 'PausableConfig':
      return withState('pausableConfig', { authority: optionalAddress(extension.authority), paused: extension.paused })
    case 'PausableAccount':
      return unit('pausableAccount')
    case 'ConfidentialTransferMint':
      return withState('confidentialTransferMint', {
        auditorElgamalPubkey: optionalAddress(extension.auditorElgamalPubkey),
        authority: optionalAddress(extension.authority),
        autoApproveNewAccounts: extension.autoApproveNewAccounts,
      })
    default:
      // Confidential-balance state and newer extensions are not rendered field by field here.
      return unit('unparseableExtension')
  }
}
