import { getWallets } from '@wallet-standard/app'
import type { Wallet, WalletAccount } from '@wallet-standard/base'

// The features this page uses, as wallet-standard and @solana/wallet-standard-features name them.
const CONNECT = 'standard:connect'
const SIGN_TRANSACTION = 'solana:signTransaction'

interface ConnectFeature { connect: (input?: { silent?: boolean }) => Promise<{ accounts: readonly WalletAccount[] }> }
interface SignTransactionFeature {
  signTransaction: (...inputs: Array<{ account: WalletAccount, transaction: Uint8Array, chain?: string }>) => Promise<ReadonlyArray<{ signedTransaction: Uint8Array }>>
}

/** A wallet the page can pay with: it connects and signs Solana transactions (Phantom, Solflare, Backpack, …). */
export const canPay = (wallet: Wallet): boolean => CONNECT in wallet.features && SIGN_TRANSACTION in wallet.features

/** The browser's payable wallets now, and a call whenever one registers or leaves. */
export function watchWallets (changed: (wallets: Wallet[]) => void): Wallet[] {
  const registry = getWallets()
  const payable = () => registry.get().filter(canPay)
  registry.on('register', () => changed(payable()))
  registry.on('unregister', () => changed(payable()))
  return payable()
}

export async function connect (wallet: Wallet): Promise<WalletAccount> {
  const { accounts } = await (wallet.features[CONNECT] as ConnectFeature).connect()
  const account = accounts[0] ?? wallet.accounts[0]
  if (account === undefined) throw new Error(`${wallet.name} connected no account`)
  return account
}

/** Marks a failure of the wallet to sign: the buyer said no (or the wallet could not), and nothing was sent. */
export class NotSigned extends Error {
  constructor (readonly rejected: boolean, message: string) { super(message) }
}

/** The wallet signs the prepared transaction (its fee payer's slot stays empty: the merchant signs at settlement). */
export async function signTransaction (wallet: Wallet, account: WalletAccount, transaction: Uint8Array, chain: string): Promise<Uint8Array> {
  try {
    const [output] = await (wallet.features[SIGN_TRANSACTION] as SignTransactionFeature).signTransaction({ account, transaction, chain })
    if (output === undefined) throw new Error('the wallet returned no transaction')
    return output.signedTransaction
  } catch (error) {
    const { code, message } = error as { code?: unknown, message?: unknown }
    // EIP-1193's 4001, which Solana wallets reuse, or a message that says so.
    const rejected = code === 4001 || /reject|denied|declined|cancel/i.test(String(message))
    throw new NotSigned(rejected, String(message ?? error))
  }
}
