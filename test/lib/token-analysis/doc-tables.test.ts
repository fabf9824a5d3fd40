import { readFileSync } from 'node:fs'
import t from 'tap'
import type { TSchema } from '@sinclair/typebox'
import { RISK_RULES } from '../../../lib/token-analysis/risk-weights.js'
import { MODELS } from '../../../schemas/index.js'
import { Market, TokenAnalysis } from '../../../schemas/token-analysis.js'

const DOC = readFileSync(new URL('../../../docs/token-analysis.md', import.meta.url), 'utf8')

/** The rows of the Markdown table whose header line is `header`, as arrays of trimmed cells. */
function tableAfter (header: string): string[][] {
  const lines = DOC.split('\n')
  const start = lines.indexOf(header)
  if (start < 0) throw new Error(`no table headed ${header}`)
  const rows: string[][] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map(cell => cell.trim()))
  }
  return rows
}

const byId = new Map(MODELS.map(model => [model.$id, model]))
function resolve (schema: TSchema): TSchema {
  if (typeof schema.$ref === 'string') return resolve(byId.get(schema.$ref) as TSchema)
  if (Array.isArray(schema.anyOf)) return resolve(schema.anyOf.find((option: TSchema) => option.type !== 'null'))
  return schema
}

/** True when `path` (`a.b[].c`) names a field of the schema. */
function exists (path: string): boolean {
  let schema: TSchema | undefined = resolve(TokenAnalysis)
  for (const part of path.split('.')) {
    const array = part.endsWith('[]')
    const name = array ? part.slice(0, -2) : part
    schema = schema?.properties?.[name]
    if (schema === undefined) return false
    schema = resolve(schema)
    if (array) schema = schema.type === 'array' ? resolve(schema.items) : undefined
  }
  return schema !== undefined
}

t.test('the weight table of docs/token-analysis.md is the code\'s table', async t => {
  const rows = tableAfter('| code | level | weight | issuer | when |')
  const documented = Object.fromEntries(rows.map(([code, level, weight, issuer]) => [code, { level, weight: Number(weight), issuer: issuer === '' ? undefined : Number(issuer) }]))
  const coded = Object.fromEntries(Object.entries(RISK_RULES).map(([code, rule]) => [code, { level: rule.level, weight: rule.weight, issuer: (rule as { issuerWeight?: number }).issuerWeight }]))
  t.same(documented, coded)
})

t.test('the comparison table of docs/token-analysis.md names our fields as the schema has them', async t => {
  const rows = tableAfter('| question | ours | GoPlus | RugCheck | Jupiter |')
  t.ok(rows.length >= 10)
  const ours = rows.flatMap(([, cell]) => [...cell.matchAll(/`([^`]+)`/g)].map(match => match[1]))
  for (const field of ['sell_check.quotes[].route_found', 'market.liquidity_usd', 'market.first_pool_created_at', 'checks']) t.ok(ours.includes(field), `${field} is compared`)
  for (const field of ours) t.ok(exists(field), `${field} is in TokenAnalysis`)
  t.notOk(exists('market.nonexistent'), 'a missing field is told apart')
})

t.test('the market table of docs/token-analysis.md lists every market field, named after its Jupiter field', async t => {
  const rows = tableAfter('| field | Jupiter field |')
  const documented = rows.flatMap(([cell]) => [...cell.matchAll(/`([^`]+)`/g)].map(match => match[1])).sort()
  const fields = Object.keys(Market.properties).filter(name => !['available', 'reason', 'source', 'read_at'].includes(name)).sort()
  t.same(documented, fields)
})
