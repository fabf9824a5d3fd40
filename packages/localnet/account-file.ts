// Account files in the format of `solana account --output json <address>`, as `solana-test-validator
// --account <address> <file>` takes them: { pubkey, account: { lamports, data: [base64, "base64"],
// owner, executable, rentEpoch, space } }.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAddress, type Address } from '@solana/kit'

export interface AccountFixture {
  address: Address;
  account: { lamports: bigint; data: Uint8Array; owner: Address; executable: boolean };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** A field of the file, or why it is wrong: the file names itself in every message. */
function fail (source: string, why: string): never {
  throw new Error(`account file ${source}: ${why}`)
}

function addressField (source: string, value: unknown, name: string): Address {
  if (typeof value !== 'string' || !isAddress(value)) fail(source, `${name} is not a base58 address`)
  return value
}

/**
 * Parses one account file. `pubkey` is the address unless `address` overrides it (the `--account
 * <address> <file>` form); lamports must be a safe integer (rentEpoch is ignored: u64::MAX does not
 * survive JSON.parse, and the chain does not collect rent); `space`, when given, must be the data's length.
 */
export function parseAccountFile (text: string, source: string, address?: string): AccountFixture {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    fail(source, 'not JSON')
  }
  if (typeof parsed !== 'object' || parsed === null) fail(source, 'not an object')
  const { pubkey, account } = parsed as { pubkey?: unknown, account?: unknown }
  if (typeof account !== 'object' || account === null) fail(source, 'no `account` object')
  const { lamports, data, owner, executable, space } = account as Record<string, unknown>
  if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports < 0) fail(source, 'lamports is not a non-negative safe integer')
  if (!Array.isArray(data) || data.length !== 2 || data[1] !== 'base64' || typeof data[0] !== 'string' || !BASE64.test(data[0])) {
    fail(source, 'data is not [<base64>, "base64"]')
  }
  if (executable !== undefined && typeof executable !== 'boolean') fail(source, 'executable is not a boolean')
  const bytes = new Uint8Array(Buffer.from(data[0], 'base64'))
  if (space !== undefined && space !== bytes.length) fail(source, `space ${String(space)} is not the data's ${bytes.length} bytes`)
  return {
    address: addressField(source, address ?? pubkey, address === undefined ? 'pubkey' : 'the given address'),
    account: { lamports: BigInt(lamports), data: bytes, owner: addressField(source, owner, 'owner'), executable: executable ?? false },
  }
}

export function readAccountFile (path: string, address?: string): AccountFixture {
  return parseAccountFile(readFileSync(path, 'utf8'), path, address)
}

/** Every `*.json` file of a directory, like `solana-test-validator --account-dir`, in name order. */
export function readAccountDir (dir: string): AccountFixture[] {
  return readdirSync(dir).filter(name => name.endsWith('.json')).sort().map(name => readAccountFile(join(dir, name)))
}
