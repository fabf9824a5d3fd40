import t from 'tap'
import { address } from '@solana/kit'
import type { AnalysisPart, PartInput, PartOutcome } from '../../../lib/token-analysis/analysis-part.js'
import { mergeFields, readParts } from '../../../lib/token-analysis/compose-parts.js'
import type { TokenAnalysisBody } from '../../../schemas/token-analysis.js'

const MINT = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')

function inputWith (signal: AbortSignal): PartInput {
  return {
    mint: MINT,
    tokenProgram: address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
    decimals: 6,
    supply: 1_000_000n,
    mintAuthority: null,
    freezeAuthority: null,
    slot: 7n,
    holders: Promise.resolve({ available: false, reason: 'not read here' }),
    market: Promise.resolve({ state: 'not_applicable', reason: 'no price API' }),
    signal
  }
}

/** A part whose read is given by the test, and whose unavailable outcome names the reason it got. */
function part (name: string, read: (input: PartInput) => Promise<PartOutcome>): AnalysisPart {
  return {
    name,
    read,
    unavailable: reason => ({ fields: {}, findings: [], checks: [{ check: name, source: 'chain', status: 'unavailable', reason }] })
  }
}

t.test('parts are read side by side: a finished part gives its outcome, a failing one is unavailable with a reason that names no internals', async t => {
  const done = part('done', async input => ({
    fields: {},
    findings: [{ code: 'TINY_SUPPLY', params: { supply: '1' } }],
    checks: [{ check: 'done', source: 'chain', status: 'passed', slot: Number(input.slot) }]
  }))
  const failing = part('failing', async () => { throw new Error('getProgramAccounts at http://10.0.0.1:8899 said no') })
  const [first, second] = await readParts([done, failing], inputWith(new AbortController().signal))
  t.same(first.checks, [{ check: 'done', source: 'chain', status: 'passed', slot: 7 }])
  t.same(first.findings.map(finding => finding.code), ['TINY_SUPPLY'])
  t.equal(second.checks[0].status, 'unavailable')
  t.notMatch(second.checks[0].reason, /10\.0\.0\.1|getProgramAccounts/)
})

t.test('a part still reading when the budget ends is unavailable at once, and an exhausted budget starts no read', async t => {
  const budget = new AbortController()
  let reads = 0
  const hanging = part('hanging', () => { reads++; return new Promise(() => {}) })
  const pending = readParts([hanging], inputWith(budget.signal))
  budget.abort()
  const [outcome] = await pending
  t.match(outcome.checks[0].reason, /ran out of time/)
  t.equal(reads, 1)
  const [late] = await readParts([hanging], inputWith(budget.signal))
  t.match(late.checks[0].reason, /ran out of time/)
  t.equal(reads, 1, 'no read once the budget is spent')
})

t.test('fields merge over the core answer one level deep: holders.clusters joins holders, new fields are added', async t => {
  const core = { mint: MINT, holders: { available: true, top_10_share: 0.5 } } as unknown as TokenAnalysisBody
  const merged = mergeFields(core, [
    { fields: { holders: { clusters: [] } } as unknown as Partial<TokenAnalysisBody>, findings: [], checks: [] },
    { fields: { liquidity: { available: false } } as unknown as Partial<TokenAnalysisBody>, findings: [], checks: [] }
  ]) as unknown as Record<string, unknown>
  t.same(merged.holders, { available: true, top_10_share: 0.5, clusters: [] })
  t.same(merged.liquidity, { available: false })
  t.equal(merged.mint, MINT)
})
