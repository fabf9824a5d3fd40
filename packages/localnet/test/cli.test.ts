import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { address, createKeyPairSignerFromBytes, generateKeyPairSigner, none, some } from '@solana/kit'
import { AccountState, getMintEncoder, getTokenEncoder } from '@solana-program/token'
import { rpcCall } from '../testing/json-rpc.js'
import { parseAccountFile } from '../account-file.js'

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))

t.test('npm run localnet: standing chain with a funded buyer, clean exit on Ctrl-C', async (t) => {
  const dir = t.testdir({})
  const keypairPath = `${dir}/buyer.json`
  const { url, output: outputSoFar, child } = await startCli(t, ['--buyer-usdc', '250'], keypairPath)
  const output = outputSoFar()

  t.match(output, /payment mint:\s+4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU/)
  t.match(output, new RegExp(`buyer keypair:\\s+${keypairPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
  const bytes = JSON.parse(readFileSync(keypairPath, 'utf8'))
  t.equal(bytes.length, 64, 'solana-keygen style 64-byte array')
  const buyer = await createKeyPairSignerFromBytes(Uint8Array.from(bytes))
  t.match(output, buyer.address)

  t.equal((await rpcCall(url, 'getHealth')).result, 'ok')
  t.equal((await rpcCall(url, 'getBalance', [buyer.address])).result.value, 10_000_000_000)
  const tokens = await rpcCall(url, 'getTokenAccountsByOwner', [buyer.address, { mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }, { encoding: 'jsonParsed' }])
  t.equal(tokens.result.value[0].account.data.parsed.info.tokenAmount.uiAmountString, '250')

  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGINT')
  t.equal(await exit, 0, 'clean exit')
})

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

/** `solana account --output json` files written here: a 6-decimal mint at MINT and three holders of it. */
async function accountFiles (): Promise<Record<string, string>> {
  const file = (pubkey: string, lamports: number, data: Uint8Array) =>
    JSON.stringify({ pubkey, account: { lamports, data: [Buffer.from(data).toString('base64'), 'base64'], owner: TOKEN_PROGRAM, executable: false, rentEpoch: 0, space: data.length } })
  const authority = (await generateKeyPairSigner()).address
  const mint = getMintEncoder().encode({ mintAuthority: some(authority), supply: 600n, decimals: 6, isInitialized: true, freezeAuthority: none() })
  const files: Record<string, string> = { 'mint.json': file(MINT, 1461600, Uint8Array.from(mint)) }
  for (const amount of [100n, 200n, 300n]) {
    const holder = (await generateKeyPairSigner()).address
    const data = getTokenEncoder().encode({ mint: address(MINT), owner: holder, amount, delegate: none(), state: AccountState.Initialized, isNative: none(), delegatedAmount: 0n, closeAuthority: none() })
    files[`holder-${amount}.json`] = file((await generateKeyPairSigner()).address, 2039280, Uint8Array.from(data))
  }
  return files
}

/** Starts the CLI with `args`; resolves with its RPC URL and output once it serves. */
async function startCli (t: Test, args: string[], buyerKeypairPath = `${t.testdir({})}/buyer.json`): Promise<{ url: string, output: () => string, child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli.ts', '--port', '0', '--buyer-keypair', buyerKeypairPath, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stderr.on('data', (chunk) => (output += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no RPC URL printed:\n${output}`)), 30_000)
    child.stdout.on('data', (chunk) => {
      output += chunk
      const match = /RPC URL:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match && output.includes('Ctrl-C')) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.once('exit', (code) => reject(new Error(`exited (${code}):\n${output}`)))
  })
  return { url, output: () => output, child }
}

t.test('--account-dir and --account write `solana account --output json` files into the chain before it serves', async (t) => {
  const testdir = t.testdir({ accounts: await accountFiles() })
  const dir = `${testdir}/accounts`
  const mintFile = `${dir}/mint.json`
  const copyAt = (await generateKeyPairSigner()).address
  const { url, output } = await startCli(t, ['--account-dir', dir, '--account', copyAt, mintFile], `${testdir}/buyer.json`)
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'))
  t.match(output(), new RegExp(`accounts:\\s+${files.length + 1} loaded from files`))
  t.match(output(), `SOLANA_NETWORK=localnet SOLANA_RPC_URL=${url} X402_NETWORK=solana-devnet`, 'the banner names every setting the service needs here, not the RPC alone')
  for (const name of files) {
    const { pubkey, account } = JSON.parse(readFileSync(`${dir}/${name}`, 'utf8'))
    const served = (await rpcCall(url, 'getAccountInfo', [pubkey, { encoding: 'base64' }])).result.value
    t.same({ data: served.data, owner: served.owner, lamports: served.lamports, executable: served.executable },
      { data: account.data, owner: account.owner, lamports: account.lamports, executable: account.executable }, name)
  }
  const copy = (await rpcCall(url, 'getAccountInfo', [copyAt, { encoding: 'base64' }])).result.value
  t.same(copy.data, JSON.parse(readFileSync(mintFile, 'utf8')).account.data, '--account puts the file at the address given')
  const supply = await rpcCall(url, 'getTokenSupply', [MINT])
  t.same([supply.result.value.decimals, supply.result.value.amount], [6, '600'], 'a loaded mint is served like any other')
  const largest = await rpcCall(url, 'getTokenLargestAccounts', [MINT])
  t.same(largest.result.value.map((entry: { amount: string }) => entry.amount), ['300', '200', '100'], 'the three loaded token accounts, largest first')
})

t.test('a malformed account file stops the CLI before it serves, naming the file', async (t) => {
  const dir = t.testdir({ 'bad.json': JSON.stringify({ pubkey: 'So11111111111111111111111111111111111111112', account: { lamports: 1, data: ['!!', 'base64'], owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' } }) })
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli.ts', '--port', '0', '--account-dir', dir], { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  t.equal(code, 2)
  t.match(stderr, /account file .*bad\.json: data is not \[<base64>, "base64"\]/)
})

t.test('parseAccountFile checks every field it uses', async (t) => {
  const good = { pubkey: 'So11111111111111111111111111111111111111112', account: { lamports: 5, data: ['AQI=', 'base64'], owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', executable: false, rentEpoch: 0, space: 2 } }
  t.same(parseAccountFile(JSON.stringify(good), 'good'), {
    address: good.pubkey,
    account: { lamports: 5n, data: Uint8Array.from([1, 2]), owner: good.account.owner, executable: false },
  })
  const bad = (account: Record<string, unknown>, pubkey: unknown = good.pubkey) => JSON.stringify({ pubkey, account: { ...good.account, ...account } })
  t.throws(() => parseAccountFile('{', 'f'), /account file f: not JSON/)
  t.throws(() => parseAccountFile(bad({}, 'nope'), 'f'), /pubkey is not a base58 address/)
  t.throws(() => parseAccountFile(bad({ lamports: 2 ** 60 }), 'f'), /lamports/)
  t.throws(() => parseAccountFile(bad({ space: 3 }), 'f'), /space 3 is not the data's 2 bytes/)
  t.throws(() => parseAccountFile(bad({ owner: 7 }), 'f'), /owner is not a base58 address/)
  t.throws(() => parseAccountFile(bad({ executable: 'no' }), 'f'), /executable/)
})
