import { execFile, execFileSync } from 'node:child_process'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import openapiTS, { astToString } from 'openapi-typescript'
import t, { type Test } from 'tap'
import { startPriceApi } from '@token-merchant/localnet/price-api'
import { PROJECT_ROOT } from '../../project.js'
import { proofHeaders, startPaidChain } from '../fixtures/paid-chain.js'
import { build, UNREACHABLE_URL } from '../helper.js'

// What an agent builder does with /openapi.json: generate types with openapi-typescript, write an
// openapi-fetch program against them under `tsc --strict`, run it, and hold every answer it gets to
// the schema documented for that status and content type. @hey-api/openapi-ts must compile too.

const run = promisify(execFile)
const TSC = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const PROGRAM = join(PROJECT_ROOT, 'test', 'fixtures', 'openapi-client', 'program.ts')
const STRICT = { strict: true, noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.Iterable'] }

interface Answer { name: string, path: string, status: number, contentType: string | null, body: unknown }
type OpenApiDocument = { paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }> }

function typeCheck (dir: string, files: string[]) {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: STRICT, files }))
  try {
    execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' })
  } catch (error) {
    throw new Error(`tsc --strict failed:\n${(error as { stdout?: string }).stdout ?? ''}`)
  }
}

/** A validator per operation, status and content type, resolving refs inside the document. */
function validators (document: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ ...document, $id: 'openapi.json' })
  const cache = new Map<string, ValidateFunction>()
  return (path: string, status: number, contentType: string): ValidateFunction => {
    const responses = document.paths[path].get.responses
    const response = responses[String(status)] ?? responses.default
    const mediaType = contentType.split(';')[0].trim()
    const key = `${path} ${status} ${mediaType}`
    if (response?.content?.[mediaType] === undefined) throw new Error(`${key} is not documented`)
    const pointer = `openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/get/responses/${responses[String(status)] === undefined ? 'default' : status}/content/${mediaType.replace('/', '~1')}/schema`
    if (!cache.has(key)) cache.set(key, ajv.compile({ $ref: pointer }))
    return cache.get(key) as ValidateFunction
  }
}

async function runProgram (t: Test, baseUrl: string, input: Record<string, unknown>): Promise<{ document: OpenApiDocument, answers: Answer[] }> {
  const document = await (await fetch(`${baseUrl}/openapi.json`)).json() as OpenApiDocument
  const dir = t.testdir()
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(document as never)))
  copyFileSync(PROGRAM, join(dir, 'program.ts'))
  typeCheck(dir, ['program.ts'])
  // Asynchronously: the app answering the program runs in this process.
  const { stdout: output } = await run(process.execPath, ['--import', 'tsx', join(dir, 'program.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CLIENT_INPUT: JSON.stringify({ baseUrl, ...input }) },
    encoding: 'utf8'
  })
  return { document, answers: JSON.parse(output) as Answer[] }
}

function expectDocumented (t: Test, document: OpenApiDocument, answers: Answer[]) {
  const validate = validators(document)
  for (const answer of answers) {
    const check = validate(answer.path, answer.status, answer.contentType ?? '')
    t.ok(check(answer.body), `${answer.name}: ${answer.status} matches its documented schema ${JSON.stringify(check.errors ?? [])}`)
  }
}

t.test('a generated openapi-fetch client calls every operation, and every answer matches the document', async t => {
  const paid = await startPaidChain(t)
  const priceApi = await startPriceApi()
  t.teardown(() => priceApi.stop())
  const app = await build(t, { ...paid.env, PRICE_API_URL: priceApi.url })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const buyer = await paid.newBuyer(10_000_000n)
  const price = await paid.pay(buyer, 50_000n)
  const analysis = await paid.pay(buyer, 100_000n)

  const { document, answers } = await runProgram(t, baseUrl, {
    mint: paid.mint,
    proofs: { price: { signature: price, wallet: buyer.address }, analysis: { signature: analysis, wallet: buyer.address } }
  })
  const statuses = Object.fromEntries(answers.map(answer => [answer.name, answer.status]))
  t.same(statuses, {
    manifest: 200,
    liveness: 200,
    readiness: 200,
    registry: 200,
    reputation: 200,
    'price unpaid': 402,
    'price malformed': 400,
    'price unknown': 404,
    'price paid': 200,
    'analysis unpaid': 402,
    'analysis malformed': 400,
    'analysis paid': 200
  }, 'every operation was called, paid ones paid for')
  expectDocumented(t, document, answers)
})

t.test('with the RPC stopped, the 503 answers match the document too', async t => {
  const paid = await startPaidChain(t)
  const buyer = await paid.newBuyer(10_000_000n)
  const signature = await paid.pay(buyer, 100_000n)
  const app = await build(t, { ...paid.env, SOLANA_RPC_URL: UNREACHABLE_URL })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const direct = await app.inject({ url: `/api/analyze-token/${paid.mint}`, headers: proofHeaders(signature, buyer.address) })
  t.equal(direct.statusCode, 503, 'the RPC cannot answer')

  const { document, answers } = await runProgram(t, baseUrl, { mint: paid.mint, proofs: { analysis: { signature, wallet: buyer.address } } })
  const analysis = answers.find(answer => answer.name === 'analysis paid')
  t.match(analysis, { status: 503, body: { code: 'RPC_UNAVAILABLE' } })
  expectDocumented(t, document, answers)
})

t.test('@hey-api/openapi-ts generates a client that compiles', async t => {
  const app = await build(t)
  const document = (await app.inject('/openapi.json')).json()
  const dir = t.testdir()
  await generateHeyApiClient({ input: document, output: join(dir, 'client'), plugins: ['@hey-api/client-fetch'], logs: { level: 'silent' } } as never)
  writeFileSync(join(dir, 'use.ts'), "import { analyzeToken } from './client/index.js'\nexport const call = analyzeToken\n")
  typeCheck(dir, ['use.ts'])
  t.pass('the generated client type-checks under --strict')
})
