import { getAddMemoInstruction } from '@solana-program/memo'
import { getTransferSolInstruction } from '@solana-program/system'
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { getTransferCheckedInstruction as getTransferChecked2022Instruction, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type Address,
  type Instruction,
  type KeyPairSigner
} from '@solana/kit'
import fc from 'fast-check'
import t from 'tap'
import { startLocalnet } from '@token-merchant/localnet'
import { createRpcClient } from '../../../lib/solana/rpc-client.js'
import { createExactVerification } from '../../../lib/x402/exact-verification.js'
import { createX402Library } from '../../../lib/x402/library.js'
import { x402Network } from '../../../lib/x402/networks.js'
import { checkPayloadTransfer, MEMO_PROGRAM, priorityFeeLamports, type PaymentTerms } from '../../../lib/x402/transaction-rules.js'
import type { ErrorCode } from '../../../lib/errors/error-codes.js'
import { computeUnitLimit, computeUnitPrice } from '../../fixtures/x402-payment.js'

// Differential test of our `exact` verification (checkPayloadTransfer, then the payer's
// signature and the simulation of exact-verification.ts) against @x402/svm's facilitator, its
// oracle: both judge the same generated payloads, over the same RPC client and the same local
// chain (its clock frozen, so both simulations get the same answers).

const PRICE = 50_000n
const DECIMALS = 6
/** X402_MAX_PRIORITY_FEE_LAMPORTS's default. */
const MAX_PRIORITY_FEE_LAMPORTS = 1_000n
const RUNS = Number(process.env.EXACT_VERIFICATION_RUNS ?? 2000)
const SEED = Number(process.env.EXACT_VERIFICATION_SEED ?? 43)
const MEMO_V1 = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo')
const MEMO_P = address('Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH')
const LIGHTHOUSE = address('L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95')
const LOOKUP_TABLE_PROGRAM = address('AddressLookupTab1e1111111111111111111111111')
const network = x402Network('solana-localnet')

/** Mostly the valid choice, so that many payloads reach the signature and the simulation. */
function usually<T> (valid: T, ...others: Array<fc.Arbitrary<T>>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 10 }, ...others.map(arbitrary => ({ arbitrary, weight: 1 })))
}
const choice = <T extends string>(...values: T[]) => fc.constantFrom(...values)
const randomKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytes => getAddressDecoder().decode(bytes))

/** One payload, as a list of choices: the valid one first, then mutations of every field. */
const paymentSpec = fc.record({
  x402Version: fc.constantFrom(1 as const, 2 as const),
  mint: choice('spl', 'token-2022'),
  messageVersion: usually<0 | 'legacy'>(0, fc.constant('legacy')),
  feePayer: usually('fee-payer', choice('buyer', 'random')),
  authority: usually('buyer', choice('fee-payer', 'poor', 'stranger')),
  signedBy: usually('authority', choice('nobody', 'stranger', 'corrupted')),
  source: usually('authority', choice('stranger', 'fee-payer-account')),
  destination: usually('merchant', choice('merchant-other-program', 'stranger', 'random')),
  transferMint: usually('same', choice('other-program', 'unknown', 'random')),
  program: usually('of-mint', choice('swapped')),
  amount: usually(PRICE, fc.constantFrom(PRICE + 1n, PRICE - 1n, 0n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
  decimals: usually(DECIMALS, fc.integer({ min: 0, max: 12 })),
  cuLimit: usually(20_000, fc.constantFrom(0, 200_000, 200_001, 1_400_000), fc.integer({ min: 0, max: 300_000 })),
  cuPrice: usually(1n, fc.constantFrom(0n, 50_000n, 500_000n, 5_000_000n, 5_000_001n), fc.bigInt({ min: 0n, max: 6_000_000n })),
  budgetLayout: usually('limit-price', choice('price-limit', 'no-limit', 'no-price', 'limit-twice', 'transfer-first', 'limit-data-longer', 'price-data-longer')),
  transferData: usually('exact', choice('longer')),
  memos: fc.array(usually(MEMO_PROGRAM as Address, fc.constantFrom(MEMO_V1, MEMO_P)), { minLength: 0, maxLength: 5 }),
  extra: usually('none', choice('sol-from-fee-payer', 'lighthouse', 'unknown-program', 'memo-signed-by-fee-payer', 'memo-signed-by-third', 'transfer-signer-account')),
  lookupTable: usually(false, fc.constant(true)),
  blockhash: usually('live', choice('stale', 'random')),
  bytes: usually('as-signed', choice('trailing-byte', 'truncated', 'message-byte-flipped', 'version-1', 'signature-count-plus-one')),
  flipAt: fc.nat(),
  base64: usually('canonical', choice('with-space', 'url-safe', 'unpadded')),
  randomKey
})
type PaymentSpec = typeof paymentSpec extends fc.Arbitrary<infer T> ? T : never

/**
 * Our documented stricter rules (docs/architecture.md, "The standard x402 flow"): the only
 * reasons ours may refuse a payload the library accepts. Each says which payloads it is about.
 */
const STRICTER_RULES: Array<{ rule: string, code: ErrorCode, appliesTo: (spec: PaymentSpec, wire: { priorityFee: bigint }) => boolean }> = [
  { rule: 'no address lookup tables', code: 'X402_TRANSACTION_NOT_ALLOWED', appliesTo: spec => spec.lookupTable },
  { rule: 'no Lighthouse assertions', code: 'X402_TRANSACTION_NOT_ALLOWED', appliesTo: spec => spec.extra === 'lighthouse' },
  { rule: 'the fee payer in no instruction', code: 'X402_FEE_PAYER_EXPOSED', appliesTo: spec => spec.extra === 'memo-signed-by-fee-payer' || spec.extra === 'sol-from-fee-payer' },
  { rule: 'no third signer (v1 too)', code: 'X402_TRANSACTION_NOT_ALLOWED', appliesTo: spec => spec.extra === 'memo-signed-by-third' },
  { rule: 'the compute unit limit at most 200,000 (v1 too)', code: 'X402_COMPUTE_BUDGET_INVALID', appliesTo: spec => spec.cuLimit > 200_000 },
  { rule: 'the priority fee at most X402_MAX_PRIORITY_FEE_LAMPORTS', code: 'X402_COMPUTE_PRICE_TOO_HIGH', appliesTo: (_, wire) => wire.priorityFee > MAX_PRIORITY_FEE_LAMPORTS },
  { rule: 'compute budget data of its exact length', code: 'X402_COMPUTE_BUDGET_INVALID', appliesTo: spec => spec.budgetLayout.endsWith('-data-longer') },
  { rule: 'TransferChecked of its exact length and four accounts', code: 'X402_TRANSACTION_NOT_ALLOWED', appliesTo: spec => spec.transferData === 'longer' || spec.extra === 'transfer-signer-account' },
  { rule: 'exactly one transaction in the bytes', code: 'X402_INVALID_PAYLOAD', appliesTo: spec => spec.bytes === 'trailing-byte' }
]

t.test('our exact verification never accepts what @x402/svm refuses, and refuses what it accepts only by a stricter rule', async t => {
  const chain = await startLocalnet({ clock: 'manual' })
  t.teardown(() => chain.stop())
  const mints = {
    spl: await chain.createMint({ decimals: DECIMALS }),
    'token-2022': await chain.createMint({ decimals: DECIMALS, program: 'token-2022' })
  }
  const unknownMint = await chain.createMint({ decimals: DECIMALS })
  const merchant = await generateKeyPairSigner()
  const feePayer = await chain.createWallet()
  const buyer = await chain.createWallet()
  const poor = await chain.createWallet()
  const stranger = await chain.createWallet()
  const third = await generateKeyPairSigner()
  for (const mint of Object.values(mints)) {
    await chain.createAta(mint, merchant.address)
    await chain.mintTo(mint, buyer.address, 1_000_000_000n)
    await chain.mintTo(mint, poor.address, 10n)
    await chain.mintTo(mint, stranger.address, 1_000_000_000n)
    await chain.mintTo(mint, feePayer.address, 1_000_000_000n)
  }
  await chain.mintTo(unknownMint, buyer.address, 1_000_000_000n)
  const programOf = (mint: Address) => mint === mints['token-2022'] ? TOKEN_2022_PROGRAM_ADDRESS : TOKEN_PROGRAM_ADDRESS
  const atas = new Map<string, Address>()
  async function ata (owner: Address, mint: Address, program: Address): Promise<Address> {
    const key = `${owner}/${mint}/${program}`
    let found = atas.get(key)
    if (found === undefined) atas.set(key, found = (await findAssociatedTokenPda({ owner, mint, tokenProgram: program }))[0])
    return found
  }
  // A live lookup table holding the merchant's token accounts, for the library to resolve (fetchAddressLookupTables); ours refuses every lookup table.
  const table = (await generateKeyPairSigner()).address
  const tabled = [await ata(merchant.address, mints.spl, TOKEN_PROGRAM_ADDRESS), await ata(merchant.address, mints['token-2022'], TOKEN_2022_PROGRAM_ADDRESS)]
  const tableData = new Uint8Array(56 + 32 * tabled.length)
  new DataView(tableData.buffer).setUint32(0, 1, true)
  new DataView(tableData.buffer).setBigUint64(4, 2n ** 64n - 1n, true)
  tabled.forEach((key, i) => tableData.set(addressBytes(key), 56 + 32 * i))
  chain.setAccount(table, { lamports: 10_000_000n, data: tableData, owner: LOOKUP_TABLE_PROGRAM })
  const stale = (await chain.rpc.getLatestBlockhash().send()).value
  chain.advanceSlots(200)
  const live = (await chain.rpc.getLatestBlockhash().send()).value

  const rpc = createRpcClient(chain.url, 10_000)
  const library = await createX402Library({ rpc, feePayer, network })
  const ours = createExactVerification(rpc)
  const requirements = {
    spl: await library.requirement(PRICE, mints.spl, merchant.address, 60),
    'token-2022': await library.requirement(PRICE, mints['token-2022'], merchant.address, 60)
  }
  const terms = async (mint: Address, x402Version: 1 | 2): Promise<PaymentTerms> => ({
    feePayer: feePayer.address,
    mint,
    amount: PRICE,
    destinations: { token: await ata(merchant.address, mint, TOKEN_PROGRAM_ADDRESS), token2022: await ata(merchant.address, mint, TOKEN_2022_PROGRAM_ADDRESS) },
    maxPriorityFeeLamports: MAX_PRIORITY_FEE_LAMPORTS,
    x402Version
  })
  const wallets: Record<string, KeyPairSigner> = { buyer, poor, stranger, 'fee-payer': feePayer }

  async function build (spec: PaymentSpec): Promise<{ transaction: string, priorityFee: bigint } | undefined> {
    const mint = mints[spec.mint]
    const otherMint = spec.mint === 'spl' ? mints['token-2022'] : mints.spl
    const transferMint = { same: mint, 'other-program': otherMint, unknown: unknownMint, random: spec.randomKey }[spec.transferMint]
    const program = spec.program === 'swapped' ? (programOf(transferMint) === TOKEN_PROGRAM_ADDRESS ? TOKEN_2022_PROGRAM_ADDRESS : TOKEN_PROGRAM_ADDRESS) : programOf(transferMint)
    const authority = wallets[spec.authority]
    const source = await ata({ authority: authority.address, stranger: stranger.address, 'fee-payer-account': feePayer.address }[spec.source], transferMint, program)
    const destination = {
      merchant: await ata(merchant.address, transferMint, program),
      'merchant-other-program': await ata(merchant.address, transferMint, program === TOKEN_PROGRAM_ADDRESS ? TOKEN_2022_PROGRAM_ADDRESS : TOKEN_PROGRAM_ADDRESS),
      stranger: await ata(stranger.address, transferMint, program),
      random: spec.randomKey
    }[spec.destination]
    const transferArgs = { source, mint: transferMint, destination, authority: createNoopSigner(authority.address), amount: spec.amount, decimals: spec.decimals }
    let transfer: Instruction = program === TOKEN_PROGRAM_ADDRESS ? getTransferCheckedInstruction(transferArgs) : getTransferChecked2022Instruction(transferArgs)
    if (spec.transferData === 'longer') transfer = { ...transfer, data: new Uint8Array([...(transfer.data ?? []), 0]) }
    if (spec.extra === 'transfer-signer-account') transfer = { ...transfer, accounts: [...(transfer.accounts ?? []), { address: third.address, role: AccountRole.READONLY }] }
    const longer = (ix: Instruction) => ({ ...ix, data: new Uint8Array([...(ix.data ?? []), 7]) })
    const limit = spec.budgetLayout === 'limit-data-longer' ? longer(computeUnitLimit(spec.cuLimit)) : computeUnitLimit(spec.cuLimit)
    const price = spec.budgetLayout === 'price-data-longer' ? longer(computeUnitPrice(spec.cuPrice)) : computeUnitPrice(spec.cuPrice)
    const budget = {
      'limit-price': [limit, price, transfer],
      'limit-data-longer': [limit, price, transfer],
      'price-data-longer': [limit, price, transfer],
      'price-limit': [price, limit, transfer],
      'no-limit': [price, transfer],
      'no-price': [limit, transfer],
      'limit-twice': [limit, limit, price, transfer],
      'transfer-first': [transfer, limit, price]
    }[spec.budgetLayout]
    const memos = spec.memos.map((programAddress, i) => getAddMemoInstruction({ memo: `nonce ${i} ${spec.flipAt}` }, { programAddress }))
    const extra: Instruction[] = {
      none: [],
      'sol-from-fee-payer': [getTransferSolInstruction({ source: createNoopSigner(feePayer.address), destination: stranger.address, amount: 1n })],
      lighthouse: [{ programAddress: LIGHTHOUSE, data: new Uint8Array([0]) }],
      'unknown-program': [{ programAddress: spec.randomKey, data: new Uint8Array([1]) }],
      'memo-signed-by-fee-payer': [getAddMemoInstruction({ memo: 'x', signers: [createNoopSigner(feePayer.address)] }, { programAddress: MEMO_PROGRAM as Address })],
      'memo-signed-by-third': [getAddMemoInstruction({ memo: 'y', signers: [third] }, { programAddress: MEMO_PROGRAM as Address })],
      'transfer-signer-account': []
    }[spec.extra]
    const feePayerAddress = spec.feePayer === 'fee-payer' ? feePayer.address : spec.feePayer === 'buyer' ? buyer.address : spec.randomKey
    const lifetime = spec.blockhash === 'live' ? live : spec.blockhash === 'stale' ? stale : { blockhash: getAddressDecoder().decode(addressBytes(spec.randomKey).reverse()), lastValidBlockHeight: 1n }
    let message = pipe(
      createTransactionMessage({ version: spec.messageVersion }),
      m => setTransactionMessageFeePayer(feePayerAddress, m),
      m => setTransactionMessageLifetimeUsingBlockhash(lifetime as never, m),
      m => appendTransactionMessageInstructions([...budget, ...memos, ...extra], m)
    )
    if (spec.lookupTable && spec.messageVersion === 0) message = compressTransactionMessageUsingAddressLookupTables(message as never, { [table]: tabled }) as never
    let compiled
    try {
      compiled = compileTransaction(message)
    } catch {
      return undefined // kit refuses to compile it (keys that collide): no payload
    }
    const signers = Object.keys(compiled.signatures)
    const keyPairs = [...(spec.signedBy === 'authority' || spec.signedBy === 'corrupted' ? [authority] : []), ...(spec.extra === 'memo-signed-by-third' ? [third] : [])]
      .filter(wallet => signers.includes(wallet.address)).map(wallet => wallet.keyPair)
    const signed = await partiallySignTransaction(keyPairs, compiled)
    const bytes = Buffer.from(getBase64EncodedWireTransaction(signed), 'base64')
    const payerSlot = 1 + 64 // the second signature
    if (signers.length > 1) {
      if (spec.signedBy === 'corrupted') bytes[payerSlot + (spec.flipAt % 64)] ^= 0x01
      // A valid signature of the message, by the wrong key.
      if (spec.signedBy === 'stranger') bytes.set(new Uint8Array(await signBytes(stranger.keyPair.privateKey, compiled.messageBytes)), payerSlot)
    }
    let wire: Uint8Array = bytes
    const messageStart = 1 + 64 * signers.length
    if (spec.bytes === 'trailing-byte') wire = Buffer.concat([bytes, Buffer.from([0])])
    if (spec.bytes === 'truncated') wire = bytes.subarray(0, bytes.length - 1 - (spec.flipAt % 8))
    if (spec.bytes === 'message-byte-flipped') wire[messageStart + (spec.flipAt % (bytes.length - messageStart))] ^= 0x10
    if (spec.bytes === 'version-1' && spec.messageVersion === 0) wire[messageStart] = 0x81
    if (spec.bytes === 'signature-count-plus-one') wire[0] += 1
    let transaction = Buffer.from(wire).toString('base64')
    if (spec.base64 === 'with-space') transaction = `${transaction.slice(0, 8)} ${transaction.slice(8)}`
    if (spec.base64 === 'url-safe') transaction = transaction.replace(/\+/g, '-').replace(/\//g, '_')
    if (spec.base64 === 'unpadded') transaction = transaction.replace(/=+$/, '')
    return { transaction, priorityFee: priorityFeeLamports(spec.cuLimit, spec.cuPrice) }
  }

  // The library logs every payload it cannot decode: quiet during the run.
  const logError = console.error
  console.error = () => {}
  t.teardown(() => { console.error = logError })
  const tally = { judged: 0, bothAccept: 0, bothRefuse: 0, oursStricter: 0 }
  const stricterSeen = new Set<string>()
  await fc.assert(fc.asyncProperty(paymentSpec, async spec => {
    const built = await build(spec)
    if (built === undefined) return
    const mint = mints[spec.mint]
    const requirementV2 = requirements[spec.mint]
    const payload = spec.x402Version === 2
      ? { x402Version: 2, resource: { url: 'http://merchant.test/api/x', description: 'x', mimeType: 'application/json' }, accepted: requirementV2, payload: { transaction: built.transaction } }
      : { x402Version: 1, scheme: 'exact', network: network.v1, payload: { transaction: built.transaction } }
    const requirement = spec.x402Version === 2
      ? requirementV2
      : { scheme: 'exact', network: network.v1, maxAmountRequired: requirementV2.amount, resource: 'http://merchant.test/api/x', description: 'x', mimeType: 'application/json', payTo: merchant.address, maxTimeoutSeconds: 60, asset: mint, extra: { feePayer: feePayer.address } }
    const theirs = await library.verify(payload, requirement)
    const checked = checkPayloadTransfer(built.transaction, await terms(mint, spec.x402Version))
    const our = checked.kind === 'refused' ? { isValid: false as const, code: checked.code } : await ours.verify(checked.transfer, spec.x402Version)
    tally.judged++
    if (our.isValid) {
      if (!theirs.isValid) throw new Error(`ours accepts what the library refuses (${theirs.invalidReason ?? ''} ${theirs.invalidMessage ?? ''})`)
      tally.bothAccept++
      return
    }
    if (!theirs.isValid) {
      tally.bothRefuse++
      // Where both refuse after the static checks, ours says it for the same reason.
      if (!('code' in our)) {
        if (our.invalidReason !== theirs.invalidReason) throw new Error(`both refuse, for ${our.invalidReason} and ${theirs.invalidReason ?? ''}`)
      }
      return
    }
    const code = 'code' in our ? our.code : our.invalidReason
    const rule = STRICTER_RULES.find(rule => rule.code === code && rule.appliesTo(spec, built))
    if (rule === undefined) throw new Error(`ours refuses (${code}) what the library accepts, by no documented stricter rule`)
    stricterSeen.add(rule.rule)
    tally.oursStricter++
  }), { numRuns: RUNS, seed: SEED, endOnFailure: true })

  t.comment(JSON.stringify({ ...tally, stricterSeen: [...stricterSeen] }))
  t.ok(tally.judged >= RUNS * 0.95, `${tally.judged} payloads judged by both`)
  // The generator reaches the verdicts that matter: acceptances, and the library's simulations both ways.
  t.ok(tally.bothAccept >= RUNS / 50, `${tally.bothAccept} payloads accepted by both`)
  t.ok(tally.oursStricter > 0, `${tally.oursStricter} refused by a stricter rule only: ${[...stricterSeen].join('; ')}`)
})

function addressBytes (key: Address): Uint8Array {
  return new Uint8Array(getAddressEncoder().encode(key))
}
