import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Address } from '@solana/kit'
import { readKeypairAddress } from './keypair-file.js'

/** Where the merchant keypair lives unless MERCHANT_KEYPAIR_PATH says otherwise; the one path it is created at unasked. */
export const DEFAULT_MERCHANT_KEYPAIR_PATH = './data/merchant-keypair.json'

/** What start-up would do with one keypair file, decided without touching the disk. */
export type KeypairInspection =
  | { state: 'exists', address: Address, warning?: string }
  | { state: 'to-create' }
  | { state: 'problem', problem: string }

export interface KeypairRules {
  /** The variable that names the file (MERCHANT_KEYPAIR_PATH, X402_FEE_PAYER_KEYPAIR_PATH), for the messages. */
  variable: string
  /** A missing file may be created: the default path, or CREATE_KEYPAIR=true. */
  mayCreate: boolean
  /** Refuse (rather than warn about) a file readable by group or others. */
  strictMode: boolean
}

/** True for the documented default path, however it is spelled (relative to the working directory). */
export function isDefaultKeypairPath (path: string): boolean {
  return resolve(path) === resolve(DEFAULT_MERCHANT_KEYPAIR_PATH)
}

/**
 * Checks a keypair file: valid, and readable by its owner only (a secret key others can read is
 * as good as published). A missing file is created only when the rules allow it: a mistyped path
 * must not become a new wallet nobody backed up.
 */
export function inspectKeypairFile (path: string, rules: KeypairRules): KeypairInspection {
  if (!existsSync(path)) {
    if (rules.mayCreate) return { state: 'to-create' }
    const rule = rules.variable === 'MERCHANT_KEYPAIR_PATH'
      ? `a keypair is created only at ${DEFAULT_MERCHANT_KEYPAIR_PATH} or with CREATE_KEYPAIR=true`
      : 'a keypair of its own is never created'
    return { state: 'problem', problem: `${rules.variable}: ${path} does not exist; ${rule} (write one: token-merchant keygen <file>)` }
  }
  let address: Address
  try {
    address = readKeypairAddress(path)
  } catch (error) {
    return { state: 'problem', problem: `${rules.variable}: ${(error as Error).message}` }
  }
  const mode = statSync(path).mode & 0o777
  if ((mode & 0o077) === 0) return { state: 'exists', address }
  const exposure = `${rules.variable}: ${path} is readable by group or others (mode 0${mode.toString(8)}); chmod 600 ${path}`
  if (rules.strictMode) return { state: 'problem', problem: exposure }
  return { state: 'exists', address, warning: `${exposure} (refused when NODE_ENV=production)` }
}
