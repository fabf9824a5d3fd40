import SwaggerParser from '@apidevtools/swagger-parser'
import t from 'tap'
import { build } from '../helper.js'

t.test('the OpenAPI document is valid, names its models and describes every operation', async (t) => {
  const app = await build(t)
  const res = await app.inject('/openapi.json')
  t.equal(res.statusCode, 200)
  const document = res.json()

  await t.resolves(SwaggerParser.validate(structuredClone(document)), 'valid OpenAPI 3')

  const operations = Object.entries(document.paths as Record<string, Record<string, { operationId?: string, tags?: string[], summary?: string, responses?: Record<string, unknown> }>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, ...op })))
  t.ok(operations.length >= 4, 'operations are listed')
  for (const op of operations) {
    t.ok(op.operationId, `${op.method} ${op.path} has an operationId`)
    t.ok(op.tags !== undefined && op.tags.length > 0, `${op.method} ${op.path} has tags`)
    t.ok(op.summary, `${op.method} ${op.path} has a summary`)
  }
  const ids = operations.map(op => op.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')

  const components = Object.keys(document.components.schemas)
  for (const model of ['Error', 'Manifest', 'PaymentRequired', 'PaymentRequirement']) t.ok(components.includes(model), `component ${model}`)
  t.notOk(components.some(name => name.startsWith('def-')), 'no anonymous def-N components')

  const paid = document.paths['/api/fetch-price/{token}'].get
  t.ok(paid.responses['402'], 'paid routes declare their 402')
  t.match(JSON.stringify(paid.responses['402']), /#\/components\/schemas\/PaymentRequired/)
  t.ok(document.paths['/health/ready'].get.tags.includes('ops'), 'health is tagged ops')
  const analysis = document.paths['/api/analyze-token/{address}'].get
  t.match(analysis.description, /on localnet \(the merchant's data network/, 'the analysis names the data network')
  t.ok(document.components.schemas.TokenAnalysis.required.includes('network'), 'and so does its answer')
  t.notOk(document.paths['/openapi.json'], 'the document itself is hidden')
})

t.test('the docs UI is served', async (t) => {
  const app = await build(t)
  const res = await app.inject('/docs/')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /text\/html/)
})
