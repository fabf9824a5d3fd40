import t from 'tap'
import { knownTokenByMint, knownTokenBySymbol, KNOWN_TOKENS, symbolKey } from '../../../lib/prices/known-tokens.js'
import { parseTokenInput, TOKEN_INPUT_PATTERN } from '../../../lib/prices/token-input.js'

const SOL = 'So11111111111111111111111111111111111111112'

t.test('symbols: any case, optional leading $', async t => {
  t.same(parseTokenInput('SOL'), { kind: 'symbol', symbol: 'SOL' })
  t.same(parseTokenInput('wif'), { kind: 'symbol', symbol: 'wif' })
  t.same(parseTokenInput('$WIF'), { kind: 'symbol', symbol: 'WIF' })
  t.same(parseTokenInput('USDC.e'), { kind: 'symbol', symbol: 'USDC.e' })
  t.same(parseTokenInput('W'), { kind: 'symbol', symbol: 'W' })
})

t.test('mints: base58 of 32 bytes', async t => {
  t.same(parseTokenInput(SOL), { kind: 'mint', mint: SOL })
  t.same(parseTokenInput('jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL'), { kind: 'mint', mint: 'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL' })
  // base58 characters of a mint's length, but not 32 bytes once decoded: the pattern lets them
  // through, the parser does not
  for (const raw of ['z'.repeat(44), `${SOL}x`]) {
    t.ok(new RegExp(TOKEN_INPUT_PATTERN).test(raw))
    t.equal(parseTokenInput(raw).kind, 'invalid', raw)
  }
})

t.test('anything else is invalid, and the schema pattern agrees', async t => {
  const pattern = new RegExp(TOKEN_INPUT_PATTERN)
  for (const raw of ['', '$', '$$WIF', 'SO L', 'a/b', 'x'.repeat(21), 'O0Il'.repeat(10), `${SOL}xx`, 'ÉTH']) {
    t.equal(parseTokenInput(raw).kind, 'invalid', raw)
    t.notOk(pattern.test(raw), `pattern refuses ${JSON.stringify(raw)}`)
  }
  for (const raw of ['SOL', '$WIF', 'JitoSOL', SOL]) t.ok(pattern.test(raw), raw)
})

t.test('built-in table: case-insensitive symbols, $ ignored, wSOL alias', async t => {
  t.equal(symbolKey('$wif'), 'WIF')
  t.equal(knownTokenBySymbol('bonk')?.mint, 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')
  t.equal(knownTokenBySymbol('$WIF')?.mint, 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm')
  t.equal(knownTokenBySymbol('JITOSOL')?.symbol, 'JitoSOL')
  t.equal(knownTokenBySymbol('wsol')?.mint, SOL)
  t.equal(knownTokenBySymbol('NOPE'), undefined)
  t.equal(knownTokenByMint(SOL)?.symbol, 'SOL')
  t.equal(new Set(KNOWN_TOKENS.map(k => symbolKey(k.symbol))).size, KNOWN_TOKENS.length, 'no two symbols fold alike')
  for (const token of KNOWN_TOKENS) t.equal(parseTokenInput(token.mint).kind, 'mint', `${token.symbol} mint is a valid address`)
})
