import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { getBase58Decoder, getBase64Encoder, type Address } from '@solana/kit'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { rpcUnavailable } from '../solana/rpc-errors.js'

/** An SPL Token (or Token-2022) multisig account as the token program lays it out: m, n, initialized, 11 signer keys. */
const MULTISIG_SIZE = 355
const MAX_SIGNERS = 11
const SIGNERS_OFFSET = 3
const DEFAULT_KEY = '11111111111111111111111111111111'

/** A token owner that is a multisig: the members whose signatures can move its tokens. */
export interface OwnerMultisig {
  m: number
  n: number
  signers: readonly string[]
}

/** The getAccountInfo (base64) fields read, as a node must send them. */
const AccountAnswer = TypeCompiler.Compile(Type.Object({
  value: Type.Union([
    Type.Null(),
    Type.Object({
      owner: Type.String({ minLength: 32, maxLength: 44 }),
      data: Type.Tuple([Type.String({ maxLength: 1024 }), Type.Literal('base64')])
    })
  ])
}))

/**
 * The multisig an account is, or undefined when it is none: not owned by a token program, not the
 * multisig size, not initialized, or m and n out of the program's bounds (1 ≤ m ≤ n ≤ 11). Pure.
 */
export function decodeOwnerMultisig (program: string, data: Uint8Array): OwnerMultisig | undefined {
  if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM_ADDRESS) return undefined
  if (data.length !== MULTISIG_SIZE) return undefined
  const [m, n, initialized] = data
  if (initialized !== 1 || n < 1 || n > MAX_SIGNERS || m < 1 || m > n) return undefined
  const keys = getBase58Decoder()
  const signers: string[] = []
  for (let i = 0; i < n; i++) {
    const start = SIGNERS_OFFSET + 32 * i
    signers.push(keys.decode(data.subarray(start, start + 32)))
  }
  // The program never stores the default key as a member of an initialized multisig.
  if (signers.includes(DEFAULT_KEY)) return undefined
  return { m, n, signers }
}

/**
 * Reads an account and returns it as a multisig if it is one. A node's answer that is not the shape
 * getAccountInfo has is the RPC's fault (503, the proof untouched), never read as a multisig.
 */
export async function readOwnerMultisig (rpc: SolanaRpc, address: Address, commitment: 'confirmed' | 'finalized'): Promise<OwnerMultisig | undefined> {
  const answer = await rpc.getAccountInfo(address, { encoding: 'base64', commitment }).send() as unknown
  if (!AccountAnswer.Check(answer)) throw rpcUnavailable(new Error('getAccountInfo answer refused: not an account info'))
  const { value } = answer
  if (value === null) return undefined
  return decodeOwnerMultisig(value.owner, new Uint8Array(getBase64Encoder().encode(value.data[0])))
}
