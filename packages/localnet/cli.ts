// `npm run localnet`: a standing local chain for manual trials. The payment mint sits at the devnet
// USDC address, so the service needs its RPC, the local cluster (whose genesis it checks) and, for
// the official x402 clients, the devnet name it advertises: the banner prints all three.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { address, createKeyPairSignerFromBytes, createKeyPairSignerFromPrivateKeyBytes, getAddressEncoder, type KeyPairSigner } from '@solana/kit'
import { startLocalnet } from './index.js'
import { readAccountDir, readAccountFile, type AccountFixture } from './account-file.js'

const DEVNET_USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const DEFAULT_BUYER_PATH = fileURLToPath(new URL('./.cache/buyer-keypair.json', import.meta.url))
const USAGE = 'usage: npm run localnet -- [--port 8899] [--host 127.0.0.1] [--buyer-keypair PATH] [--buyer-sol 10] [--buyer-usdc 1000]' +
  ' [--account ADDRESS FILE]... [--account-dir DIR]...'

/**
 * `--account <address> <file>` takes two values, which parseArgs cannot express: they are taken out of
 * the arguments first (as solana-test-validator reads them), the rest goes to parseArgs.
 */
function takeAccountPairs (args: string[]): { pairs: Array<[string, string]>, rest: string[] } {
  const pairs: Array<[string, string]> = []
  const rest: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--account') {
      rest.push(args[i])
      continue
    }
    const [address, file] = [args[i + 1], args[i + 2]]
    if (address === undefined || file === undefined || address.startsWith('--') || file.startsWith('--')) {
      console.error(`--account takes an address and a file\n${USAGE}`)
      process.exit(2)
    }
    pairs.push([address, file])
    i += 2
  }
  return { pairs, rest }
}

const { pairs: accountPairs, rest: otherArgs } = takeAccountPairs(process.argv.slice(2))
const { values } = parseArgs({
  args: otherArgs,
  options: {
    'account-dir': { type: 'string', multiple: true, default: [] },
    port: { type: 'string', default: '8899' },
    host: { type: 'string', default: '127.0.0.1' },
    'buyer-keypair': { type: 'string', default: DEFAULT_BUYER_PATH },
    'buyer-sol': { type: 'string', default: '10' },
    'buyer-usdc': { type: 'string', default: '1000' },
    help: { type: 'boolean', default: false },
  },
})
if (values.help) {
  console.log(USAGE)
  process.exit(0)
}

/** Reuses the keypair file when present (a stable buyer across restarts), else writes a new one like solana-keygen. */
async function loadOrCreateBuyer (path: string): Promise<KeyPairSigner> {
  if (existsSync(path)) {
    const bytes = JSON.parse(readFileSync(path, 'utf8')) as number[]
    if (Array.isArray(bytes) && bytes.length === 64) return createKeyPairSignerFromBytes(Uint8Array.from(bytes))
  }
  const seed = Uint8Array.from(randomBytes(32))
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed)
  const keypair = [...seed, ...getAddressEncoder().encode(signer.address)]
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, JSON.stringify(keypair), { mode: 0o600 })
  return signer
}

function wholeUnits (value: string, decimals: number): bigint {
  const [whole, fraction = ''] = value.split('.')
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt((fraction + '0'.repeat(decimals)).slice(0, decimals) || '0')
}

const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port ${values.port}\n${USAGE}`)
  process.exit(2)
}
const buyerPath = resolve(values['buyer-keypair'])

let accounts: AccountFixture[]
try {
  accounts = [
    ...values['account-dir'].flatMap(dir => readAccountDir(resolve(dir))),
    ...accountPairs.map(([address, file]) => readAccountFile(resolve(file), address))
  ]
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`)
  process.exit(2)
}

const localnet = await startLocalnet({ port, host: values.host, accounts })
const mint = await localnet.createMint({ address: DEVNET_USDC, decimals: 6 })
const buyer = await loadOrCreateBuyer(buyerPath)
const solLamports = wholeUnits(values['buyer-sol'], 9)
const usdcUnits = wholeUnits(values['buyer-usdc'], 6)
if (solLamports > 0n) await localnet.airdrop(buyer.address, solLamports)
if (usdcUnits > 0n) await localnet.mintTo(mint, buyer.address, usdcUnits)

console.log(`token-merchant localnet is up
  RPC URL:        ${localnet.url}
  payment mint:   ${mint} (6 decimals, the devnet USDC address)
  buyer keypair:  ${buyerPath}
  buyer address:  ${buyer.address} (${values['buyer-sol']} SOL, ${values['buyer-usdc']} USDC)
  accounts:       ${accounts.length} loaded from files${accounts.length === 0 ? '' : ` (${accounts.map(fixture => fixture.address).join(', ')})`}
Point the service at it with
  SOLANA_NETWORK=localnet SOLANA_RPC_URL=${localnet.url} X402_NETWORK=solana-devnet
(SOLANA_RPC_URL alone fails the start-up check: the devnet default expects devnet's genesis). Ctrl-C to stop.`)

let stopping = false
const stop = async (signal: string) => {
  if (stopping) return
  stopping = true
  console.log(`\n${signal}: stopping localnet`)
  await localnet.stop()
  process.exit(0)
}
process.once('SIGINT', () => { stop('SIGINT').catch(() => process.exit(1)) })
process.once('SIGTERM', () => { stop('SIGTERM').catch(() => process.exit(1)) })
