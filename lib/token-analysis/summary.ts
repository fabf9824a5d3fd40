import type { RiskBody } from '../../schemas/token-analysis.js'
import { MAX_SCORE } from './risk-weights.js'

/** How many findings the summary spells out; the rest are counted. */
const MAIN_RISKS = 3

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Plain sentences: the heaviest findings first, in their own words, then how many more there
 * are, then the score and where it comes from. When holder, market or sell data was unavailable
 * the summary says so even if heavier findings crowd it out of the first sentences.
 */
export function summarise (riskScore: number, risks: RiskBody[]): string {
  const weighted = risks.filter(risk => risk.weight > 0)
  if (weighted.length === 0) {
    return `No risk found in the on-chain data: mint and freeze authorities are revoked, no extension gives anyone power over holders' tokens, the metadata is immutable and no account holds a large share of the supply. Risk score ${riskScore} of ${MAX_SCORE}.`
  }
  const main = weighted.slice(0, MAIN_RISKS)
  for (const unavailable of weighted.filter(risk => risk.code.endsWith('_UNAVAILABLE'))) {
    if (!main.includes(unavailable)) main.push(unavailable)
  }
  const others = weighted.length - main.length
  const sentences = main.map(risk => risk.message)
  if (others > 0) sentences.push(`${plural(others, 'smaller finding')} ${others === 1 ? 'is' : 'are'} listed in risks.`)
  const total = weighted.reduce((sum, risk) => sum + risk.weight, 0)
  const capped = total > MAX_SCORE ? `, capped at ${MAX_SCORE}` : ''
  sentences.push(`Risk score ${riskScore} of ${MAX_SCORE} (${MAX_SCORE} is the riskiest): the weights of ${plural(weighted.length, 'finding')} add up to ${total}${capped}.`)
  return sentences.join(' ')
}
