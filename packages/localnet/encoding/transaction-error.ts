// Converts LiteSVM's transaction errors to the JSON a node sends (`meta.err`, `status.Err`) and to the
// Display text a node puts in "-32002 Transaction simulation failed: <text>".

export type UiTransactionError = string | Record<string, unknown>

// Variant order of solana TransactionError / InstructionError, as numbered by LiteSVM's fieldless enums.
const TRANSACTION_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
]

const INSTRUCTION_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync',
  'InvalidError', 'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId', 'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded',
  'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded', 'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar',
  'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
]

const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  CallChainTooDeep: 'Loader call chain is too deep',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  InvalidWritableAccount: 'Transaction loads a writable account that cannot be written',
  TooManyAccountLocks: 'Transaction locked too many accounts',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableOwner: 'Transaction loads an address table account with an invalid owner',
  InvalidAddressLookupTableData: 'Transaction loads an address table account with invalid data',
  InvalidAddressLookupTableIndex: 'Transaction address table lookup uses an invalid index',
  InvalidRentPayingAccount: 'Transaction leaves an account with a lower balance than rent-exempt minimum',
  MaxLoadedAccountsDataSizeExceeded: 'Transaction exceeded max loaded accounts data size cap',
  UnbalancedTransaction: 'Sum of account balances before and after transaction do not match',
}

const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
  IllegalOwner: 'Provided owner is not allowed',
  AccountNotRentExempt: 'An account does not have enough lamports to be rent-exempt',
}

interface LiteSvmInstructionError { index: number; err(): unknown }

function instructionErrorJson (err: unknown): string | Record<string, unknown> {
  if (typeof err === 'number') return INSTRUCTION_ERRORS[err] ?? 'GenericError'
  const named = err as { code?: number; msg?: string }
  if (typeof named.code === 'number') return { Custom: named.code }
  if (typeof named.msg === 'string') return { BorshIoError: named.msg }
  return 'GenericError'
}

/** LiteSVM `FailedTransactionMetadata.err()` -> the node's JSON form. */
export function toUiTransactionError (err: unknown): UiTransactionError {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? 'SanitizeFailure'
  const shaped = err as Partial<LiteSvmInstructionError> & { accountIndex?: number }
  if (typeof shaped.err === 'function' && typeof shaped.index === 'number') {
    return { InstructionError: [shaped.index, instructionErrorJson(shaped.err())] }
  }
  const kind = (err as object).constructor?.name ?? ''
  if (kind.includes('DuplicateInstruction')) return { DuplicateInstruction: shaped.index ?? 0 }
  if (kind.includes('InsufficientFundsForRent')) return { InsufficientFundsForRent: { account_index: shaped.accountIndex ?? 0 } }
  if (kind.includes('ProgramExecutionTemporarilyRestricted')) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: shaped.accountIndex ?? 0 } }
  }
  return 'SanitizeFailure'
}

/** The error's Display text. Instruction failures reuse the program's own "failed: ..." log line. */
export function describeTransactionError (err: UiTransactionError, logs: readonly string[] = []): string {
  if (typeof err === 'string') return TRANSACTION_ERROR_TEXT[err] ?? err
  if ('InstructionError' in err) {
    const [index, inner] = err.InstructionError as [number, string | Record<string, unknown>]
    return `Error processing Instruction ${index}: ${describeInstructionError(inner, logs)}`
  }
  if ('InsufficientFundsForRent' in err) {
    const { account_index: accountIndex } = err.InsufficientFundsForRent as { account_index: number }
    return `Transaction results in an account (${accountIndex}) with insufficient funds for rent`
  }
  if ('DuplicateInstruction' in err) {
    return `Transaction contains a duplicate instruction (${String(err.DuplicateInstruction)}) that is not allowed`
  }
  return JSON.stringify(err)
}

function describeInstructionError (inner: string | Record<string, unknown>, logs: readonly string[]): string {
  if (typeof inner === 'object' && typeof inner.Custom === 'number') return `custom program error: 0x${inner.Custom.toString(16)}`
  if (typeof inner === 'object' && typeof inner.BorshIoError === 'string') return `Failed to serialize or deserialize account data: ${inner.BorshIoError}`
  const failedLine = [...logs].reverse().find((line) => /^Program \w+ failed: /.test(line))
  if (failedLine) return failedLine.replace(/^Program \w+ failed: /, '')
  return INSTRUCTION_ERROR_TEXT[inner as string] ?? String(inner)
}
