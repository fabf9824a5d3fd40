import type { KeyObject } from 'node:crypto'
import { dirname, join } from 'node:path'
import { getAddressEncoder, type Address } from '@solana/kit'
import { loadKeypairWithNodeKey, resolveMerchantAddress } from '../solana/keypair-file.js'

/** The key that signs offers, receipts and the reputation: never the one that holds the money. */
export interface ReceiptKeys {
  /** Ed25519 private key (node), for signing in place. */
  privateKey: KeyObject
  /** The public key, base58: its DID fragment names it. */
  current: Address
  /** Keys signed with before a rotation, still published so their receipts stay verifiable. */
  retired: Address[]
}

/** Default: next to the merchant keypair, so one folder holds the service's keys. */
export function defaultReceiptKeypairPath (merchantKeypairPath: string): string {
  return join(dirname(merchantKeypairPath), 'receipt-keypair.json')
}

/**
 * Reads RECEIPT_KEYPAIR_PATH (solana-keygen format), creating it when absent with the merchant
 * keypair's file rules (owner-only, written whole or not at all). It moves no money, so creating
 * one never needs CREATE_KEYPAIR.
 */
export async function loadReceiptKeys (path: string, retired: readonly string[] = []): Promise<ReceiptKeys> {
  // Workers starting together agree on one file, as for the merchant keypair.
  resolveMerchantAddress(path)
  const { signer, nodeKey } = await loadKeypairWithNodeKey(path)
  return { privateKey: nodeKey, current: signer.address, retired: retired.filter(key => key !== signer.address) as Address[] }
}

/** The raw 32 bytes of a base58 public key. */
export function publicKeyBytes (key: Address): Uint8Array {
  return new Uint8Array(getAddressEncoder().encode(key))
}
