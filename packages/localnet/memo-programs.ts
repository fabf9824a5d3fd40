// The SPL Memo programs are not shipped by LiteSVM. solana-bankrun ships both deployed builds in its
// genesis; we read their ELF bytes once from a bankrun context and keep them in localnet/.cache/.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { address, type Address } from '@solana/kit'

export const MEMO_V1_PROGRAM = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo')
export const MEMO_V3_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')
/** Default address of @solana-program/memo 0.15 (p-memo). We run the MemoSq build there so a default client works. */
export const MEMO_P_PROGRAM = address('Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH')
/** Both memo builds were deployed with the non-upgradeable BPF loader v2. */
export const BPF_LOADER_2 = address('BPFLoader2111111111111111111111111111111111')

/** Programs whose top-level instructions a node's getSignaturesForAddress turns into the `memo` field (agave extract_memos). */
export const MEMO_PROGRAMS_IN_SIGNATURE_LIST: ReadonlySet<string> = new Set([MEMO_V1_PROGRAM, MEMO_V3_PROGRAM])

export interface MemoProgramBytes {
  v1: Uint8Array;
  v3: Uint8Array;
}

const CACHE_DIR = fileURLToPath(new URL('./.cache/', import.meta.url))
const CACHE_FILES = { v1: `${CACHE_DIR}spl-memo-v1.so`, v3: `${CACHE_DIR}spl-memo-v3.so` }

let loaded: Promise<MemoProgramBytes> | undefined

/** Memo program ELF bytes, from the disk cache or (first run) from solana-bankrun. */
export function loadMemoPrograms (): Promise<MemoProgramBytes> {
  loaded ??= readCache() ?? readFromBankrun().then(writeCache)
  return loaded
}

function readCache (): Promise<MemoProgramBytes> | undefined {
  if (!existsSync(CACHE_FILES.v1) || !existsSync(CACHE_FILES.v3)) return undefined
  const v1 = readFileSync(CACHE_FILES.v1)
  const v3 = readFileSync(CACHE_FILES.v3)
  if (!isElf(v1) || !isElf(v3)) return undefined
  return Promise.resolve({ v1, v3 })
}

function writeCache (programs: MemoProgramBytes): MemoProgramBytes {
  mkdirSync(CACHE_DIR, { recursive: true })
  for (const key of ['v1', 'v3'] as const) {
    // write-then-rename so two test processes starting together never read half a file
    const temp = `${CACHE_FILES[key]}.${process.pid}.tmp`
    writeFileSync(temp, programs[key])
    renameSync(temp, CACHE_FILES[key])
  }
  return programs
}

interface BankrunAccount { data: Uint8Array; executable: boolean }
interface BankrunModule {
  start(programs: unknown[], accounts: unknown[]): Promise<{ banksClient: { getAccount(key: unknown): Promise<BankrunAccount | null> } }>;
}

async function readFromBankrun (): Promise<MemoProgramBytes> {
  // solana-bankrun is CommonJS and takes web3.js PublicKeys; resolve web3.js through bankrun itself.
  const require = createRequire(import.meta.url)
  const bankrunPath = require.resolve('solana-bankrun')
  const bankrun = require(bankrunPath) as BankrunModule
  const { PublicKey } = createRequire(bankrunPath)('@solana/web3.js') as { PublicKey: new (key: string) => unknown }
  const context = await bankrun.start([], [])
  const read = async (programId: Address): Promise<Uint8Array> => {
    const account = await context.banksClient.getAccount(new PublicKey(programId))
    if (!account || !account.executable || !isElf(account.data)) {
      throw new Error(`solana-bankrun has no executable ${programId}`)
    }
    return Uint8Array.from(account.data)
  }
  return { v1: await read(MEMO_V1_PROGRAM), v3: await read(MEMO_V3_PROGRAM) }
}

function isElf (bytes: Uint8Array): boolean {
  return bytes.length > 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46
}
