import type { PageData } from './page-data.js'

type Child = Node | string

/** A DOM element with text children only (never HTML from an answer). */
export function el (tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  element.append(...children)
  return element
}

interface PriceAnswer { data: { mintSymbol: string, vsTokenSymbol: string, price: number, usdPrice: number, priceChange24h?: number, fetchedAt: string } }
interface AnalysisAnswer { risk_score: number, summary: string, mint: string, risks: Array<{ code: string, level: string, message: string }> }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** The delivered answer as a person reads it: a price as a sentence, an analysis as its summary, score and risks. */
function readable (answer: unknown): HTMLElement {
  if (isRecord(answer) && isRecord(answer.data) && typeof answer.data.price === 'number') {
    const { data } = answer as unknown as PriceAnswer
    const change = data.priceChange24h === undefined ? '' : ` (${data.priceChange24h >= 0 ? '+' : ''}${data.priceChange24h.toFixed(2)}% in 24 h)`
    return el('div', { class: 'answer price' },
      el('p', { class: 'headline' }, `1 ${data.mintSymbol} = ${data.price.toPrecision(6).replace(/\.?0+$/, '')} ${data.vsTokenSymbol}`),
      el('p', {}, `US$${data.usdPrice.toPrecision(6).replace(/\.?0+$/, '')}${change}, fetched ${new Date(data.fetchedAt).toLocaleString()}`))
  }
  if (isRecord(answer) && typeof answer.risk_score === 'number' && typeof answer.summary === 'string') {
    const analysis = answer as unknown as AnalysisAnswer
    const risks = analysis.risks.length === 0
      ? el('p', {}, 'No risks found.')
      : el('ul', { class: 'risks' }, ...analysis.risks.map(risk => el('li', { class: `risk ${risk.level}` }, el('strong', {}, `${risk.level}: `), risk.message)))
    return el('div', { class: 'answer analysis' },
      el('p', { class: 'headline' }, `Risk score ${analysis.risk_score} / 100`),
      el('p', {}, analysis.summary),
      risks)
  }
  return el('div', { class: 'answer' }, el('p', {}, 'The answer is below.'))
}

/** The receipt of PAYMENT-RESPONSE: the transaction, with an explorer link on public clusters only. */
function receipt (data: PageData, header: string | null, redelivered: boolean): HTMLElement {
  const parts: Child[] = [el('h3', {}, 'Receipt')]
  let transaction: string | undefined
  try {
    transaction = (JSON.parse(atob(header ?? '')) as { transaction?: string }).transaction
  } catch {}
  parts.push(el('p', {}, `Paid ${data.price.formatted} ${data.price.symbol} on ${data.network.label}.${redelivered ? ' (Your answer had been lost on the way; this is the same purchase, fetched again.)' : ''}`))
  if (transaction !== undefined) {
    parts.push(el('p', {}, 'Transaction: ', el('code', { id: 'receipt-transaction' }, transaction)))
    if (data.explorerCluster !== null) {
      const query = data.explorerCluster === '' ? '' : `?cluster=${data.explorerCluster}`
      parts.push(el('p', {}, el('a', { href: `https://explorer.solana.com/tx/${transaction}${query}`, rel: 'noopener noreferrer', target: '_blank' }, 'See it on the Solana explorer')))
    }
  }
  return el('div', { class: 'receipt' }, ...parts)
}

/** The whole delivered outcome: the answer, the raw JSON a click away (and downloadable), the receipt. */
export function delivered (data: PageData, body: string, receiptHeader: string | null, redelivered: boolean): HTMLElement {
  let answer: unknown
  try {
    answer = JSON.parse(body)
  } catch {
    answer = body
  }
  const pretty = typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2)
  const download = el('a', { href: URL.createObjectURL(new Blob([pretty], { type: 'application/json' })), download: `${data.product.toLowerCase().replace(/\W+/g, '-')}-${data.item.replace(/\W+/g, '_')}.json` }, 'Download the JSON')
  return el('div', {},
    el('h2', {}, 'Delivered'),
    readable(answer),
    el('details', {}, el('summary', {}, 'Raw JSON'), el('pre', { id: 'raw-json' }, pretty)),
    el('p', {}, download),
    receipt(data, receiptHeader, redelivered))
}
