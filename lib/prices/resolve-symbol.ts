import { AppError } from '../errors/app-error.js'
import { symbolKey } from './known-tokens.js'
import type { TokenInfo } from './jupiter-responses.js'

/** A token a symbol may mean, as listed in a 409 AMBIGUOUS_SYMBOL answer. */
export interface SymbolCandidate {
  mint: string
  name: string
  verified: boolean
  liquidity: number | null
}

export type SymbolMatch =
  | { kind: 'found', token: TokenInfo }
  | { kind: 'not-found' }
  | { kind: 'ambiguous', candidates: SymbolCandidate[] }

/** The most liquid candidate wins only when it has at least this many times the runner-up's liquidity. */
export const LIQUIDITY_DOMINANCE = 10
const MAX_CANDIDATES = 10

/**
 * Chooses the token a symbol means among token search results. Only exact symbol matches count
 * (case-insensitive, a leading `$` ignored). Verified tokens beat unverified ones; among what is
 * left, one token wins if it is alone or clearly the most liquid. Anything else is ambiguous:
 * the caller should name the mint.
 */
export function pickSymbolMatch (symbol: string, results: readonly TokenInfo[]): SymbolMatch {
  const key = symbolKey(symbol)
  const exact = [...new Map(results.filter(t => symbolKey(t.symbol) === key).map(t => [t.mint, t])).values()]
  if (exact.length === 0) return { kind: 'not-found' }
  const verified = exact.filter(t => t.verified)
  const ranked = (verified.length > 0 ? verified : exact).sort((a, b) => (b.liquidity ?? 0) - (a.liquidity ?? 0))
  const [top, runnerUp] = ranked
  if (runnerUp === undefined) return { kind: 'found', token: top }
  const topLiquidity = top.liquidity ?? 0
  if (topLiquidity > 0 && topLiquidity >= LIQUIDITY_DOMINANCE * (runnerUp.liquidity ?? 0)) return { kind: 'found', token: top }
  return {
    kind: 'ambiguous',
    candidates: ranked.slice(0, MAX_CANDIDATES).map(t => ({ mint: t.mint, name: t.name, verified: t.verified, liquidity: t.liquidity }))
  }
}

export function tokenNotFound (input: string, why = ''): AppError {
  return new AppError('TOKEN_NOT_FOUND', `No token is known as "${input}"${why}.`, { details: { token: input } })
}

/** The token a match names, or the 404/409 the caller gets. */
export function tokenFromMatch (input: string, match: SymbolMatch): TokenInfo {
  if (match.kind === 'found') return match.token
  if (match.kind === 'not-found') throw tokenNotFound(input)
  throw new AppError('AMBIGUOUS_SYMBOL', `Several tokens use the symbol "${input}"; ask again with one of the candidate mints.`, {
    details: { token: input, candidates: match.candidates }
  })
}
