// `token-merchant check-config` against the real parts: the local chain, a SQLite file, an
// address nothing listens on. The pm2 reload it guards is in test/ops/pm2.test.ts.
import { testFolder } from '../fixtures/test-folder.js'
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { checkConfig, formatConfigCheck, maskUrl } from '../../check-config.js'
import { writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { startPaidChain } from '../fixtures/paid-chain.js'
import { createFeePayer } from '../fixtures/x402-merchant.js'
import { build, testEnv, UNREACHABLE_URL } from '../helper.js'
import { PROJECT_ROOT } from '../../project.js'

const LOADER = pathToFileURL(join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href

t.test('check-config: what start-up validates, without starting or writing anything', async t => {
  const paid = await startPaidChain(t)
  const { feePayer, feePayerPath } = await createFeePayer(t, paid)
  // PORT 0: the default 3000 may be anyone's on a shared machine; the port test below takes its own.
  const base = testEnv(t, { ...paid.env, PORT: '0', X402_FEE_PAYER_KEYPAIR_PATH: feePayerPath, PRICE_API_KEY: 'jupiter-secret-key', PRICE_API_URL: 'https://api.example/?key=abc' })
  const outcomes = (report: Awaited<ReturnType<typeof checkConfig>>) => Object.fromEntries(report.checks.map(c => [c.check, c.outcome]))

  t.test('a good configuration: ok, the effective settings printed with secrets masked', async t => {
    const report = await checkConfig({ offline: false }, base)
    t.ok(report.ok, formatConfigCheck(report))
    t.match(outcomes(report), { settings: 'ok', database: 'ok', 'payment rpc': 'ok', 'fee payer': 'ok' })
    t.match(report.checks.find(c => c.check === 'fee payer')?.detail, new RegExp(`${feePayer.address} holds \\d+ lamports`))
    t.ok(report.effective.includes('PRICE_API_KEY=***'), 'an API key is masked')
    t.ok(report.effective.includes('PRICE_API_URL=https://api.example/?***'), 'so is a URL\'s query')
    t.notMatch(formatConfigCheck(report), /jupiter-secret-key|key=abc/)
    t.match(formatConfigCheck(report), /configuration ok$/)
  })

  t.test('an invalid setting: one problem line naming it', async t => {
    const report = await checkConfig({ offline: true }, { ...base, LOG_LEVEL: 'verbose' })
    t.notOk(report.ok)
    t.same(report.checks, [{ check: 'settings', outcome: 'problem', detail: 'LOG_LEVEL: "verbose" is not one of fatal, error, warn, info, debug, trace, silent' }])
  })

  t.test('network problems: an RPC of another cluster, an unreachable RPC or PostgreSQL; --offline skips them', async t => {
    const wrongCluster = await checkConfig({ offline: false }, { ...base, SOLANA_NETWORK: 'devnet', DATA_NETWORK: 'devnet', X402_NETWORK: 'solana-devnet' })
    t.notOk(wrongCluster.ok)
    t.match(wrongCluster.checks.find(c => c.check === 'payment rpc')?.detail, /SOLANA_RPC_URL serves a chain with genesis hash \w+, which is not devnet/)

    const down = await checkConfig({ offline: false }, { ...base, SOLANA_RPC_URL: UNREACHABLE_URL, DATABASE_URL: 'postgres://merchant:pg-secret@127.0.0.1:9/merchant' })
    t.notOk(down.ok)
    t.match(outcomes(down), { 'payment rpc': 'warning', database: 'problem' })

    // As the README says, the service starts with no network: an unreachable RPC alone is no reason to refuse a start or a reload.
    const rpcDown = await checkConfig({ offline: false }, { ...base, SOLANA_RPC_URL: UNREACHABLE_URL })
    t.ok(rpcDown.ok, formatConfigCheck(rpcDown))
    t.match(rpcDown.checks.find(c => c.check === 'payment rpc')?.detail, /is unreachable .*; the service starts and answers payments 503 RPC_UNAVAILABLE/)
    t.notMatch(formatConfigCheck(rpcDown), /would not start/)
    t.match(down.checks.find(c => c.check === 'database')?.detail, /^DATABASE_URL postgres:\/\/merchant:\*\*\*@127\.0\.0\.1:9\/merchant: .*ECONNREFUSED/)
    t.notMatch(formatConfigCheck(down), /pg-secret/, 'the password is never printed')

    const offline = await checkConfig({ offline: true }, { ...base, SOLANA_RPC_URL: UNREACHABLE_URL })
    t.ok(offline.ok)
    t.match(outcomes(offline), { rpc: 'skipped' })
  })

  t.test('a port in use: a problem, as at start-up; held by a running token-merchant: a warning (what a PM2 reload replaces)', async t => {
    const other = createServer()
    await new Promise<void>(resolve => other.listen({ port: 0, host: '127.0.0.1' }, resolve))
    t.teardown(() => { other.close() })
    const taken = (other.address() as AddressInfo).port
    const report = await checkConfig({ offline: true }, { ...base, HOST: '127.0.0.1', PORT: String(taken) })
    t.notOk(report.ok)
    t.match(report.checks.find(c => c.check === 'port'), { outcome: 'problem', detail: `PORT: 127.0.0.1:${taken} is in use by another process (EADDRINUSE); stop it or choose another PORT` })

    const running = await build(t, base)
    const url = new URL(await running.listen({ port: 0, host: '127.0.0.1' }))
    const reload = await checkConfig({ offline: true }, { ...base, HOST: '0.0.0.0', PORT: url.port })
    t.ok(reload.ok, formatConfigCheck(reload))
    t.match(reload.checks.find(c => c.check === 'port'), { outcome: 'warning', detail: /^0\.0\.0\.0:\d+ is held by a running token-merchant \(it answers \/health\/live\): a PM2 reload takes it over/ })

    const free = await checkConfig({ offline: true }, base)
    t.match(free.checks.find(c => c.check === 'port'), { outcome: 'ok', detail: 'PORT 0: a free port is picked at start' })
  })

  t.test('keypairs and PM2\'s kill timeout, as start-up judges them', async t => {
    const dir = testFolder(t)
    const missing = await checkConfig({ offline: true }, { ...base, PAYMENT_ADDRESS: '', CREATE_KEYPAIR: '', MERCHANT_KEYPAIR_PATH: join(dir, 'typo.json') })
    t.match(missing.checks, [{ outcome: 'problem', detail: /^MERCHANT_KEYPAIR_PATH: .*typo\.json does not exist/ }])
    const exposed = join(dir, 'exposed.json')
    writeKeypairFile(exposed)
    chmodSync(exposed, 0o640)
    const production = await checkConfig({ offline: true }, { ...base, X402_FEE_PAYER_KEYPAIR_PATH: exposed, NODE_ENV: 'production' })
    t.match(production.checks, [{ outcome: 'problem', detail: /^X402_FEE_PAYER_KEYPAIR_PATH: .* \(mode 0640\); chmod 600/ }])
    const short = await checkConfig({ offline: true }, { ...base, PM2_KILL_TIMEOUT_MS: '5000' })
    t.notOk(short.ok)
    t.match(short.checks.find(c => c.check === 'pm2')?.detail, /PM2 kill_timeout \(5000 ms\) must be longer .*\(PM2_KILL_TIMEOUT_MS/)
    writeFileSync(join(dir, 'not-json.json'), 'nope', { mode: 0o600 })
    const broken = await checkConfig({ offline: true }, { ...base, X402_FEE_PAYER_KEYPAIR_PATH: join(dir, 'not-json.json') })
    t.match(broken.checks, [{ outcome: 'problem', detail: /^X402_FEE_PAYER_KEYPAIR_PATH: cannot read keypair file/ }])
  })
})

t.test('URLs lose what may be a credential', async t => {
  t.equal(maskUrl('https://mainnet.helius-rpc.com/?api-key=abcdef'), 'https://mainnet.helius-rpc.com/?***')
  t.equal(maskUrl('https://x.solana-mainnet.quiknode.pro/0123456789abcdef0123/'), 'https://x.solana-mainnet.quiknode.pro/***/')
  t.equal(maskUrl('http://user:pw@127.0.0.1:8899'), 'http://user:***@127.0.0.1:8899/')
  t.equal(maskUrl('not a url'), '***')
})

t.test('as a process: token-merchant check-config reads .env from the working directory, exits 1 on a problem', async t => {
  const dir = testFolder(t, { '.env': 'LOG_LEVEL=verbose\nPRICE_API_KEY=dotenv-secret\n' })
  const cli = async (...args: string[]) => await new Promise<{ code: number, stdout: string }>(resolve => {
    execFile(process.execPath, ['--import', LOADER, join(PROJECT_ROOT, 'client', 'cli.ts'), 'check-config', ...args], { cwd: dir, env: { PATH: process.env.PATH } }, (error, stdout) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout })
    })
  })
  const bad = await cli('--offline')
  t.equal(bad.code, 1)
  t.match(bad.stdout, /PROBLEM settings: LOG_LEVEL: "verbose" is not one of/)

  writeFileSync(join(dir, '.env'), 'PRICE_API_KEY=dotenv-secret\nPORT=0\n')
  const good = await cli('--offline', '--json')
  t.equal(good.code, 0, good.stdout)
  const report = JSON.parse(good.stdout) as { ok: boolean, result: { effective: string[] } }
  t.ok(report.ok)
  t.ok(report.result.effective.includes('PRICE_API_KEY=***'), '.env was read, and its secret masked')
  t.notOk(existsSync(join(dir, 'data')), 'nothing was written')
})
