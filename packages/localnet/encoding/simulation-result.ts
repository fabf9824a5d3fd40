// RpcSimulateTransactionResult: the value of simulateTransaction and the `data` of a -32002 preflight error.
import type { Chain, SimulationResult } from '../chain.js'
import type { EngineAccount } from '../svm.js'
import { collectTokenBalances } from './token-balances.js'
import { encodeAccount, type AccountEncoding } from './account.js'
import { renderInnerInstructions, renderReturnData } from './transaction-json.js'

export interface SimulationRenderOptions {
  accounts?: { addresses: string[]; encoding: AccountEncoding };
  innerInstructions?: boolean;
  replacementBlockhash?: { blockhash: string; lastValidBlockHeight: number } | null;
}

export function renderSimulationResult (chain: Chain, simulation: SimulationResult, options: SimulationRenderOptions = {}): Record<string, unknown> {
  const { report, postAccounts } = simulation
  const executed = report.loadedAddresses !== null
  const current = (key: string) => chain.getAccount(key)
  const after = (key: string): EngineAccount | null => (postAccounts.has(key) ? postAccounts.get(key)! : current(key))
  const pre = executed ? report.accountKeys.map(current) : null
  const post = executed ? report.accountKeys.map(after) : null
  return {
    accounts: options.accounts
      ? options.accounts.addresses.map((address) => {
        const account = after(address)
        return account ? encodeAccount(account, options.accounts!.encoding, after) : null
      })
      : null,
    err: report.err,
    fee: executed ? report.fee : null,
    innerInstructions: options.innerInstructions ? renderInnerInstructions(report.innerInstructions) : null,
    loadedAccountsDataSize: report.loadedAccountsDataSize,
    loadedAddresses: report.loadedAddresses,
    logs: report.logs,
    postBalances: post ? post.map((account) => account?.lamports ?? 0n) : null,
    postTokenBalances: post ? collectTokenBalances(post, after) : null,
    preBalances: pre ? pre.map((account) => account?.lamports ?? 0n) : null,
    preTokenBalances: pre ? collectTokenBalances(pre, current) : null,
    replacementBlockhash: options.replacementBlockhash ?? null,
    returnData: renderReturnData(report.returnData),
    unitsConsumed: report.unitsConsumed,
  }
}
