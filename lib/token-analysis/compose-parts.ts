import type { TokenAnalysisBody } from '../../schemas/token-analysis.js'
import type { AnalysisPart, PartInput, PartOutcome } from './analysis-part.js'

const OUT_OF_TIME = 'The analysis ran out of time for this part (its reads did not finish within the paid call\'s budget).'

function failureReason (error: unknown): string {
  // RPC and decoder messages may name internals: the reason says what failed, not how.
  return error instanceof Error && error.name === 'AbortError' ? OUT_OF_TIME : 'The reads of this part failed (the data RPC refused or answered malformed data).'
}

/** One part, never rejecting and never outliving the budget: a late or failed part is `unavailable`. */
function readPart (part: AnalysisPart, input: PartInput): Promise<PartOutcome> {
  const { signal } = input
  if (signal.aborted) return Promise.resolve(part.unavailable(OUT_OF_TIME, input))
  return new Promise(resolve => {
    const onAbort = () => resolve(part.unavailable(OUT_OF_TIME, input))
    signal.addEventListener('abort', onAbort, { once: true })
    part.read(input).then(resolve, (error: unknown) => resolve(part.unavailable(failureReason(error), input)))
      .finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Every part side by side under one budget, in the order given. */
export function readParts (parts: readonly AnalysisPart[], input: PartInput): Promise<PartOutcome[]> {
  return Promise.all(parts.map(part => readPart(part, input)))
}

/** The parts' fields laid over the core answer: objects merge one level deep, so `holders.clusters` joins `holders`. */
export function mergeFields (body: TokenAnalysisBody, outcomes: readonly PartOutcome[]): TokenAnalysisBody {
  const merged: Record<string, unknown> = { ...body }
  for (const { fields } of outcomes) {
    for (const [key, value] of Object.entries(fields)) {
      const present = merged[key]
      const bothObjects = typeof present === 'object' && present !== null && !Array.isArray(present) && typeof value === 'object' && value !== null && !Array.isArray(value)
      merged[key] = bothObjects ? { ...present, ...value } : value
    }
  }
  return merged as TokenAnalysisBody
}
