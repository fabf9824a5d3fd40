import type { PaymentErrorCode } from '../contract/payment-error.js'

/**
 * The library's invalidReason strings (@x402/svm exact facilitator, v1 and v2) mapped to our stable
 * codes. A reason missing here (a newer library version) falls back to X402_VERIFICATION_FAILED.
 */
const BY_REASON: Record<string, PaymentErrorCode> = {
  invalid_exact_svm_unsupported_scheme: 'X402_UNSUPPORTED',
  unsupported_scheme: 'X402_UNSUPPORTED',
  invalid_exact_svm_network_mismatch: 'X402_NETWORK_MISMATCH',
  network_mismatch: 'X402_NETWORK_MISMATCH',
  invalid_exact_svm_payload_missing_fee_payer: 'X402_FEE_PAYER_MISMATCH',
  invalid_exact_svm_fee_payer_not_managed_by_facilitator: 'X402_FEE_PAYER_MISMATCH',
  invalid_exact_svm_fee_payer_mismatch: 'X402_FEE_PAYER_MISMATCH',
  invalid_exact_svm_invalid_fee_payer: 'X402_FEE_PAYER_MISMATCH',
  invalid_exact_svm_payload_transaction_fee_payer_transferring_funds: 'X402_FEE_PAYER_EXPOSED',
  invalid_exact_svm_payload_transaction: 'X402_INVALID_PAYLOAD',
  invalid_exact_svm_payload_transaction_could_not_be_decoded: 'X402_INVALID_PAYLOAD',
  invalid_exact_svm_payload_signature_invalid: 'X402_SIGNATURE_INVALID',
  invalid_exact_svm_payload_excessive_signers: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_transaction_instructions_length: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_unknown_fourth_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_unknown_fifth_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_unknown_sixth_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_unknown_seventh_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_unknown_optional_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_no_transfer_instruction: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction: 'X402_COMPUTE_BUDGET_INVALID',
  invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high: 'X402_COMPUTE_BUDGET_INVALID',
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction: 'X402_COMPUTE_BUDGET_INVALID',
  invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high: 'X402_COMPUTE_PRICE_TOO_HIGH',
  invalid_exact_svm_payload_mint_mismatch: 'X402_MINT_MISMATCH',
  invalid_exact_svm_payload_recipient_mismatch: 'X402_RECIPIENT_MISMATCH',
  invalid_exact_svm_payload_amount_mismatch: 'X402_AMOUNT_MISMATCH',
  invalid_exact_svm_payload_memo_mismatch: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_payload_memo_count: 'X402_TRANSACTION_NOT_ALLOWED',
  invalid_exact_svm_transaction_simulation_failed: 'X402_SIMULATION_FAILED',
  // The v1 scheme's spellings.
  transaction_simulation_failed: 'X402_SIMULATION_FAILED',
  fee_payer_not_managed_by_facilitator: 'X402_FEE_PAYER_MISMATCH'
}

export function codeOfInvalidReason (reason: string | undefined): PaymentErrorCode {
  return (reason !== undefined ? BY_REASON[reason] : undefined) ?? 'X402_VERIFICATION_FAILED'
}

/** Simulation errors that say the transaction can no longer land: its blockhash is too old. */
export function isBlockhashExpired (message: string | undefined): boolean {
  return message !== undefined && /BlockhashNotFound|blockhash not found/i.test(message)
}

/** Simulation errors that are the merchant's problem: the fee payer cannot pay the fee. */
export function isFeePayerUnfunded (message: string | undefined): boolean {
  return message !== undefined && /InsufficientFundsForFee|AccountNotFound|insufficient funds for fee|Attempt to debit an account but found no record of a prior credit/i.test(message)
}
