import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_ROOT } from '../../project.js'
import t from 'tap'
import { build } from '../helper.js'
import { testFolder } from '../fixtures/test-folder.js'

const run = promisify(execFile)
const REDOCLY = join(PROJECT_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js')

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

t.test('the document is a contract: servers, license, every status with its codes, headers, examples that validate', async (t) => {
  const app = await build(t, { PUBLIC_BASE_URL: 'https://merchant.example.com/' })
  const document = (await app.inject('/openapi.json')).json()
  t.same(document.servers, [{ url: 'https://merchant.example.com' }], 'servers: PUBLIC_BASE_URL')
  t.equal(document.info.license.name, 'MIT')
  t.same(Object.keys(document.paths).filter(path => path.endsWith('/') && path !== '/'), [], 'only canonical paths')
  t.ok(document.tags.some((tag: { name: string }) => tag.name === 'registry'), 'the registry tag is declared')

  const price = document.paths['/api/fetch-price/{token}'].get
  t.same(Object.keys(price.responses).sort(), ['200', '400', '402', '404', '409', '414', '429', '431', '500', '502', '503', '504', 'default'])
  t.same(document.components.schemas.FetchPriceError409.properties.code.enum ?? document.components.schemas.FetchPriceError409.properties.code.anyOf.map((c: { enum: string[] }) => c.enum[0]),
    ['AMBIGUOUS_SYMBOL', 'PAYMENT_IN_PROGRESS', 'PAYMENT_ALREADY_USED'], '409 lists exactly its codes')
  t.ok(document.components.schemas.Error.required.includes('requestId'), 'requestId is always sent')
  t.notMatch(JSON.stringify(document.components.schemas.PaymentRequired.properties.code), /PAYMENT_IN_PROGRESS/, 'the 402 never carries the 409 code')
  t.ok(price.responses['200'].headers['x-payment-response'], 'the receipt header is documented')
  t.ok(price.responses['503'].headers['retry-after'], 'Retry-After is documented')
  t.ok(price.responses['402'].headers['x-request-id'], 'x-request-id is documented')
  t.same(price.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name).sort(),
    ['payment-signature', 'x-payment', 'x-payment-signature', 'x-payment-wallet', 'x-payment-wallet-signature'], 'the payment headers are header parameters')
  t.notOk(document.components.securitySchemes, 'and no security schemes: a generated client sends the one payment form it is given')
  t.ok(price.responses['402'].headers['payment-required'], 'the x402 v2 challenge header is documented')
  t.ok(price.responses['200'].headers['payment-response'], 'the x402 v2 receipt header is documented')
  t.same(document.components.schemas.FetchPriceError400.properties.code.anyOf?.map((c: { enum: string[] }) => c.enum[0]) ?? document.components.schemas.FetchPriceError400.properties.code.enum,
    ['VALIDATION_ERROR', 'BAD_REQUEST', 'PAYMENT_FORMS_CONFLICT'], '400 lists exactly its codes')
  const health = document.paths['/health/ready'].get.responses
  t.notMatch(JSON.stringify(health), /Default Response/, 'health answers are described')

  const ajv = new Ajv({ strict: false })
  addFormats.default(ajv)
  ajv.addSchema({ ...document, $id: 'openapi.json' })
  let examples = 0
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, { example?: unknown, examples?: unknown[] }>)) {
    for (const example of [...(schema.example === undefined ? [] : [schema.example]), ...(schema.examples ?? [])]) {
      examples++
      const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` })
      t.ok(validate(example), `the example of ${name} validates ${JSON.stringify(validate.errors ?? [])}`)
    }
  }
  t.ok(examples >= 20, `${examples} component examples checked`)
})

t.test('a maintained OpenAPI linter (Redocly, recommended rules) finds no problem', async (t) => {
  for (const env of [{}, { PUBLIC_BASE_URL: 'https://merchant.tokens.dev' }] as Array<Record<string, string>>) {
    const app = await build(t, env)
    const file = join(testFolder(t), 'openapi.json')
    writeFileSync(file, (await app.inject('/openapi.json')).body)
    const { stdout } = await run(process.execPath, [REDOCLY, 'lint', file, '--format=json'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number, warnings: number }, problems: unknown[] }
    t.same(report.totals, { errors: 0, warnings: 0, ignored: 0 }, `servers ${JSON.stringify(env)}: ${JSON.stringify(report.problems)}`)
  }
})

t.test('the document speaks to crawlers and generators: guidance, payment info, no auth, decoded x402 headers, POST /mcp, closed error codes', async (t) => {
  const app = await build(t)
  const document = (await app.inject('/openapi.json')).json()
  t.equal(document.openapi, '3.1.0')
  t.match(document.info['x-guidance'], /PAYMENT-SIGNATURE.*x-payment-signature/s, 'info.x-guidance says how to pay')
  t.equal(document['x-agentcash-guidance'].llmsTxtUrl, '/llms.txt', 'and links /llms.txt')
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { security?: unknown[], tags?: string[], 'x-payment-info'?: unknown }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      t.same(operation.security, [], `${method} ${path}: security: [] on the operation`)
      t.equal(operation['x-payment-info'] !== undefined, operation.tags?.includes('paid') === true, `${method} ${path}: x-payment-info exactly on the paid operations`)
    }
  }
  const price = document.paths['/api/fetch-price/{token}'].get
  t.same(price.responses['402'].headers['payment-required'].schema.contentSchema, { $ref: '#/components/schemas/X402PaymentRequired' }, 'PAYMENT-REQUIRED links its decoded schema')
  t.same(price.responses['200'].headers['payment-response'].schema.contentSchema, { $ref: '#/components/schemas/X402SettleResponse' }, 'PAYMENT-RESPONSE too')
  t.same(price.parameters.find((p: { name: string }) => p.name === 'payment-signature').schema.contentSchema, { $ref: '#/components/schemas/X402PaymentPayload' }, 'and PAYMENT-SIGNATURE')
  for (const status of ['400', '409', '429', '503']) t.ok(price.responses[status].headers['payment-required'], `a paid ${status} documents PAYMENT-REQUIRED (refusals carry it)`)
  t.ok(document.paths['/.well-known/agent.json'].get.responses['304'].headers['x-request-id'], 'the 304 documents x-request-id')

  const defaultCodes = document.components.schemas.FetchPriceErrorDefault.properties.code
  t.ok((defaultCodes.anyOf ?? []).length > 0 || (defaultCodes.enum ?? []).length > 0, 'the default error lists its codes (a closed union)')
  t.match(price.responses.default.description, /METHOD_NOT_ALLOWED/)

  const mcp = document.paths['/mcp'].post
  t.match(mcp, { operationId: 'mcp', security: [], requestBody: { required: true } }, 'POST /mcp is described')
  t.ok(mcp.responses['200'].content['application/json'], 'as a JSON-RPC endpoint')
  t.ok(document.components.schemas.JsonRpcRequest && document.components.schemas.JsonRpcResponse)
  t.notOk(document.paths['/llms.txt'], '/llms.txt is a document, not an operation')
})

t.test('every JSON body in the document, answer or request, is a named component ($ref), POST /mcp included', async (t) => {
  const app = await build(t)
  const document = (await app.inject('/openapi.json')).json() as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>, requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>
    components: { schemas: Record<string, unknown> }
  }
  let bodies = 0
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const contents = [
        ...Object.entries(operation.responses).map(([status, response]) => [status, response.content] as const),
        ['request', operation.requestBody?.content] as const
      ]
      for (const [status, content] of contents) {
        for (const [type, { schema }] of Object.entries(content ?? {})) {
          if (!type.includes('json')) continue
          bodies++
          const ref = typeof schema.$ref === 'string' ? schema.$ref : ''
          t.same(Object.keys(schema), ['$ref'], `${method} ${path} ${status}: the body is a reference, nothing inline`)
          t.ok(ref.startsWith('#/components/schemas/') && document.components.schemas[ref.split('/').at(-1) ?? ''] !== undefined, `${method} ${path} ${status}: ${ref} is a component`)
        }
      }
    }
  }
  t.ok(bodies > 50, `${bodies} JSON bodies checked`)
  t.same(document.paths['/mcp'].post.responses['200'].content?.['application/json'].schema, { $ref: '#/components/schemas/JsonRpcResponseBody' })
})
