// getTokenSupply, getTokenLargestAccounts, getTokenAccountBalance, getTokenAccountsByOwner.
import { decodeBase58 } from '../encoding/base58.js'
import { invalidParams } from '../rpc-errors.js'
import type { Chain } from '../chain.js'
import type { EngineAccount } from '../svm.js'
import { encodeAccount } from '../encoding/account.js'
import { isTokenProgram, readMint, readTokenAccount, isTokenAccountData, tokenAccountMintBytes } from '../encoding/token-layout.js'
import { uiTokenAmount } from '../encoding/ui-amount.js'
import { withContext, type MethodHandler } from './context.js'
import { checkReadConfig, parseAccountEncoding, parseAddress, parseConfig, parseDataSlice, required } from './params.js'

const LARGEST_ACCOUNTS_LIMIT = 20

function loadMint (chain: Chain, address: string): { account: EngineAccount; decimals: number; supply: bigint } {
  const account = chain.getAccount(address)
  if (!account) throw invalidParams('Invalid param: could not find account')
  const mint = isTokenProgram(account.owner) ? readMint(account.data) : null
  if (!mint) throw invalidParams('Invalid param: not a Token mint')
  return { account, decimals: mint.decimals, supply: mint.supply }
}

function sameBytes (a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Token accounts of a token program, optionally only of one mint and/or one owner. */
function scanTokenAccounts (chain: Chain, programId: string, filter: { mint?: string; owner?: string }) {
  const mintBytes = filter.mint ? decodeBase58(filter.mint) : undefined
  const ownerBytes = filter.owner ? decodeBase58(filter.owner) : undefined
  return chain.engine.getProgramAccounts(programId).filter(({ account }) => {
    if (!isTokenAccountData(account.data)) return false
    if (mintBytes && !sameBytes(tokenAccountMintBytes(account.data), mintBytes)) return false
    if (ownerBytes && !sameBytes(account.data.subarray(32, 64), ownerBytes)) return false
    return readTokenAccount(account.data) !== null
  })
}

export const tokenMethods: Record<string, MethodHandler> = {
  getTokenSupply: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    checkReadConfig(parseConfig(params[1]), chain.slot)
    const mint = loadMint(chain, address)
    return withContext(chain, uiTokenAmount(mint.supply, mint.decimals))
  },

  getTokenAccountBalance: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    checkReadConfig(parseConfig(params[1]), chain.slot)
    const account = chain.getAccount(address)
    if (!account) throw invalidParams('Invalid param: could not find account')
    const token = isTokenProgram(account.owner) ? readTokenAccount(account.data) : null
    if (!token) throw invalidParams('Invalid param: not a Token account')
    const mint = loadMint(chain, token.mint)
    return withContext(chain, uiTokenAmount(token.amount, mint.decimals))
  },

  getTokenLargestAccounts: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    checkReadConfig(parseConfig(params[1]), chain.slot)
    const mint = loadMint(chain, address)
    const holders = scanTokenAccounts(chain, mint.account.owner, { mint: address })
      .map(({ address: tokenAccount, account }) => ({ address: tokenAccount, amount: readTokenAccount(account.data)!.amount }))
      .sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1))
      .slice(0, LARGEST_ACCOUNTS_LIMIT)
    return withContext(
      chain,
      holders.map((holder) => ({ address: holder.address, ...uiTokenAmount(holder.amount, mint.decimals) }))
    )
  },

  getTokenAccountsByOwner: (params, { chain }) => {
    const owner = parseAddress(required(params, 0, '2 or 3 parameters'))
    const filter = parseConfig(required(params, 1, '2 or 3 parameters'))
    const config = parseConfig(params[2])
    checkReadConfig(config, chain.slot)
    const encoding = parseAccountEncoding(config, 'binary')
    const dataSlice = parseDataSlice(config)
    let programId: string
    let mint: string | undefined
    if (typeof filter.mint === 'string') {
      mint = parseAddress(filter.mint)
      const mintAccount = chain.getAccount(mint)
      if (!mintAccount || !isTokenProgram(mintAccount.owner)) throw invalidParams('Invalid param: could not find mint')
      programId = mintAccount.owner
    } else if (typeof filter.programId === 'string') {
      programId = parseAddress(filter.programId)
      if (!isTokenProgram(programId)) throw invalidParams('Invalid param: unrecognized Token program id')
    } else {
      throw invalidParams('Invalid params: expected a filter object with `mint` or `programId`.')
    }
    const read = (key: string) => chain.getAccount(key)
    return withContext(
      chain,
      scanTokenAccounts(chain, programId, { mint, owner }).map(({ address, account }) => ({
        account: encodeAccount(account, encoding, read, dataSlice),
        pubkey: address,
      }))
    )
  },
}
