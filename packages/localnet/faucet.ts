// The genesis-funded faucet behind requestAirdrop and Localnet.airdrop: every airdrop is a real,
// recorded System transfer signed by the faucet key.
import { generateKeyPairSigner, lamports as toLamports, type Address, type KeyPairSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import type { Chain, SubmitResult } from './chain.js'
import { buildSignedTransaction } from './tx-builder.js'
import { parseWireTransaction } from './encoding/wire-transaction.js'

const SYSTEM_PROGRAM = '11111111111111111111111111111111' as Address
/** 500 million SOL: enough for any test run, far below u64::MAX. */
const FAUCET_GENESIS_LAMPORTS = 500_000_000n * 1_000_000_000n

export class Faucet {
  private constructor (
    private readonly chain: Chain,
    readonly signer: KeyPairSigner
  ) {}

  static async create (chain: Chain): Promise<Faucet> {
    const signer = await generateKeyPairSigner()
    chain.engine.setAccount(signer.address, { lamports: FAUCET_GENESIS_LAMPORTS, data: new Uint8Array(0), owner: SYSTEM_PROGRAM, executable: false })
    return new Faucet(chain, signer)
  }

  /** Sends the transfer; the result says whether it landed and how it ended. */
  async airdrop (recipient: Address, amount: bigint): Promise<SubmitResult> {
    const instruction = getTransferSolInstruction({ source: this.signer, destination: recipient, amount: toLamports(amount) })
    const bytes = await buildSignedTransaction([instruction], { feePayer: this.signer, lifetime: this.chain.latestBlockhash(), version: 'legacy' })
    return this.chain.submit(parseWireTransaction(bytes))
  }
}
