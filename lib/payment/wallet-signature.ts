import {
  createSignableMessage, getBase58Decoder, getBase58Encoder, getPublicKeyFromAddress, getUtf8Encoder, isMessagePartialSigner, verifySignature,
  type Address, type SignatureBytes, type TransactionSigner
} from '@solana/kit'
import { refusal, type Refusal } from '../contract/refusal.js'
import { isBase58OfLength } from '../solana/base58.js'
import { PAYMENT_HEADERS } from './headers.js'

const WALLET_SIGNATURE_HEADER = PAYMENT_HEADERS.walletSignature

/**
 * Binds a pay-then-prove proof to one request: the payer wallet signs (ed25519) the UTF-8 bytes of
 * `token-merchant proof <transaction signature> <METHOD> <path>`, path without query string, and
 * sends the signature base58-encoded. A transaction signature is public once it lands; this
 * signature is not, so whoever watches the chain cannot redeem someone else's payment.
 */
export function walletSignatureMessage (transactionSignature: string, method: string, path: string): Uint8Array {
  return new Uint8Array(getUtf8Encoder().encode(`token-merchant proof ${transactionSignature} ${method.toUpperCase()} ${path.split('?')[0]}`))
}

/** The buyer's side: the header value for a proof, or undefined when the signer cannot sign messages. */
export async function signProof (signer: TransactionSigner, transactionSignature: string, method: string, path: string): Promise<string | undefined> {
  return await signWalletMessage(signer, walletSignatureMessage(transactionSignature, method, path))
}

/** A wallet's ed25519 signature over `message`, base58; undefined when the signer cannot sign messages. */
export async function signWalletMessage (signer: TransactionSigner, message: Uint8Array): Promise<string | undefined> {
  if (!isMessagePartialSigner(signer)) return undefined
  const [signatures] = await signer.signMessages([createSignableMessage(message)])
  return getBase58Decoder().decode(signatures[signer.address])
}

/** True when `walletSignature` (base58) is `wallet`'s ed25519 signature over `message`: no RPC, no storage. */
export async function isWalletSignatureOver (walletSignature: string, wallet: Address, message: Uint8Array): Promise<boolean> {
  if (!isBase58OfLength(walletSignature, 64)) return false
  const publicKey = await getPublicKeyFromAddress(wallet)
  const signature = new Uint8Array(getBase58Encoder().encode(walletSignature)) as SignatureBytes
  return await verifySignature(publicKey, signature, message)
}

/** The merchant's side: true when `walletSignature` is the payer's signature over this proof and request. */
export async function isValidWalletSignature (walletSignature: string, payer: Address, transactionSignature: string, method: string, path: string): Promise<boolean> {
  return await isWalletSignatureOver(walletSignature, payer, walletSignatureMessage(transactionSignature, method, path))
}

/** The gate's check: a present signature must be valid; an absent one is refused only when required. */
export async function checkWalletSignature (
  walletSignature: string | undefined,
  proof: { signature: string, wallet: Address },
  request: { method: string, path: string },
  required: boolean
): Promise<Refusal | undefined> {
  if (walletSignature === undefined || walletSignature === '') {
    return required
      ? refusal('WALLET_SIGNATURE_REQUIRED', `This merchant binds proofs to requests: add ${WALLET_SIGNATURE_HEADER}, the payer's signature over "token-merchant proof <signature> <METHOD> <path>"`)
      : undefined
  }
  if (await isValidWalletSignature(walletSignature.trim(), proof.wallet, proof.signature, request.method, request.path)) return undefined
  return refusal('WALLET_SIGNATURE_INVALID', `${WALLET_SIGNATURE_HEADER} is not the payer's signature over "token-merchant proof ${proof.signature} ${request.method} ${request.path}"`)
}
