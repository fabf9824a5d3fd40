import { getProgramDerivedAddress, type Address } from '@solana/kit'
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError, DEFAULT_REGISTRY_ADDRESS, inspectConfig, loadConfig, REGISTRY_SEED } from '../../config.js'
import { MEMO_V2_PROGRAM } from '../../lib/solana/networks.js'
import { readKeypairAddress, resolveMerchantAddress, writeKeypairFile } from '../../lib/solana/keypair-file.js'
import { testFolder } from '../fixtures/test-folder.js'

function problemsOf (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

t.test('defaults: devnet, its public RPC and USDC, a keypair created with mode 0600 when asked', async (t) => {
  const dir = testFolder(t)
  const config = loadConfig({ MERCHANT_KEYPAIR_PATH: join(dir, 'kp.json'), CREATE_KEYPAIR: 'true' })
  t.equal(config.PORT, 3000)
  t.equal(config.HOST, '0.0.0.0')
  t.equal(config.network, 'devnet')
  t.equal(config.rpcUrl, 'https://api.devnet.solana.com')
  t.equal(config.paymentMint, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
  t.equal(config.DATABASE_PATH, './data/merchant.db')
  t.ok(config.merchantKeypairCreated)
  t.equal(statSync(join(dir, 'kp.json')).mode & 0o777, 0o600)
  t.equal(readKeypairAddress(join(dir, 'kp.json')), config.paymentAddress)
  const again = loadConfig({ MERCHANT_KEYPAIR_PATH: join(dir, 'kp.json') })
  t.equal(again.paymentAddress, config.paymentAddress, 'the same keypair on the next start')
  t.notOk(again.merchantKeypairCreated)
})

t.test('env values are converted and validated, one problem line per variable', async (t) => {
  const config = loadConfig({ PORT: '8080', PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx', TRUST_PROXY: '1', PAYMENT_MAX_AGE_SECONDS: '60' })
  t.equal(config.PORT, 8080)
  t.equal(config.trustProxy, 1)
  t.equal(config.PAYMENT_MAX_AGE_SECONDS, 60)
  t.same(problemsOf({
    PORT: 'eighty',
    SOLANA_NETWORK: 'devnet2',
    PAYMENT_MINT: 'EPjFWdd5AufqSSqeM2qN1xzy',
    PUBLIC_BASE_URL: 'merchant.example',
    RATE_LIMIT_MAX: '-1',
    PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'
  }), [
    'PORT: "eighty" is not a whole number from 0 to 65535',
    'SOLANA_NETWORK: "devnet2" is not one of devnet, mainnet-beta, testnet, localnet',
    'PAYMENT_MINT: "EPjFWdd5AufqSSqeM2qN1xzy" is not a base58-encoded 32-byte Solana address',
    'PUBLIC_BASE_URL: "merchant.example" is not an absolute http(s) URL',
    'RATE_LIMIT_MAX: -1 is not a whole number from 0 to 1000000'
  ])
  t.same(problemsOf({ SOLANA_NETWORK: 'localnet', PAYMENT_ADDRESS: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx' }),
    ['SOLANA_RPC_URL: required when SOLANA_NETWORK is localnet'])
})

t.test('the data network: mainnet-beta beside a public cluster, localnet beside localnet, one endpoint when both are one cluster', async (t) => {
  const PAYMENT_ADDRESS = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'
  const data = (env: Record<string, string>) => {
    const { dataNetwork, dataRpcUrl, dataRpcTimeoutMs } = loadConfig({ PAYMENT_ADDRESS, ...env })
    return { dataNetwork, dataRpcUrl, dataRpcTimeoutMs }
  }
  const mainnet = { dataNetwork: 'mainnet-beta', dataRpcUrl: 'https://api.mainnet-beta.solana.com', dataRpcTimeoutMs: 10_000 }
  t.same(data({}), mainnet, 'devnet payments (the default): mainnet data from its public endpoint')
  t.same(data({ SOLANA_NETWORK: 'testnet', SOLANA_RPC_URL: 'http://testnet.example' }), mainnet)
  t.same(data({ SOLANA_NETWORK: 'mainnet-beta', SOLANA_RPC_URL: 'https://rpc.example/key' }),
    { ...mainnet, dataRpcUrl: 'https://rpc.example/key' }, 'all mainnet: the payment endpoint serves both roles')
  t.same(data({ SOLANA_NETWORK: 'localnet', SOLANA_RPC_URL: 'http://127.0.0.1:8899' }),
    { dataNetwork: 'localnet', dataRpcUrl: 'http://127.0.0.1:8899', dataRpcTimeoutMs: 10_000 }, 'all local: self-contained')
  t.same(data({ DATA_NETWORK: 'devnet', SOLANA_RPC_URL: 'http://devnet.example' }),
    { dataNetwork: 'devnet', dataRpcUrl: 'http://devnet.example', dataRpcTimeoutMs: 10_000 }, 'the same cluster shares SOLANA_RPC_URL')
  t.same(data({ DATA_RPC_URL: 'https://mainnet.example', DATA_RPC_TIMEOUT_MS: '2500', RPC_TIMEOUT_MS: '4000' }),
    { dataNetwork: 'mainnet-beta', dataRpcUrl: 'https://mainnet.example', dataRpcTimeoutMs: 2500 }, 'its own URL and timeout')
  t.equal(data({ RPC_TIMEOUT_MS: '4000' }).dataRpcTimeoutMs, 4000, 'the timeout follows RPC_TIMEOUT_MS when unset')
  t.same(data({ DATA_RPC_URL: '' }), mainnet, 'an empty value counts as unset')

  t.same(problemsOf({ PAYMENT_ADDRESS, DATA_NETWORK: 'localnet' }), ['DATA_RPC_URL: required when DATA_NETWORK is localnet'])
  t.same(problemsOf({ PAYMENT_ADDRESS, DATA_NETWORK: 'moonnet', DATA_RPC_URL: 'rpc.example', DATA_RPC_TIMEOUT_MS: '5' }), [
    'DATA_NETWORK: "moonnet" is not one of devnet, mainnet-beta, testnet, localnet',
    'DATA_RPC_URL: "rpc.example" is not an absolute http(s) URL',
    'DATA_RPC_TIMEOUT_MS: 5 is not a whole number from 100 to 120000'
  ])
  t.same(problemsOf({ PAYMENT_ADDRESS, SOLANA_NETWORK: 'localnet' }), ['SOLANA_RPC_URL: required when SOLANA_NETWORK is localnet'],
    'a local data network without any URL is reported once, as the missing SOLANA_RPC_URL')
})

t.test('a keypair file whose halves do not match is refused', async (t) => {
  const dir = testFolder(t)
  const path = join(dir, 'kp.json')
  writeKeypairFile(path)
  const bytes = JSON.parse(await import('node:fs').then(fs => fs.readFileSync(path, 'utf8'))) as number[]
  bytes[40] = (bytes[40] + 1) % 256
  writeFileSync(join(dir, 'tampered.json'), JSON.stringify(bytes))
  t.match(problemsOf({ MERCHANT_KEYPAIR_PATH: join(dir, 'tampered.json') })[0], /MERCHANT_KEYPAIR_PATH: keypair file .* does not match its secret key/)
})

const PAYMENT_ADDRESS = 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx'

t.test('keypair rules: created only at the default path or when asked; private files only; data/ is 0700', async (t) => {
  const dir = testFolder(t)
  const custom = join(dir, 'typo', 'merchant-kp.json')
  t.match(problemsOf({ MERCHANT_KEYPAIR_PATH: custom }), [/^MERCHANT_KEYPAIR_PATH: .*typo.* does not exist; a keypair is created only at \.\/data\/merchant-keypair\.json or with CREATE_KEYPAIR=true/],
    'a mistyped path is refused, never a new wallet')
  t.notOk(existsSync(join(dir, 'typo')), 'and nothing was created')

  const cwd = process.cwd()
  process.chdir(dir)
  t.teardown(() => process.chdir(cwd))
  const plan = inspectConfig({})
  t.equal(plan.keypairToCreate, './data/merchant-keypair.json', 'the default path would be created')
  t.equal(plan.paymentAddress, undefined)
  t.notOk(existsSync(join(dir, 'data')), 'inspecting creates nothing')
  const config = loadConfig({})
  t.ok(config.merchantKeypairCreated, 'start-up creates it')
  t.equal(statSync(join(dir, 'data')).mode & 0o777, 0o700, 'data/ is its owner\'s alone')

  const exposed = join(dir, 'exposed.json')
  writeKeypairFile(exposed)
  chmodSync(exposed, 0o644)
  const warned = loadConfig({ MERCHANT_KEYPAIR_PATH: exposed })
  t.match(warned.warnings, [/MERCHANT_KEYPAIR_PATH: .*exposed\.json is readable by group or others \(mode 0644\); chmod 600 .*refused when NODE_ENV=production/])
  t.match(problemsOf({ MERCHANT_KEYPAIR_PATH: exposed, NODE_ENV: 'production' }), [/^MERCHANT_KEYPAIR_PATH: .* is readable by group or others \(mode 0644\)/], 'refused in production')

  t.match(problemsOf({ PAYMENT_ADDRESS, X402_FEE_PAYER_KEYPAIR_PATH: join(dir, 'no-fee-payer.json') }), [/^X402_FEE_PAYER_KEYPAIR_PATH: .*no-fee-payer\.json does not exist/],
    'a fee payer keypair problem is a configuration problem like any other')
  t.match(problemsOf({ PAYMENT_ADDRESS, X402_FEE_PAYER_KEYPAIR_PATH: exposed, NODE_ENV: 'production' }), [/^X402_FEE_PAYER_KEYPAIR_PATH: .* \(mode 0644\)/])
})

t.test('workers starting together agree on one keypair', async (t) => {
  const path = join(testFolder(t), 'kp.json')
  const first = writeKeypairFile(path)
  t.same(resolveMerchantAddress(path), { address: first, created: false })
  t.throws(() => writeKeypairFile(path), { code: 'EEXIST' }, 'an existing keypair is never replaced')
})

t.test('the default registry address is the documented program-derived address', async (t) => {
  const [derived] = await getProgramDerivedAddress({ programAddress: MEMO_V2_PROGRAM as Address, seeds: [REGISTRY_SEED] })
  t.equal(derived, DEFAULT_REGISTRY_ADDRESS)
})

t.test('TRUST_PROXY takes false, a hop count or proxy addresses, never "trust everyone"', async (t) => {
  t.equal(loadConfig({}).trustProxy, false, 'off by default')
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy, '10.0.0.0/8,127.0.0.1,::1')
  for (const value of ['true', '10.0.0.0/33', 'proxy.example']) {
    t.throws(() => loadConfig({ TRUST_PROXY: value }), { message: /TRUST_PROXY: .* is not false, a hop count/ }, value)
  }
})

t.test('production refuses a fee payer that is also the wallet paid, unless X402_SHARED_FEE_PAYER=true', async (t) => {
  const dir = testFolder(t)
  const merchant = join(dir, 'merchant.json')
  const merchantAddress = writeKeypairFile(merchant)
  const feePayer = join(dir, 'fee-payer.json')
  writeKeypairFile(feePayer)
  const production = { NODE_ENV: 'production', MERCHANT_KEYPAIR_PATH: merchant }
  const shared = /^X402_FEE_PAYER_KEYPAIR_PATH: the fee payer would be the wallet paid \(payTo\).*SOL-only key of its own.*X402_SHARED_FEE_PAYER=true/
  t.match(problemsOf(production), [shared], 'the default: the merchant keypair is both payTo and fee payer')
  t.match(problemsOf({ ...production, PAYMENT_ADDRESS: merchantAddress }), [shared], 'PAYMENT_ADDRESS naming the same key')
  t.match(problemsOf({ ...production, X402_FEE_PAYER_KEYPAIR_PATH: merchant }), [shared], 'the fee payer path naming the merchant keypair')
  t.match(problemsOf({ NODE_ENV: 'production', MERCHANT_KEYPAIR_PATH: join(dir, 'to-create.json'), CREATE_KEYPAIR: 'true' }), [shared], 'a keypair made at start that would be both')
  t.same(problemsOf({ ...production, X402_FEE_PAYER_KEYPAIR_PATH: feePayer }), [], 'a fee payer of its own')
  t.same(problemsOf({ ...production, PAYMENT_ADDRESS }), [], 'revenue paid to another wallet: the merchant keypair only pays fees')
  t.same(problemsOf({ ...production, X402_SHARED_FEE_PAYER: 'true' }), [], 'the deliberate opt-in')
  t.same(problemsOf({ MERCHANT_KEYPAIR_PATH: merchant }), [], 'outside production the default stays as it was')
})
