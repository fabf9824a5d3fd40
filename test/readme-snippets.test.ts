import { execFile, execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createKeyPairSignerFromBytes } from '@solana/kit'
import t from 'tap'
import { generateKeypairBytes } from '../lib/solana/keypair-file.js'
import { PROJECT_ROOT } from '../project.js'
import { testFolder } from './fixtures/test-folder.js'
import { startX402Merchant } from './fixtures/x402-merchant.js'

// Issue #55 item 12: every TypeScript snippet of the README's buyer sections is compiled under
// tsc --strict as it stands, then run as it stands against a merchant on the local chain (only its
// addresses swapped for the test's), and the money it moves read on chain. The generated-client
// example (test/app/openapi-client.test.ts) and the A2A one (client/examples/a2a-buy.ts, in
// test/plugins/a2a/paid-skills.test.ts) are checked where their generators and files are.

const run = promisify(execFile)
const TSC = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const STRICT = { strict: true, noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.Iterable'] }
const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')

/** The first ```ts block after `heading`. */
function snippetAfter (heading: string): string {
  const at = README.indexOf(heading)
  if (at < 0) throw new Error(`README has no "${heading}"`)
  const block = /```ts\n([\s\S]*?)```/.exec(README.slice(at))?.[1]
  if (block === undefined) throw new Error(`no TypeScript block after "${heading}"`)
  return block
}

// Each snippet, and whether it reads the buyer from the x402 example before it ("with `buyer` as above").
const SNIPPETS = [
  { name: 'x402-client', heading: '### Paying with the official x402 client', needsBuyer: false },
  { name: 'mpp-client', heading: '### Paying with MPP', needsBuyer: true },
  { name: 'mcp-client', heading: '## Buying through MCP', needsBuyer: true }
].map(snippet => ({ ...snippet, code: snippetAfter(snippet.heading) }))

const BUYER_FILE = 'packages/localnet/.cache/buyer-keypair.json'
/** What "as above" gives the snippets that continue the x402 example: its buyer, read the same way. */
const buyerPrelude = (path: string) => "import { readFileSync } from 'node:fs'\nimport { createKeyPairSignerFromBytes } from '@solana/kit'\n" +
  `const buyer = await createKeyPairSignerFromBytes(Uint8Array.from(JSON.parse(readFileSync(${JSON.stringify(path)}, 'utf8'))))\n`

t.test('the snippets compile under tsc --strict as the README shows them', async t => {
  const dir = testFolder(t)
  const files = SNIPPETS.map(snippet => {
    writeFileSync(join(dir, `${snippet.name}.ts`), (snippet.needsBuyer ? buyerPrelude(BUYER_FILE) : '') + snippet.code)
    return `${snippet.name}.ts`
  })
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: STRICT, files }))
  try {
    execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' })
  } catch (error) {
    t.fail(`tsc --strict:\n${(error as { stdout?: string }).stdout ?? ''}`)
    return
  }
  t.pass(`${files.length} snippets type-check`)
  t.ok(SNIPPETS.every(snippet => snippet.code.includes(snippet.needsBuyer ? 'buyer' : BUYER_FILE)), 'each names the buyer the reader has')
})

t.test('each snippet buys SOL\'s price from a merchant on the local chain', async t => {
  const m = await startX402Merchant(t)
  const dir = testFolder(t)
  const bytes = generateKeypairBytes()
  const buyer = await createKeyPairSignerFromBytes(bytes)
  await m.paid.chain.airdrop(buyer.address, 1_000_000_000n)
  await m.paid.chain.mintTo(m.paid.mint, buyer.address, 1_000_000n)
  const keypair = join(dir, 'buyer.json')
  writeFileSync(keypair, JSON.stringify([...bytes]))
  // The README's addresses are the quick start's: this merchant's, chain's, mint's and buyer's file instead.
  const here = (code: string) => code
    .replaceAll('http://localhost:3000', m.url)
    .replaceAll('http://127.0.0.1:8899', m.paid.chain.url)
    .replaceAll('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', m.paid.mint)
    .replaceAll(BUYER_FILE, keypair)

  for (const snippet of SNIPPETS) {
    const program = join(dir, `${snippet.name}.ts`)
    writeFileSync(program, here((snippet.needsBuyer ? buyerPrelude(BUYER_FILE) : '') + snippet.code))
    const before = await m.merchantBalance()
    const { stdout } = await run(process.execPath, ['--import', 'tsx', program], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    t.equal(await m.merchantBalance() - before, 50_000n, `${snippet.name}: the merchant got the price, read on chain`)
    t.match(stdout, snippet.name === 'mcp-client' ? /mintSymbol: 'SOL'/ : /^200 /, `${snippet.name} printed what it bought`)
  }
})
