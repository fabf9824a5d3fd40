import { readFileSync } from 'node:fs'
import t from 'tap'
import { AppError } from '../../../lib/errors/app-error.js'
import { CODE_BY_STATUS, ERROR_CODES, renderErrorTable } from '../../../lib/errors/error-codes.js'

const ERRORS_DOC = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')

t.test("docs/errors.md's table is the one the code uses", async t => {
  const start = ERRORS_DOC.indexOf('| status | code | meaning |')
  t.ok(start > 0, 'docs/errors.md has the error table')
  const table = ERRORS_DOC.slice(start, ERRORS_DOC.indexOf('\n\n', start)).trimEnd()
  t.equal(table, renderErrorTable(), 'paste the output of renderErrorTable() into docs/errors.md when a code changes')
})

t.test("the codes the README's Errors section names are codes of the table", async t => {
  const section = README.slice(README.indexOf('## Errors'), README.indexOf('\n## ', README.indexOf('## Errors') + 1))
  const named = [...section.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(m => m[1])
  t.ok(named.length >= 5, 'the README names the common codes')
  for (const code of named) t.ok(code in ERROR_CODES, `${code} is a code`)
})

t.test('an AppError takes its status from its code', async t => {
  t.equal(new AppError('PAYMENT_IN_PROGRESS', 'busy').statusCode, 409)
  t.equal(new AppError('RPC_UNAVAILABLE', 'down').statusCode, 503)
  t.equal(new AppError('MINT_NOT_FOUND', 'none').statusCode, 404)
})

t.test('framework statuses map to the generic code of that status', async t => {
  t.equal(CODE_BY_STATUS.get(400), 'BAD_REQUEST')
  t.equal(CODE_BY_STATUS.get(404), 'NOT_FOUND')
  t.equal(CODE_BY_STATUS.get(409), 'CONFLICT')
  t.equal(CODE_BY_STATUS.get(503), 'SERVICE_UNAVAILABLE')
  for (const [status, code] of CODE_BY_STATUS) t.equal(ERROR_CODES[code].status, status, `${code} has status ${status}`)
})
