// The `memo` field of getSignaturesForAddress, as agave's extract_memos builds it: every top-level
// instruction of a memo program becomes "[<byte length>] <text>", joined by "; ".
import type { WireTransaction } from './wire-transaction.js'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

export function decodeMemoText (data: Uint8Array): string | null {
  try {
    return strictUtf8.decode(data)
  } catch {
    return null
  }
}

export function extractMemoField (tx: WireTransaction, memoPrograms: ReadonlySet<string>): string | null {
  const memos: string[] = []
  for (const instruction of tx.instructions) {
    const programId = tx.staticAccountKeys[instruction.programIdIndex]
    if (!memoPrograms.has(programId)) continue
    memos.push(`[${instruction.data.length}] ${decodeMemoText(instruction.data) ?? '(unparsable)'}`)
  }
  return memos.length > 0 ? memos.join('; ') : null
}
