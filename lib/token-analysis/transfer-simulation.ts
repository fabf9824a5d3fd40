import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type GetMultipleAccountsApi,
  type Rpc,
  type SimulateTransactionApi
} from '@solana/kit'
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token-2022'
import type { TokenExtensionBody, TransferSimulationBody } from '../../schemas/token-analysis.js'
import type { HolderRead } from './holders.js'

/** The outcome of simulating a plain transfer of the token on chain. */
export type TransferSimulationRead =
  | { state: 'simulated', slot: number, from: Address, amount: bigint, received: bigint | null }
  | { state: 'failed', slot: number, from: Address, amount: bigint, error: string }
  | { state: 'unavailable', reason: string }
  | { state: 'not_applicable', reason: string }

export type TransferSimulationRpc = Rpc<GetMultipleAccountsApi & SimulateTransactionApi>

/** Owners of this many of the largest accounts are tried, in order, as the payer of the simulated fee. */
const PAYER_CANDIDATES = 5
const FIRST_PAYERS = 2
/** Any blockhash: the node replaces it (replaceRecentBlockhash). */
const PLACEHOLDER_BLOCKHASH = '11111111111111111111111111111111' as Blockhash
const TOKEN_ACCOUNT_OWNER = { start: 32, end: 64 }
const TOKEN_ACCOUNT_AMOUNT = 64
const TRANSFER_INSTRUCTION = 1

function readU64 (bytes: Uint8Array, offset: number): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset, true)
}

/** The program's own words for a failure ("Error: Account is frozen"), and the error object. */
function describeFailure (err: unknown, logs: readonly string[] | null): string {
  const said = (logs ?? []).filter(line => line.startsWith('Program log: ') && !line.startsWith('Program log: Instruction:')).pop()
  const code = JSON.stringify(err, (_, value: unknown) => typeof value === 'bigint' ? Number(value) : value)
  return said === undefined ? code : `${said.slice('Program log: '.length)} (${code})`
}

interface SimulationInput {
  rpc: TransferSimulationRpc
  mint: Address
  programAddress: Address
  decimals: number
  extensions: TokenExtensionBody[]
  holders: HolderRead
  /** Ends the simulation as unavailable; the analysis has a fixed time budget. */
  signal: AbortSignal
}

/**
 * A plain transfer (transferChecked) of one whole token, or the whole balance if smaller, from the
 * largest account to a fresh associated token account, simulated with sigVerify false and
 * replaceRecentBlockhash: nothing is signed or sent. The largest account's owner is named as the
 * transfer's authority (a program-derived owner such as a pool's does not need to sign here); the
 * simulated fee and the new account's rent are paid by the owner of one of the five largest
 * accounts, which must hold SOL. Only a failure of the transfer itself is a finding; anything
 * before it makes the check unavailable. Two RPC round trips (the accounts' owners, then the
 * simulations), three when neither of the first two owners can pay.
 */
export async function simulateTransfer ({ rpc, mint, programAddress, decimals, extensions, holders, signal }: SimulationInput): Promise<TransferSimulationRead> {
  if (!holders.available) return { state: 'unavailable', reason: 'The transfer simulation is unavailable: without holder data there is no account to transfer from.' }
  const hook = extensions.find(extension => extension.type === 'transfer_hook')
  if (hook?.type === 'transfer_hook' && hook.program_id !== null) {
    return { state: 'unavailable', reason: 'The transfer simulation is unavailable: the accounts a transfer hook needs are not resolved by this service.' }
  }
  const listed = holders.accounts.slice(0, PAYER_CANDIDATES)
  const source = listed[0]
  if (source === undefined) return { state: 'not_applicable', reason: 'No account holds the token, so there is nothing to transfer.' }
  try {
    const { value: accounts } = await rpc.getMultipleAccounts(listed.map(entry => entry.address), { encoding: 'base64', commitment: 'confirmed' }).send({ abortSignal: signal })
    const decoder = getAddressDecoder()
    const owners = accounts.map(account => account === null ? null : decoder.decode(Buffer.from(account.data[0], 'base64').subarray(TOKEN_ACCOUNT_OWNER.start, TOKEN_ACCOUNT_OWNER.end)))
    const sourceOwner = owners[0]
    if (sourceOwner == null) return { state: 'unavailable', reason: 'The transfer simulation is unavailable: the largest account could not be read.' }
    const payers = [...new Set(owners.filter((owner): owner is Address => owner !== null))]
    const recipient = (await generateKeyPairSigner()).address
    const [destination] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: programAddress })
    const whole = 10n ** BigInt(decimals)
    const amount = source.amount < whole ? source.amount : whole
    const authority = createNoopSigner(sourceOwner)
    const simulateWith = async (payerAddress: Address) => {
      const payer = payerAddress === sourceOwner ? authority : createNoopSigner(payerAddress)
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        m => setTransactionMessageFeePayer(payerAddress, m),
        m => setTransactionMessageLifetimeUsingBlockhash({ blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n }, m),
        m => appendTransactionMessageInstructions([
          getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: recipient, mint, tokenProgram: programAddress }),
          getTransferCheckedInstruction({ source: source.address, mint, destination, authority, amount, decimals }, { programAddress })
        ], m)
      )
      const wire = getBase64EncodedWireTransaction(compileTransaction(message))
      const { context, value } = await rpc.simulateTransaction(wire, {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: 'confirmed',
        accounts: { addresses: [destination], encoding: 'base64' }
      }).send({ abortSignal: signal })
      return { slot: Number(context.slot), err: value.err, logs: value.logs, after: value.accounts?.[0] ?? null }
    }
    let firstProblem: string | null = null
    // The first two payers side by side; the other three only when neither could pay, so a node
    // sees two simulations per analysis, not five, in the usual case.
    const first = await Promise.all(payers.slice(0, FIRST_PAYERS).map(simulateWith))
    const verdict = (attempts: Array<Awaited<ReturnType<typeof simulateWith>>>): TransferSimulationRead | null => {
      for (const { slot, err, logs, after } of attempts) {
        const failedAt = typeof err === 'object' && err !== null && 'InstructionError' in err ? Number((err as { InstructionError: [number | bigint, unknown] }).InstructionError[0]) : null
        if (err === null) {
          const received = after === null ? null : readU64(Buffer.from(after.data[0], 'base64'), TOKEN_ACCOUNT_AMOUNT)
          return { state: 'simulated', slot, from: source.address, amount, received }
        }
        if (failedAt === TRANSFER_INSTRUCTION) return { state: 'failed', slot, from: source.address, amount, error: describeFailure(err, logs) }
        // The payer could not pay, or the account could not be made: no verdict on the token.
        firstProblem ??= describeFailure(err, logs)
      }
      return null
    }
    const found = verdict(first) ?? verdict(await Promise.all(payers.slice(FIRST_PAYERS).map(simulateWith)))
    if (found !== null) return found
    return { state: 'unavailable', reason: `The transfer simulation is unavailable: none of the largest accounts' owners could pay for it (${firstProblem ?? 'accounts not found'}).` }
  } catch (error) {
    if (signal.aborted) return { state: 'unavailable', reason: 'The transfer simulation is unavailable: it did not finish within the analysis\' time budget.' }
    return { state: 'unavailable', reason: 'The transfer simulation is unavailable: the RPC node failed to simulate it.' }
  }
}

export function transferSimulationBody (read: TransferSimulationRead | undefined): TransferSimulationBody {
  if (read === undefined) return { available: false, reason: 'The analysis does not simulate transfers on this data RPC.' }
  if (read.state === 'unavailable' || read.state === 'not_applicable') return { available: false, reason: read.reason }
  const common = { available: true, slot: read.slot, from_account: read.from, amount: read.amount.toString() }
  if (read.state === 'failed') return { ...common, succeeded: false, error: read.error }
  return {
    ...common,
    succeeded: true,
    ...(read.received === null ? {} : { received: read.received.toString(), fee_charged: (read.amount - read.received).toString() })
  }
}
