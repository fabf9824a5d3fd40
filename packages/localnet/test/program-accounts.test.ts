import t from 'tap'
import { address, generateKeyPairSigner, getAddressEncoder, type Address } from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import { encodeBase58 } from '../encoding/base58.js'
import { startLocalnet } from '../index.js'
import { rpcCall } from '../testing/json-rpc.js'

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const addressBytes = (key: Address) => Uint8Array.from(getAddressEncoder().encode(key))

/** 8-byte tag, a 32-byte key at 8, then filler: a program account like those pools and curves keep. */
function programData (size: number, tag: number, key: Address): Uint8Array {
  const data = new Uint8Array(size)
  data.fill(tag, 0, 8)
  data.set(addressBytes(key), 8)
  return data
}

t.test('getProgramAccounts', async (t) => {
  const program = (await generateKeyPairSigner()).address
  const mintA = (await generateKeyPairSigner()).address
  const mintB = (await generateKeyPairSigner()).address
  const fromDir = (await generateKeyPairSigner()).address
  // one account given at start, as `--account-dir` does
  const net = await startLocalnet({ accounts: [{ address: fromDir, account: { lamports: 5_000_000n, data: programData(49, 3, mintA), owner: program, executable: false } }] })
  t.teardown(() => net.stop())

  const setThrough = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address]
  net.setAccount(setThrough[0], { lamports: 3_000_000n, data: programData(150, 1, mintA), owner: program })
  net.setAccount(setThrough[1], { lamports: 3_000_000n, data: programData(150, 2, mintB), owner: program })
  // one written by a transaction: System createAccount assigns it to the program
  const created = await generateKeyPairSigner()
  const payer = await net.createWallet()
  await net.sendInstructions([getCreateAccountInstruction({ payer, newAccount: created, lamports: 2_000_000n, space: 150, programAddress: program })], [payer, created])

  const gpa = async (config?: Record<string, unknown>, id: string = program) => rpcCall(net.url, 'getProgramAccounts', config === undefined ? [id] : [id, config])
  const pubkeys = (result: Array<{ pubkey: string }>) => result.map((entry) => entry.pubkey)
  const sortedByBytes = (keys: Address[]) => [...keys].sort((a, b) => Buffer.compare(Buffer.from(addressBytes(a)), Buffer.from(addressBytes(b))))

  // rentEpoch is u64::MAX on the wire; JSON.parse rounds it to 2 ** 64
  t.test('every account the program owns, however it was written, sorted by pubkey bytes', async (t) => {
    const { result } = await gpa({ encoding: 'base64' })
    t.same(pubkeys(result), sortedByBytes([fromDir, ...setThrough, created.address]))
    const byKey = new Map(result.map((entry: any) => [entry.pubkey, entry.account]))
    t.same(byKey.get(created.address), { data: [Buffer.alloc(150).toString('base64'), 'base64'], executable: false, lamports: 2_000_000, owner: program, rentEpoch: 2 ** 64, space: 150 })
    t.equal(Buffer.from((byKey.get(fromDir) as any).data[0], 'base64').length, 49)
  })

  t.test('dataSize and memcmp filters (base58 default, base64), ANDed', async (t) => {
    t.same(pubkeys((await gpa({ encoding: 'base64', filters: [{ dataSize: 150 }] })).result), sortedByBytes([...setThrough, created.address]))
    const mintAt8 = { memcmp: { offset: 8, bytes: mintA } }
    t.same(pubkeys((await gpa({ encoding: 'base64', filters: [mintAt8] })).result), sortedByBytes([fromDir, setThrough[0]]))
    t.same(pubkeys((await gpa({ encoding: 'base64', filters: [{ dataSize: 150 }, mintAt8] })).result), [setThrough[0]])
    const base64Mint = Buffer.from(addressBytes(mintB)).toString('base64')
    t.same(pubkeys((await gpa({ encoding: 'base64', filters: [{ memcmp: { offset: 8, bytes: base64Mint, encoding: 'base64' } }] })).result), [setThrough[1]])
    t.same(pubkeys((await gpa({ encoding: 'base64', filters: [{ memcmp: { offset: 0, bytes: encodeBase58(new Uint8Array([2, 2])), encoding: 'base58' } }] })).result), [setThrough[1]])
    t.same((await gpa({ filters: [{ memcmp: { offset: 149, bytes: encodeBase58(new Uint8Array([0, 0])) } }] })).result, [], 'bytes running past the end never match')
    t.same((await gpa({ filters: [{ dataSize: 151 }] })).result, [])
    t.same((await gpa({}, (await generateKeyPairSigner()).address)).result, [], 'a program with no accounts')
  })

  t.test('encodings, dataSlice and withContext', async (t) => {
    const only = { filters: [{ dataSize: 150 }, { memcmp: { offset: 8, bytes: mintB } }] }
    const [base58] = (await gpa({ ...only, encoding: 'base58', dataSlice: { offset: 0, length: 40 } })).result
    t.same(base58.account.data, [encodeBase58(programData(150, 2, mintB).subarray(0, 40)), 'base58'])
    t.equal(base58.account.space, 150, 'space is the whole account, not the slice')
    const [binary] = (await gpa({ ...only, dataSlice: { offset: 8, length: 32 } })).result
    t.equal(binary.account.data, mintB, 'the default encoding is binary (a bare base58 string)')
    const [sliced] = (await gpa({ ...only, encoding: 'base64', dataSlice: { offset: 140, length: 20 } })).result
    t.same(sliced.account.data, [Buffer.alloc(10).toString('base64'), 'base64'], 'a slice past the end is cut at the end')
    const tooBig = await gpa({ ...only, encoding: 'base58' })
    t.equal(tooBig.error.code, -32600, 'base58 over 128 bytes is refused as a node does')
    const withContext = (await gpa({ ...only, encoding: 'base64', withContext: true })).result
    t.same(Object.keys(withContext).sort(), ['context', 'value'])
    t.equal(withContext.context.slot, net.slot())
    t.same(pubkeys(withContext.value), [setThrough[1]])
  })

  t.test('token accounts written by real transactions, jsonParsed and tokenAccountState', async (t) => {
    const mint = await net.createMint({ decimals: 6 })
    const holders = [await net.createWallet(), await net.createWallet()]
    const atas = [await net.mintTo(mint, holders[0].address, 7n), await net.mintTo(mint, holders[1].address, 9n)]
    const { result } = await gpa({ encoding: 'jsonParsed', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint } }, { tokenAccountState: {} }] }, TOKEN_PROGRAM)
    t.same(pubkeys(result), sortedByBytes(atas))
    const parsed = new Map(result.map((entry: any) => [entry.pubkey, entry.account.data.parsed.info.tokenAmount.amount]))
    t.same([parsed.get(atas[0]), parsed.get(atas[1])], ['7', '9'])
  })

  t.test('through kit, with and without context', async (t) => {
    const plain = await net.rpc.getProgramAccounts(program, { encoding: 'base64', filters: [{ dataSize: 49n }] }).send()
    t.same(plain.map((entry) => entry.pubkey), [fromDir])
    t.equal(plain[0].account.lamports, 5_000_000n)
    const contextual = await net.rpc
      .getProgramAccounts(program, { encoding: 'base64', withContext: true, filters: [{ memcmp: { offset: 8n, bytes: mintA as string as never, encoding: 'base58' } }] })
      .send()
    t.equal(contextual.context.slot, BigInt(net.slot()))
    t.same(contextual.value.map((entry) => entry.pubkey), sortedByBytes([fromDir, setThrough[0]]))
  })

  t.test('invalid params are -32602, as on a node', async (t) => {
    const refused = async (params: unknown[], message: RegExp) => {
      const { error } = await rpcCall(net.url, 'getProgramAccounts', params)
      t.equal(error?.code, -32602, `${JSON.stringify(params).slice(0, 80)} → -32602`)
      t.match(error?.message, message)
    }
    await refused([], /invalid length 0/)
    await refused(['not-a-key'], /Invalid param/)
    await refused([program, { filters: [{ dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }, { dataSize: 1 }] }], /Too many filters provided; max 4/)
    await refused([program, { filters: [{ memcmp: { offset: 0, bytes: encodeBase58(new Uint8Array(129).fill(1)) } }] }], /DataTooLarge/)
    await refused([program, { filters: [{ memcmp: { offset: 0, bytes: Buffer.alloc(129, 1).toString('base64'), encoding: 'base64' } }] }], /DataTooLarge/)
    await refused([program, { filters: [{ memcmp: { offset: 0, bytes: '0OIl' } }] }], /Base58DecodeError/)
    await refused([program, { filters: [{ memcmp: { offset: 0, bytes: 'a', encoding: 'hex' } }] }], /unknown variant/)
    await refused([program, { filters: [{ memcmp: { offset: -1, bytes: '1' } }] }], /offset/)
    await refused([program, { filters: [{ owner: program }] }], /unknown variant/)
    await refused([program, { filters: { dataSize: 1 } }], /sequence/)
    await refused([program, { encoding: 'hex' }], /unknown variant/)
    await refused([program, { dataSlice: { offset: -1, length: 1 } }], /dataSlice/)
    await refused([program, { commitment: 'final' }], /unknown variant/)
    await refused([program, { withContext: 'yes' }], /withContext/)
  })

  t.test('an account drained to zero lamports is no longer listed', async (t) => {
    const drained = address(setThrough[1])
    net.setAccount(drained, { lamports: 0n, data: programData(150, 2, mintB), owner: program })
    t.notOk(pubkeys((await gpa({ encoding: 'base64' })).result).includes(drained))
  })
})
