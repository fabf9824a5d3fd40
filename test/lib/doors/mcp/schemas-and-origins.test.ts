import { Type } from '@sinclair/typebox'
import t from 'tap'
import { selfContainedSchema } from '../../../../schemas/self-contained.js'
import { createOriginPolicy, parseOriginList } from '../../../../lib/http/origin-policy.js'
import { listTools } from '../../../../lib/tools/tool-catalog.js'
import { CATALOGUE } from '../../../../lib/catalogue/catalogue.js'
import { ref } from '../../../../schemas/ref.js'
import { MODELS } from '../../../../schemas/index.js'
import { TokenAnalysis } from '../../../../schemas/token-analysis.js'
import { toolsListBudget } from '../../../fixtures/tools-list-budget.js'

t.test('selfContainedSchema inlines every model reference, drops $id and TypeBox symbols', async t => {
  const Leaf = Type.Object({ n: Type.Integer() }, { $id: 'Leaf' })
  const Branch = Type.Object({ leaf: ref(Leaf), leaves: Type.Array(ref(Leaf)) }, { $id: 'Branch' })
  const Root = Type.Object({ branch: ref(Branch) }, { $id: 'Root' })
  const schema = selfContainedSchema(Root, [Leaf, Branch])
  t.same(schema, {
    type: 'object',
    required: ['branch'],
    properties: {
      branch: {
        type: 'object',
        required: ['leaf', 'leaves'],
        properties: {
          leaf: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          leaves: { type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } }
        }
      }
    }
  })
  t.equal(Object.getOwnPropertySymbols(schema).length, 0)
  t.throws(() => selfContainedSchema(Root, [Leaf]), /unknown model "Branch"/)
  const Loop = Type.Object({ next: Type.Optional(Type.Ref('Loop')) }, { $id: 'Loop' })
  t.throws(() => selfContainedSchema(Loop, [Loop]), /refers to itself/)
})

t.test('every tool schema of the catalogue resolves against the registered models', async t => {
  const tools = listTools('USDC', MODELS, 'https://merchant.example/openapi.json', CATALOGUE)
  t.equal(tools.length, 5)
  const size = JSON.stringify({ tools }).length
  t.ok(size < toolsListBudget(), `tools/list is ${size} bytes, under ${toolsListBudget()}: a model reads it whole`)
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name} input`)
    t.equal(tool.outputSchema.type, 'object', `${tool.name} output`)
    t.notMatch(JSON.stringify(tool), /"\$(ref|id)"/, `${tool.name}: nothing left to resolve`)
  }
  t.match(tools.find(tool => tool.name === 'fetch_price'), { annotations: { readOnlyHint: true, openWorldHint: true } })
  const analysis = tools.find(tool => tool.name === 'analyze_token')!
  t.equal(analysis.outputSchema.description, `${TokenAnalysis.description as string} With isError: the error body or the x402 PaymentRequired.`)
  t.match((analysis.outputSchema.anyOf as Array<{ description?: string }>)[0].description, /^Full schema: https:\/\/merchant\.example\/openapi\.json#\/components\/schemas\/TokenAnalysis$/,
    'the top level is kept; the rest is in the OpenAPI document')
  for (const tool of tools) t.notMatch(tool.description, /GET |\/api\/|_meta|\/\.well-known/, `${tool.name}: written for a model, no HTTP paths`)
})

t.test('MCP_ALLOWED_ORIGINS: *, empty, or http(s) origins without a path', async t => {
  t.same(parseOriginList(''), [])
  t.equal(parseOriginList(' * '), '*')
  t.same(parseOriginList('https://a.example, http://b.example:8080'), ['https://a.example', 'http://b.example:8080'])
  t.same(parseOriginList('https://a.example/'), ['https://a.example'], 'a trailing slash is still an origin')
  for (const bad of ['https://a.example/path', 'ftp://a.example', 'a.example', 'https://a.example,', 'https://user@a.example']) {
    t.equal(parseOriginList(bad), undefined, bad)
  }
})

t.test('the origin policy: no Origin, loopback, PUBLIC_BASE_URL, the list; nothing else', async t => {
  const allowed = createOriginPolicy({ allowed: ['https://agents.example'], publicBaseUrl: 'https://merchant.example/base' })
  for (const origin of [undefined, 'https://agents.example', 'https://merchant.example', 'http://localhost:5173', 'http://127.0.0.1', 'https://[::1]:8443']) {
    t.ok(allowed(origin), String(origin))
  }
  for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', 'https://merchant.example.evil', 'file://localhost']) {
    t.notOk(allowed(origin), origin)
  }
  t.ok(createOriginPolicy({ allowed: '*' })('https://evil.example'))
})
