import type { Wallet, WalletAccount } from '@wallet-standard/base'
import { delivered, el } from './outcome.js'
import { formatTokenAmount } from '../lib/solana/token-amount.js'
import { readPageData } from './page-data.js'
import { chosenRequirement, fromBase64, MerchantRefusal, newPaymentId, pay, paymentHeader, prepare, refusalOf, type Prepared } from './payment.js'
import { connect, NotSigned, signTransaction, watchWallets } from './wallets.js'

/**
 * The payment page's script: find a wallet, connect it, have the merchant prepare the payment,
 * let the wallet sign it, and repeat the request with it. It talks to this origin only.
 */
const data = readPageData()
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const connectButton = byId<HTMLButtonElement>('connect')
const payButton = byId<HTMLButtonElement>('pay')
const againButton = byId<HTMLButtonElement>('again')
const state = byId<HTMLParagraphElement>('state')
const choice = byId<HTMLSelectElement>('wallet-choice')
const choiceLabel = byId<HTMLLabelElement>('wallet-choice-label')
const status = byId<HTMLParagraphElement>('status')
const outcome = byId<HTMLElement>('outcome')
const price = `${data.price.formatted} ${data.price.symbol}`

let wallets: Wallet[] = []
let connected: { wallet: Wallet, account: WalletAccount } | undefined

function say (message: string, tone: 'info' | 'problem' | 'done' = 'info') {
  status.textContent = message
  status.className = tone
}

function show (content: HTMLElement) {
  outcome.replaceChildren(content)
  outcome.hidden = false
  outcome.focus()
}

function listWallets (found: Wallet[]) {
  if (connected !== undefined) return
  wallets = found
  choice.replaceChildren(...found.map((wallet, index) => el('option', { value: String(index) }, wallet.name)))
  choice.hidden = choiceLabel.hidden = found.length < 2
  connectButton.disabled = found.length === 0
  if (found.length === 0) say('No Solana wallet found in this browser. Install one (Phantom, Solflare, Backpack…) and reload this page.', 'problem')
  else say(found.length === 1 ? `${found[0].name} found. Connect it to pay ${price}.` : `Choose a wallet and connect it to pay ${price}.`)
}

const notEnough = (prepared: Prepared) =>
  `Not enough ${prepared.symbol}: you have ${formatTokenAmount(BigInt(prepared.balance), prepared.decimals)}, the price is ${formatTokenAmount(BigInt(prepared.price), prepared.decimals)}.`

function refused (error: unknown) {
  if (error instanceof MerchantRefusal) {
    const charged = error.status === 402 ? ' Nothing was charged.' : ''
    say(`The merchant refused: ${error.code}: ${error.message}.${charged}`, 'problem')
  } else {
    say(error instanceof Error ? error.message : String(error), 'problem')
  }
}

connectButton.addEventListener('click', () => {
  const wallet = wallets[choice.hidden ? 0 : Number(choice.value)]
  if (wallet === undefined) return
  connectButton.disabled = true
  say(`Connecting ${wallet.name}…`)
  connect(wallet).then(async account => {
    connected = { wallet, account }
    connectButton.hidden = choice.hidden = choiceLabel.hidden = true
    payButton.hidden = false
    say(`Connected ${account.address}. Checking your ${data.price.symbol} balance…`)
    const prepared = await prepare(data, account.address)
    payButton.disabled = false
    payButton.focus()
    if (prepared.enough) say(`Connected ${account.address}: you have ${formatTokenAmount(BigInt(prepared.balance), prepared.decimals)} ${prepared.symbol}. Press "Pay ${price}" to pay.`)
    else say(notEnough(prepared), 'problem')
  }).catch((error: unknown) => {
    if (connected === undefined) {
      connectButton.disabled = false
      say(`${wallet.name} did not connect: ${error instanceof Error ? error.message : String(error)}`, 'problem')
    } else {
      payButton.disabled = false
      refused(error)
    }
  })
})

async function purchase (wallet: Wallet, account: WalletAccount): Promise<void> {
  chosenRequirement(data)
  say('The merchant is preparing the payment…')
  // Prepared afresh for each purchase: a recent blockhash, a new memo, and the balance checked before the wallet is asked.
  const prepared = await prepare(data, account.address)
  if (!prepared.enough) {
    say(notEnough(prepared), 'problem')
    return
  }
  say(`Approve the payment of ${price} in ${wallet.name}…`)
  let signed: Uint8Array
  try {
    signed = await signTransaction(wallet, account, fromBase64(prepared.transaction), data.network.walletChain)
  } catch (error) {
    if (error instanceof NotSigned && error.rejected) say('You rejected the payment in your wallet; nothing was charged.', 'problem')
    else say(`Your wallet did not sign: ${(error as Error).message}. Nothing was charged.`, 'problem')
    return
  }
  say('Paying: the merchant checks your payment, prepares the answer, then settles on chain…')
  const response = await pay(paymentHeader(data, signed, newPaymentId()), message => say(message))
  if (!response.ok) throw await refusalOf(response)
  const body = await response.text()
  say(`Paid ${price}. Your answer is below.`, 'done')
  show(delivered(data, body, response.headers.get('payment-response'), response.headers.get('x-payment-redelivered') === 'true'))
  paid()
}

/** Bought: the page says so, and paying again takes a deliberate second step ("Buy again", then "Pay"). */
function paid () {
  state.textContent = 'Paid'
  payButton.hidden = true
  againButton.hidden = false
  againButton.focus()
}

againButton.addEventListener('click', () => {
  state.textContent = 'Payment required'
  againButton.hidden = true
  payButton.hidden = false
  payButton.focus()
  say(`A new purchase: press "Pay ${price}" to pay ${price} again.`)
})

payButton.addEventListener('click', () => {
  if (connected === undefined) return
  payButton.disabled = true
  purchase(connected.wallet, connected.account).catch(refused).finally(() => { payButton.disabled = false })
})

listWallets(watchWallets(listWallets))
