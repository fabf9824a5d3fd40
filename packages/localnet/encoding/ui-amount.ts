// Token amounts as a node renders them: raw string, decimals, lossy f64 and exact decimal string.

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/** "1234500", 6 -> "1.2345"; trailing zeros dropped like agave's real_number_string_trimmed. */
export function formatUiAmountString (amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString()
  const digits = amount.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}

export function uiTokenAmount (amount: bigint, decimals: number): UiTokenAmount {
  const uiAmountString = formatUiAmountString(amount, decimals)
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}

/**
 * Transaction pre/post token balances go through the ledger's protobuf storage, where a zero f64 becomes
 * "absent": real nodes therefore send uiAmount null for a zero balance there (and only there).
 */
export function transactionUiTokenAmount (amount: bigint, decimals: number): UiTokenAmount {
  const ui = uiTokenAmount(amount, decimals)
  return amount === 0n ? { ...ui, uiAmount: null } : ui
}
