// meta.preTokenBalances / postTokenBalances: one entry per token account among the transaction's
// account keys, as agave's collect_token_balances records them.
import { readMint, readTokenAccount, isTokenProgram } from './token-layout.js'
import { transactionUiTokenAmount, type UiTokenAmount } from './ui-amount.js'
import type { EngineAccount } from '../svm.js'

export interface UiTransactionTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

export function collectTokenBalances (
  accounts: ReadonlyArray<EngineAccount | null>,
  readAccount: (address: string) => EngineAccount | null
): UiTransactionTokenBalance[] {
  const balances: UiTransactionTokenBalance[] = []
  const decimalsByMint = new Map<string, number | null>()
  accounts.forEach((account, accountIndex) => {
    if (!account || !isTokenProgram(account.owner)) return
    const token = readTokenAccount(account.data)
    if (!token) return
    if (!decimalsByMint.has(token.mint)) {
      const mintAccount = readAccount(token.mint)
      const mint = mintAccount && mintAccount.owner === account.owner ? readMint(mintAccount.data) : null
      decimalsByMint.set(token.mint, mint ? mint.decimals : null)
    }
    const decimals = decimalsByMint.get(token.mint)
    if (decimals == null) return // agave skips balances whose mint cannot be read
    balances.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: account.owner,
      uiTokenAmount: transactionUiTokenAmount(token.amount, decimals),
    })
  })
  return balances
}
