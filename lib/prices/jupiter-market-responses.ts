import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { MalformedResponseError } from './jupiter-responses.js'

/**
 * TypeBox shapes of the Jupiter answers the analysis reads: a token record of `/tokens/v2/search`
 * (MintInformation in jup-ag/docs openapi-spec/tokens/v2/tokens.yaml) and the `/swap/v1/quote`
 * answer (QuoteResponse in openapi-spec/swap/v1/swap.yaml). Only the fields used are described;
 * the spec marks most of them nullable, and an absent field is read as null.
 */
const OptionalNullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))
const FiniteNumber = Type.Number()

const SwapStats = Type.Object({
  priceChange: OptionalNullable(FiniteNumber),
  buyVolume: OptionalNullable(FiniteNumber),
  sellVolume: OptionalNullable(FiniteNumber),
  numBuys: OptionalNullable(FiniteNumber),
  numSells: OptionalNullable(FiniteNumber),
  numTraders: OptionalNullable(FiniteNumber)
})

export const JupiterTokenRecordSchema = Type.Object({
  id: Type.String(),
  decimals: Type.Optional(Type.Number()),
  usdPrice: OptionalNullable(FiniteNumber),
  liquidity: OptionalNullable(FiniteNumber),
  holderCount: OptionalNullable(FiniteNumber),
  mcap: OptionalNullable(FiniteNumber),
  fdv: OptionalNullable(FiniteNumber),
  organicScore: OptionalNullable(FiniteNumber),
  organicScoreLabel: OptionalNullable(Type.String()),
  isVerified: OptionalNullable(Type.Boolean()),
  tags: OptionalNullable(Type.Array(Type.String())),
  firstPool: OptionalNullable(Type.Object({ id: Type.Optional(Type.String()), createdAt: Type.Optional(Type.String()) })),
  stats24h: OptionalNullable(SwapStats),
  audit: OptionalNullable(Type.Object({
    isSus: OptionalNullable(Type.Boolean()),
    topHoldersPercentage: OptionalNullable(FiniteNumber),
    devMints: OptionalNullable(FiniteNumber)
  }))
})
export type JupiterTokenRecord = Static<typeof JupiterTokenRecordSchema>

const TokenSearchAnswer = Type.Array(Type.Unknown())
const tokenRecord = TypeCompiler.Compile(JupiterTokenRecordSchema)
const tokenSearchAnswer = TypeCompiler.Compile(TokenSearchAnswer)

/**
 * The record of `mint` in a `/tokens/v2/search?query=<mint>` answer, or null when Jupiter does not
 * list it. Other records are ignored; the one asked for must match its shape.
 */
export function parseTokenRecord (body: unknown, mint: string): JupiterTokenRecord | null {
  if (!tokenSearchAnswer.Check(body)) throw new MalformedResponseError('search answer is not an array')
  const entry = body.find(item => typeof item === 'object' && item !== null && (item as { id?: unknown }).id === mint)
  if (entry === undefined) return null
  if (!tokenRecord.Check(entry)) {
    const first = tokenRecord.Errors(entry).First()
    throw new MalformedResponseError(`token record of ${mint} is malformed at ${first?.path ?? '/'}: ${first?.message ?? 'unknown'}`)
  }
  return entry
}

const RoutePlanStep = Type.Object({
  swapInfo: Type.Object({
    ammKey: Type.String(),
    label: Type.Optional(Type.String()),
    inputMint: Type.String(),
    outputMint: Type.String(),
    inAmount: Type.String(),
    outAmount: Type.String()
  }),
  percent: OptionalNullable(Type.Number())
})

export const JupiterQuoteSchema = Type.Object({
  inputMint: Type.String(),
  inAmount: Type.String({ pattern: '^[0-9]+$' }),
  outputMint: Type.String(),
  outAmount: Type.String({ pattern: '^[0-9]+$' }),
  swapMode: Type.Union([Type.Literal('ExactIn'), Type.Literal('ExactOut')]),
  priceImpactPct: Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$' }),
  routePlan: Type.Array(RoutePlanStep),
  contextSlot: Type.Optional(Type.Integer({ minimum: 0 }))
})
export type JupiterQuote = Static<typeof JupiterQuoteSchema>

/** Jupiter's refusal of a quote: HTTP 400 with `{ error, errorCode }`. */
const QuoteRefusal = Type.Object({ error: Type.String(), errorCode: Type.Optional(Type.String()) })
const quoteAnswer = TypeCompiler.Compile(JupiterQuoteSchema)
const quoteRefusal = TypeCompiler.Compile(QuoteRefusal)

/** The error codes Jupiter gives when nothing can sell the token (no pool, or no pool it can route). */
export const NO_ROUTE_CODES = new Set(['COULD_NOT_FIND_ANY_ROUTE', 'TOKEN_NOT_TRADABLE', 'NO_ROUTES_FOUND'])

export type QuoteOutcome = { routeFound: true, quote: JupiterQuote } | { routeFound: false, errorCode: string, error: string }

/** A 200 quote, or a 400 refusal saying no route exists. Any other 400 is malformed for us. */
export function parseQuote (status: number, body: unknown): QuoteOutcome {
  if (status === 200) {
    if (!quoteAnswer.Check(body)) {
      const first = quoteAnswer.Errors(body).First()
      throw new MalformedResponseError(`quote answer is malformed at ${first?.path ?? '/'}: ${first?.message ?? 'unknown'}`)
    }
    return { routeFound: true, quote: body }
  }
  if (quoteRefusal.Check(body) && NO_ROUTE_CODES.has(body.errorCode ?? '')) {
    return { routeFound: false, errorCode: body.errorCode ?? '', error: body.error }
  }
  throw new MalformedResponseError(`quote refused with HTTP ${status}: ${JSON.stringify(body).slice(0, 200)}`)
}
