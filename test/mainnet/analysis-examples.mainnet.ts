import { readFileSync } from 'node:fs'
import t from 'tap'
import { analyseFixtures, EXAMPLE_FILE, exampleSource, FIXTURE_MINTS } from '../../scripts/analysis-examples.js'
import { CATALOGUE } from '../../lib/catalogue/catalogue.js'
import { TokenAnalysis } from '../../schemas/token-analysis.js'
import { mainnetFixtures } from './fixtures-folder.js'

// The schema's examples are real answers: analysed here from <fixtures>/mainnet-accounts, which the repository does not hold.
const analyses = await analyseFixtures(mainnetFixtures('mainnet-accounts'))

t.test('the schema\'s example is the analysis of the real USDC fixtures, as the script writes it', async t => {
  t.equal(readFileSync(EXAMPLE_FILE, 'utf8'), exampleSource(analyses), 'run `npm run examples:analysis -- <fixtures folder>` after changing the analysis')
  const [example] = TokenAnalysis.examples as unknown[]
  t.same(example, analyses.USDC)
  t.same(CATALOGUE.product('analyze-token').example, { params: { address: analyses.SILLY.mint }, output: analyses.SILLY }, 'the bazaar extension shows SILLY\'s real answer')
  t.match(example, { authorities: { freeze_authority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar' } }, 'USDC\'s real freeze authority')
})

t.test('docs/token-analysis.md lists the fixtures\' scores as the analysis gives them', async t => {
  const docs = readFileSync(new URL('../../docs/token-analysis.md', import.meta.url), 'utf8')
  for (const [name, analysis] of Object.entries(analyses)) {
    const findings = analysis.risks.map(risk => `${risk.code} ${risk.weight}`).join(', ')
    t.ok(docs.includes(`| ${name} | \`${FIXTURE_MINTS[name as keyof typeof FIXTURE_MINTS]}\` | ${analysis.risk_score} | ${findings} |`), `${name}: ${analysis.risk_score} (${findings})`)
  }
})
