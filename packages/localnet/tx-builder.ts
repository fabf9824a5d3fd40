// Builds and signs a transaction with @solana/kit, exactly as a wallet or the service would.
import {
  addSignersToTransactionMessage,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit'

export interface BuildOptions {
  feePayer: TransactionSigner;
  signers?: TransactionSigner[];
  version?: 0 | 'legacy';
  lifetime: { blockhash: string; lastValidBlockHeight: number | bigint };
}

export async function buildSignedTransaction (instructions: readonly Instruction[], options: BuildOptions): Promise<Uint8Array> {
  const message = pipe(
    createTransactionMessage({ version: options.version ?? 0 }),
    (m) => setTransactionMessageFeePayerSigner(options.feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: options.lifetime.blockhash as Blockhash, lastValidBlockHeight: BigInt(options.lifetime.lastValidBlockHeight) },
        m
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => addSignersToTransactionMessage(options.signers ?? [], m)
  )
  const signed = await signTransactionMessageWithSigners(message)
  return Uint8Array.from(getTransactionEncoder().encode(signed))
}
