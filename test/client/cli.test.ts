import { execFile } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { getAddressDecoder, type Address } from '@solana/kit'
import t from 'tap'
import { parseInvocation } from '../../client/cli/arguments.js'
import { classify, EXIT, UsageError } from '../../client/cli/exit-codes.js'
import { run } from '../../client/cli/run.js'
import { BuyerError, discover } from '../../client/index.js'
import { startDemoEnvironment } from '../../demo/environment.js'
import { PRICE_PATH } from '@token-merchant/localnet/price-api'
import { InvalidRegistrationError } from '../../lib/registry/registration-memo.js'
import { PROJECT_ROOT } from '../../project.js'
import { testFolder } from '../fixtures/test-folder.js'

const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href
const CLI = join(PROJECT_ROOT, 'client', 'cli.ts')

interface Run {
  code: number | null
  stdout: string
  stderr: string
  /** stdout parsed, for --json runs. */
  json: any
}

function parsed (code: number | null, stdout: string, stderr: string): Run {
  let json: unknown
  try {
    json = JSON.parse(stdout)
  } catch {}
  return { code, stdout, stderr, json }
}

/** The CLI as a user runs it: its own node process (a second or so each, so used sparingly). */
function spawnCli (...args: string[]): Promise<Run> {
  return new Promise(resolve => {
    execFile(process.execPath, ['--import', LOADER, CLI, ...args], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH } }, (error, stdout, stderr) => {
      resolve(parsed(error === null ? 0 : (error.code as number), stdout, stderr))
    })
  })
}

/** The same command line, run in this process with the streams captured. */
async function cli (...args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await run(args, { stdout: text => { stdout += text }, stderr: text => { stderr += text } })
  return parsed(code, stdout, stderr)
}

t.test('arguments: each command\'s positionals and options, checked before anything runs', async t => {
  t.match(parseInvocation(['buy', 'http://m.example/api/fetch-price/SOL', '--keypair', 'k.json', '--max-price', '5', '--json']), {
    kind: 'command', command: 'buy', json: true, args: { url: 'http://m.example/api/fetch-price/SOL', keypair: 'k.json', 'max-price': '5' }
  })
  t.match(parseInvocation(['--help']), { kind: 'help', text: /^usage: token-merchant <command>/ })
  t.match(parseInvocation(['register', '-h']), { kind: 'help', text: /register --keypair <file> --name <agent name> --manifest <url>/ })
  t.throws(() => parseInvocation(['buy', 'http://m.example/x']), new UsageError('buy needs --keypair'))
  t.throws(() => parseInvocation(['buy', 'http://m.example/x', '--keypair', 'k.json', '--max-price', '-5']),
    { message: /^--max-price needs a value, got "-5": no value here is negative or starts with "-"/ }, 'a negative amount is named, not "ambiguous"')
  t.throws(() => parseInvocation(['manifest']), /manifest takes <url>, got none/)
  t.throws(() => parseInvocation(['keygen', 'a.json', 'b.json']), /keygen takes <file>, got a.json b.json/)
  t.throws(() => parseInvocation(['registry', 'http://m.example', '--keypair', 'k.json']), /Unknown option '--keypair'/)
  t.throws(() => parseInvocation(['--json']), /a command is required/)
})

t.test('help: the global one, one command\'s with an example (help <cmd> and <cmd> --help), --version', async t => {
  const global = parseInvocation(['help'])
  t.match(global, { kind: 'help', text: /token-merchant help <command>/ })
  for (const argv of [['help', 'buy'], ['buy', '--help'], ['buy', 'http://m.example/x', '-h']]) {
    const help = parseInvocation(argv)
    t.match(help, { kind: 'help', text: /^usage: token-merchant buy <url> --keypair <file>/ }, argv.join(' '))
    t.match(help, { text: /\n\nexample:\n {2}token-merchant buy http:\/\/localhost:3000\/api\/fetch-price\/SOL --keypair buyer.json --max-price 50000$/ })
    t.notMatch(help, { text: /commands:/ }, 'not the global help')
  }
  for (const command of ['registry', 'manifest', 'reputation', 'register', 'keygen', 'check-config']) {
    t.match(parseInvocation(['help', command]), { text: new RegExp(`example:\n {2}token-merchant ${command}`) }, `${command} has an example`)
  }
  t.throws(() => parseInvocation(['help', 'nosuch']), /unknown command "nosuch"/)
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
  t.same(parseInvocation(['--version']), { kind: 'help', text: `token-merchant ${version}` })
  const printed = await cli('--version')
  t.equal(printed.code, 0)
  t.equal(printed.stdout, `token-merchant ${version}\n`)
  t.match(parseInvocation(['check-config', '--offline']), { kind: 'command', command: 'check-config', args: { offline: 'true' } })
})

t.test('exit codes by error', async t => {
  const codeOf = (error: unknown) => classify(error).exitCode
  t.equal(codeOf(new UsageError('x')), EXIT.USAGE)
  t.equal(codeOf(new InvalidRegistrationError(['agent must not be empty'])), EXIT.USAGE)
  t.equal(codeOf(new BuyerError('HTTP_UNREACHABLE', 'x')), EXIT.NETWORK)
  t.equal(codeOf(new BuyerError('REQUEST_FAILED', 'x', { status: 503 })), EXIT.NETWORK, 'a 5xx before payment is the network\'s')
  t.equal(codeOf(new BuyerError('REQUEST_FAILED', 'x', { status: 404 })), EXIT.REQUEST_REFUSED)
  t.equal(codeOf(new BuyerError('SPENDING_LIMIT', 'x')), EXIT.SPENDING_LIMIT)
  t.equal(codeOf(new BuyerError('PAYMENT_UNCONFIRMED', 'x')), EXIT.PAID_NOT_DELIVERED)
  t.equal(codeOf(new BuyerError('DELIVERY_FAILED', 'x', { signature: 's', serverCode: 'PAYMENT_ALREADY_USED' })), EXIT.REQUEST_REFUSED,
    'a payment the merchant says is spent is not "paid, retry": retrying would loop')
  t.equal(codeOf(new BuyerError('RECIPIENT_ACCOUNT_MISSING', 'x')), EXIT.NOT_PAID)
  t.same(classify(new Error('boom')), { exitCode: EXIT.INTERNAL, code: 'INTERNAL_ERROR' })
})

const env = await startDemoEnvironment({ merchantEnv: { PRICE_CACHE_TTL_MS: '0' } })
t.teardown(() => env.stop())
const { net, merchant } = env
const priceUrl = `${merchant.url}/api/fetch-price/SOL`
const keyfile = join(testFolder(t), 'buyer.json')

/** The buyer's address, from its keypair file (bytes 32 to 63 are the public key). */
function buyerAddress (): Address {
  return getAddressDecoder().decode(Uint8Array.from(JSON.parse(readFileSync(keyfile, 'utf8')) as number[]).subarray(32))
}

async function signaturesOf (address: Address): Promise<string[]> {
  return (await net.rpc.getSignaturesForAddress(address).send()).map(s => s.signature)
}

t.test('as a process: usage error 1, keygen 0 with a 0600 file', async t => {
  const [none, created] = await Promise.all([spawnCli(), spawnCli('keygen', keyfile, '--json')])
  t.equal(none.code, 1)
  t.match(none.stderr, /^token-merchant: USAGE: a command is required\nusage: token-merchant <command>/)
  t.notMatch(none.stderr, /\n\s+at /, 'no stack trace')

  t.equal(created.code, 0, created.stderr)
  t.same(created.json, { ok: true, command: 'keygen', result: { path: keyfile, address: buyerAddress() } })
  t.equal(statSync(keyfile).mode & 0o777, 0o600)
  const bytes = readFileSync(keyfile, 'utf8')

  const again = await cli('keygen', keyfile)
  t.equal(again.code, 1)
  t.match(again.stderr, /exists; keygen never overwrites a keypair file/)
  const missing = await cli('buy', priceUrl, '--keypair', `${keyfile}.missing`)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /keypair file .*\.missing does not exist \(write one: token-merchant keygen <file>\)/, 'a missing keypair says how to make one, as the server does')
  t.equal(readFileSync(keyfile, 'utf8'), bytes, 'the file is unchanged')

  await net.airdrop(buyerAddress(), 2_000_000_000n)
  await net.mintTo(env.mint, buyerAddress(), 1_000_000n)
})

t.test('as a process: buy exits 3 under the spending guard (nothing sent), 0 with --json data and receipt (standard x402 flow by default)', async t => {
  const address = buyerAddress()
  const before = await signaturesOf(address)
  const refused = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--max-price', '49999', '--json')
  t.equal(refused.code, 3)
  t.match(refused.json, { ok: false, command: 'buy', exitCode: 3, error: { code: 'SPENDING_LIMIT', price: '50000', maxPrice: '49999' } })
  t.equal(refused.stderr, '', '--json writes nothing else')
  t.same(await signaturesOf(address), before, 'no transaction')

  const bought = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--max-price', '50000', '--json')
  t.equal(bought.code, 0, bought.stdout)
  const { result } = bought.json
  t.match(result, { status: 200, amountPaid: '50000', data: { data: { mintSymbol: 'SOL' } }, receipt: { success: true, payer: address } })
  t.equal(result.receipt.transaction, result.signature)
  t.equal(result.flow, 'x402', 'the merchant offers the standard flow, so the client uses it')
  t.same(result.steps.map((s: { type: string }) => s.type),
    ['request', 'payment-required', 'requirements-accepted', 'flow', 'x402-payment-sent', 'delivered'])
  t.same((await signaturesOf(address)).filter(s => !before.includes(s)), [result.signature], 'one transaction')

  const proof = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--flow', 'proof', '--json')
  t.equal(proof.code, 0, proof.stdout)
  t.equal(proof.json.result.flow, 'proof')
  t.same(proof.json.result.steps.map((s: { type: string }) => s.type),
    ['request', 'payment-required', 'requirements-accepted', 'flow', 'payment-sent', 'payment-confirmed', 'proof-sent', 'delivered'])

  const overCap = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--max-price', '49999', '--flow', 'x402', '--json')
  t.equal(overCap.code, 3, 'the spending cap applies to the standard flow too')
  const human = await cli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url)
  t.match(human.stderr, /✓ flow: standard x402/, 'the CLI says which flow it used')
})

t.test('as a process: the standard flow with a failing upstream settles nothing: exit 2 (the merchant\'s upstream failed), no transaction', async t => {
  const before = await signaturesOf(buyerAddress())
  env.priceApi.fail({ mode: 'error', status: 500, path: PRICE_PATH })
  const failed = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--retries', '0', '--json')
  env.priceApi.fail(null)
  t.match(failed.json, { ok: false, error: { code: 'REQUEST_FAILED', status: 502, serverCode: 'UPSTREAM_ERROR' } })
  t.equal(failed.code, 2)
  t.same(await signaturesOf(buyerAddress()), before, 'nothing was paid')
})

t.test('as a process: buy exits 4 when paid but not delivered and prints the signature to retry with', async t => {
  env.priceApi.fail({ mode: 'error', status: 500, path: PRICE_PATH })
  const failed = await spawnCli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--retries', '0', '--flow', 'proof')
  env.priceApi.fail(null)
  t.equal(failed.code, 4)
  t.equal(failed.stdout, '')
  t.match(failed.stderr, /→ paid 0.05 USDC with one transferChecked/, 'human progress on stderr')
  t.match(failed.stderr, /DELIVERY_FAILED: paid with \w+, but .* did not deliver \(502 UPSTREAM_ERROR/)
  const signature = /--signature (\w+)\n$/.exec(failed.stderr)?.[1] ?? ''
  t.match(failed.stderr, `retry the delivery without paying again:\n  token-merchant buy ${priceUrl} --keypair ${keyfile} --rpc ${net.url} --signature ${signature}`)

  const before = await signaturesOf(buyerAddress())
  const resumed = await cli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--signature', signature, '--flow', 'proof', '--json')
  t.equal(resumed.code, 0, resumed.stdout)
  t.match(resumed.json.result, { status: 200, amountPaid: '0', signature, receipt: { transaction: signature } })
  t.same(await signaturesOf(buyerAddress()), before, 'no second payment')

  const spent = await cli('buy', priceUrl, '--keypair', keyfile, '--rpc', net.url, '--signature', signature, '--flow', 'proof')
  t.equal(spent.code, EXIT.REQUEST_REFUSED, 'the same signature again: refused, not "paid, retry"')
  t.match(spent.stderr, /PAYMENT_ALREADY_USED/)
  t.match(spent.stderr, /the merchant says this payment has already bought a delivery/)
  t.notMatch(spent.stderr, /retry the delivery|--signature/, 'no advice to run the same command again')
  t.notMatch(spent.stderr, /\.;/, 'no double punctuation')
})

t.test('manifest, reputation, unreachable merchant, refused request', async t => {
  const manifest = await cli('manifest', merchant.url, '--json')
  t.equal(manifest.code, 0)
  t.match(manifest.json.result, { payment_address: merchant.signer.address, services: [{ name: 'fetch-price', price: 50000 }, { name: 'analyze-token', price: 100000 }] })
  const text = await cli('manifest', merchant.url)
  t.match(text.stdout, /fetch-price\s+GET \/api\/fetch-price\/:token\s+0.05 USDC \(50000 base units\)/)

  const reputation = await cli('reputation', merchant.url, '--window', '24h')
  t.equal(reputation.code, 0)
  t.match(reputation.stdout, /window 24h/)
  t.match(reputation.stdout, /success rate\s+\d/)

  const unreachable = await cli('manifest', 'http://127.0.0.1:1', '--json')
  t.equal(unreachable.code, 2)
  t.match(unreachable.json, { ok: false, command: 'manifest', exitCode: 2, error: { code: 'HTTP_UNREACHABLE', message: /cannot reach http:\/\/127.0.0.1:1\/.well-known\/agent.json/ } })

  const unknownToken = await cli('buy', `${merchant.url}/api/fetch-price/NOSUCHTOKEN`, '--keypair', keyfile, '--rpc', net.url, '--json')
  t.equal(unknownToken.code, 5)
  t.match(unknownToken.json.error, { code: 'REQUEST_FAILED', status: 404, serverCode: 'TOKEN_NOT_FOUND' })
  const unknownText = await cli('buy', `${merchant.url}/api/fetch-price/NOSUCHTOKEN`, '--keypair', keyfile, '--rpc', net.url)
  t.match(unknownText.stderr, /No token is known as "NOSUCHTOKEN"[^.]*; nothing was paid/, 'the merchant\'s sentence, then ours, without ".;"')

  const noRpc = await cli('buy', priceUrl, '--keypair', keyfile)
  t.equal(noRpc.code, 1)
  t.match(noRpc.stderr, /the merchant runs on "localnet", which has no public RPC endpoint: give --rpc <url>/)
})

t.test('register, then find the agent with registry', async t => {
  const address = buyerAddress()
  const manifestUrl = `${merchant.url}/.well-known/agent.json`
  const invalid = await cli('register', '--keypair', keyfile, '--name', '   ', '--manifest', manifestUrl, '--rpc', net.url, '--json')
  t.equal(invalid.code, 1)
  t.match(invalid.json.error, { code: 'INVALID_REGISTRATION', message: /agent must not be empty/ })

  const registered = await cli('register', '--keypair', keyfile, '--name', 'cli-agent', '--manifest', manifestUrl, '--rpc', net.url, '--json')
  t.equal(registered.code, 0, registered.stdout)
  t.match(registered.json.result, { signature: String, wallet: address, name: 'cli-agent', manifest: manifestUrl })

  const deadline = Date.now() + 20_000
  while ((await discover(merchant.url, { wallet: address })).total === 0 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 200))
  const registryLog = merchant.process.output().stdout.split('\n').filter(line => line.includes('"component":"registry"'))
  t.equal((await discover(merchant.url, { wallet: address })).total, 1, `listed within 20 s (registry log: ${registryLog.join('\n')})`)
  const again = await cli('register', '--keypair', keyfile, '--name', 'cli-agent-2', '--manifest', manifestUrl, '--rpc', net.url)
  t.equal(again.code, 0, again.stderr)
  t.match(again.stderr, /merchants read the chain again every REGISTRY_REFRESH_SECONDS \(30 s by default\): `token-merchant registry <merchant url>` may take that long to list "cli-agent-2"/)

  const listed = await cli('registry', merchant.url, '--wallet', address)
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /: [12] agents? \(chain read/)
  t.match(listed.stdout, new RegExp(`cli-agent\\s+${manifestUrl}\\s+wallet ${address}.*${registered.json.result.signature as string}`))
})

t.test('register with a wallet that holds no SOL: says so, and how much, before sending anything', async t => {
  const empty = join(testFolder(t), 'empty.json')
  t.equal((await cli('keygen', empty)).code, 0)
  const refused = await cli('register', '--keypair', empty, '--name', 'broke-agent', '--manifest', `${merchant.url}/.well-known/agent.json`, '--rpc', net.url)
  t.equal(refused.code, EXIT.NOT_PAID)
  t.match(refused.stderr, /^token-merchant: INSUFFICIENT_FUNDS: the wallet \w+ needs SOL to pay the registration fee: it holds 0 SOL, the fee is 0.000005 SOL \(5000 lamports\); fund it/)
  t.notMatch(refused.stderr, /cause/, 'not the RPC library\'s message')
})
