// getBalance, getAccountInfo, getMultipleAccounts.
import { invalidParams } from '../rpc-errors.js'
import { encodeAccount } from '../encoding/account.js'
import { withContext, type MethodHandler } from './context.js'
import { checkReadConfig, parseAccountEncoding, parseAddress, parseConfig, parseDataSlice, required } from './params.js'

const MAX_MULTIPLE_ACCOUNTS = 100

export const accountMethods: Record<string, MethodHandler> = {
  getBalance: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    checkReadConfig(parseConfig(params[1]), chain.slot)
    return withContext(chain, chain.getAccount(address)?.lamports ?? 0n)
  },

  getAccountInfo: (params, { chain }) => {
    const address = parseAddress(required(params, 0, '1 or 2 parameters'))
    const config = parseConfig(params[1])
    checkReadConfig(config, chain.slot)
    const encoding = parseAccountEncoding(config, 'binary')
    const dataSlice = parseDataSlice(config)
    const account = chain.getAccount(address)
    const read = (key: string) => chain.getAccount(key)
    return withContext(chain, account ? encodeAccount(account, encoding, read, dataSlice) : null)
  },

  getMultipleAccounts: (params, { chain }) => {
    const keys = required(params, 0, '1 or 2 parameters')
    if (!Array.isArray(keys)) throw invalidParams('Invalid params: invalid type: expected a sequence of addresses.')
    if (keys.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`)
    const addresses = keys.map(parseAddress)
    const config = parseConfig(params[1])
    checkReadConfig(config, chain.slot)
    const encoding = parseAccountEncoding(config, 'base64')
    const dataSlice = parseDataSlice(config)
    const read = (key: string) => chain.getAccount(key)
    return withContext(
      chain,
      addresses.map((address) => {
        const account = chain.getAccount(address)
        return account ? encodeAccount(account, encoding, read, dataSlice) : null
      })
    )
  },
}
