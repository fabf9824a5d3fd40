import t from 'tap'
import { AppError } from '../../../lib/errors/app-error.js'
import type { TokenInfo } from '../../../lib/prices/jupiter-responses.js'
import { LIQUIDITY_DOMINANCE, pickSymbolMatch, tokenFromMatch } from '../../../lib/prices/resolve-symbol.js'

const A = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
const B = 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'
const C = 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC'

const token = (mint: string, symbol: string, verified: boolean, liquidity: number | null): TokenInfo =>
  ({ mint, symbol, name: `${symbol} ${mint.slice(0, 1)}`, decimals: 6, verified, liquidity })

t.test('only exact symbol matches count, case and $ folded', async t => {
  t.same(pickSymbolMatch('giga', [token(A, 'GIGACHAD', true, 9e9), token(B, 'GIGA', false, 10)]),
    { kind: 'found', token: token(B, 'GIGA', false, 10) })
  t.same(pickSymbolMatch('$wif', [token(A, '$WIF', true, 1)]).kind, 'found')
  t.same(pickSymbolMatch('NOPE', [token(A, 'NOPED', true, 1)]), { kind: 'not-found' })
  t.same(pickSymbolMatch('NOPE', []), { kind: 'not-found' })
  t.same(pickSymbolMatch('X', [token(A, 'X', false, 1), token(A, 'X', false, 1)]).kind, 'found', 'one mint listed twice is one token')
})

t.test('verified beats unverified, whatever the liquidity', async t => {
  const match = pickSymbolMatch('PERP', [token(A, 'PERP', false, 1e9), token(B, 'PERP', true, 5), token(C, 'perp', false, 1e8)])
  t.same(match, { kind: 'found', token: token(B, 'PERP', true, 5) })
})

t.test('then liquidity, only when one token clearly dominates', async t => {
  const dominant = pickSymbolMatch('PERP', [token(A, 'PERP', true, 100), token(B, 'PERP', true, 100 * LIQUIDITY_DOMINANCE)])
  t.same(dominant, { kind: 'found', token: token(B, 'PERP', true, 1000) })
  const unverified = pickSymbolMatch('PERP', [token(A, 'PERP', false, 5e6), token(B, 'PERP', false, null)])
  t.same(unverified, { kind: 'found', token: token(A, 'PERP', false, 5e6) }, 'unknown liquidity counts as none')
})

t.test('still ambiguous: candidates, most liquid first, verified ones only when any', async t => {
  const match = pickSymbolMatch('PERP', [
    token(A, 'PERP', true, 100), token(B, 'PERP', true, 300), token(C, 'PERP', false, 9e9)
  ])
  t.same(match, {
    kind: 'ambiguous',
    candidates: [
      { mint: B, name: 'PERP B', verified: true, liquidity: 300 },
      { mint: A, name: 'PERP A', verified: true, liquidity: 100 }
    ]
  })
  t.equal(pickSymbolMatch('X', [token(A, 'X', false, null), token(B, 'X', false, null)]).kind, 'ambiguous', 'no liquidity known')

  const error = t.throws(() => tokenFromMatch('$perp', match)) as AppError
  t.ok(error instanceof AppError)
  t.match(error, { statusCode: 409, code: 'AMBIGUOUS_SYMBOL', details: { token: '$perp', candidates: [{ mint: B }, { mint: A }] } })
})

t.test('tokenFromMatch: found and not found', async t => {
  t.same(tokenFromMatch('GIGA', { kind: 'found', token: token(A, 'GIGA', true, 1) }), token(A, 'GIGA', true, 1))
  t.throws(() => tokenFromMatch('NOPE', { kind: 'not-found' }), { statusCode: 404, code: 'TOKEN_NOT_FOUND', details: { token: 'NOPE' } })
})
