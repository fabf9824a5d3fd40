// Key-for-key comparison with real responses (copied, with their sources, into test/fixtures/samples/solana-rpc/): every key path
// (array elements merged) of a real sample must appear in ours, and ours may only add the keys the
// caller names (fields newer nodes add, e.g. context.apiVersion or transactionIndex).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const SAMPLES_DIR = fileURLToPath(new URL('../test/fixtures/samples/solana-rpc/', import.meta.url))

export function loadSample (name: string): any {
  return JSON.parse(readFileSync(`${SAMPLES_DIR}${name}.json`, 'utf8'))
}

export function keyPaths (value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${prefix}[]`, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = `${prefix}.${key}`
      out.add(path)
      keyPaths(child, path, out)
    }
  }
  return out
}

export interface KeyComparison {
  missing: string[];
  unexpected: string[];
}

/** `allowExtra`: path suffixes ours may have beyond the sample (".context.apiVersion" style). */
export function compareKeys (ours: unknown, sample: unknown, allowExtra: string[] = []): KeyComparison {
  const ourKeys = keyPaths(ours)
  const sampleKeys = keyPaths(sample)
  const missing = [...sampleKeys].filter((key) => !ourKeys.has(key))
  const unexpected = [...ourKeys].filter(
    (key) => !sampleKeys.has(key) && !allowExtra.some((extra) => key === extra || key.endsWith(extra) || key.includes(`${extra}.`) || key.includes(`${extra}[]`))
  )
  return { missing, unexpected }
}
