import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { getBase64Encoder, type Address } from '@solana/kit'
import type { SolanaRpc } from '../solana/rpc-client.js'
import { rpcUnavailable } from '../solana/rpc-errors.js'
import { decodeTokenMultisig } from '../solana/token-multisig.js'

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
  const multisig = decodeTokenMultisig(program as Address, data)
  // The program never stores the default key as a member of an initialized multisig.
  if (multisig === null || multisig.signers.includes(DEFAULT_KEY as Address)) return undefined
  return { m: multisig.threshold, n: multisig.signers.length, signers: multisig.signers }
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
