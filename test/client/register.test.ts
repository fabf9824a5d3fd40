import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { address, getAddressDecoder, getBase58Encoder } from '@solana/kit'
import t from 'tap'
import { loadKeypairSigner } from '../../lib/solana/keypair-file.js'
import { registerAgent } from '../../client/register.js'
import { DEFAULT_REGISTRY_ADDRESS } from '../../config.js'
import { startLocalnet } from '@token-merchant/localnet'
import { generateKeypairBytes } from '../../lib/solana/keypair-file.js'
import { InvalidRegistrationError, MAX_AGENT_NAME_LENGTH, MAX_MANIFEST_URL_LENGTH } from '../../lib/registry/registration-memo.js'
import { testFolder } from '../fixtures/test-folder.js'

const MANIFEST = 'https://agent.example/.well-known/agent.json'

t.test('registerAgent on the local chain', async t => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const wallet = await net.createWallet()
  const register = (name: string, manifestUrl = MANIFEST) =>
    registerAgent({ rpc: net.rpc, signer: wallet, registryAddress: DEFAULT_REGISTRY_ADDRESS, name, manifestUrl, pollIntervalMs: 20 })

  t.test('lands a memo on MemoSq with the registry as a read-only, non-signer key', async t => {
    const before = await net.rpc.getBalance(wallet.address).send()
    const signature = await register('price-bot')
    const tx = await net.rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send()
    if (tx === null) throw new Error('registration not found')
    t.equal(tx.meta?.err, null)
    const { accountKeys, header, instructions } = tx.transaction.message
    t.equal(accountKeys[0], wallet.address, 'the wallet pays the fee')
    const registryIndex = accountKeys.indexOf(address(DEFAULT_REGISTRY_ADDRESS))
    t.ok(registryIndex >= header.numRequiredSignatures, 'the registry does not sign')
    t.ok(registryIndex >= accountKeys.length - header.numReadonlyUnsignedAccounts, 'the registry is read-only')
    const memo = instructions.find(ix => accountKeys[ix.programIdIndex] === 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')
    t.same(memo?.accounts, [], 'no accounts on the memo: the signer rule holds')
    t.equal(Buffer.from(getBase58Encoder().encode(memo?.data ?? '')).toString('utf8'), `{"agent":"price-bot","manifest":"${MANIFEST}","v":1}`)
    const after = await net.rpc.getBalance(wallet.address).send()
    t.equal(before.value - after.value, tx.meta?.fee, 'only the fee is spent')
  })

  t.test('the largest registration fits: 64 four-byte characters and a 512-character URL', async t => {
    const url = `https://a.example/${'p'.repeat(MAX_MANIFEST_URL_LENGTH - 'https://a.example/'.length)}`
    const signature = await register('🤖'.repeat(MAX_AGENT_NAME_LENGTH), url)
    const statuses = await net.rpc.getSignatureStatuses([signature]).send()
    t.equal(statuses.value[0]?.err, null, 'its compute budget was sized by simulation')
  })

  t.test('refuses what the registry would skip, before any RPC call', async t => {
    net.resetStats()
    await t.rejects(register('', MANIFEST), InvalidRegistrationError)
    const error = await register('ok', 'ftp://files.example/agent.json').catch((e: unknown) => e)
    t.same((error as InvalidRegistrationError).problems, ['manifest must be an absolute http or https URL (ASCII, non-ASCII percent-encoded)'])
    await t.rejects(registerAgent({ rpc: net.rpc, signer: wallet, registryAddress: 'not-an-address', name: 'ok', manifestUrl: MANIFEST }), InvalidRegistrationError)
    t.same(net.stats(), {})
  })

  t.test('a wallet that cannot pay is refused by the simulation', async t => {
    const broke = await net.createWallet(0n)
    await t.rejects(registerAgent({ rpc: net.rpc, signer: broke, registryAddress: DEFAULT_REGISTRY_ADDRESS, name: 'broke', manifestUrl: MANIFEST }))
  })
})

t.test('loadKeypairSigner reads solana-keygen files', async t => {
  const dir = testFolder(t)
  const bytes = generateKeypairBytes()
  const good = join(dir, 'id.json')
  await writeFile(good, JSON.stringify([...bytes]))
  const signer = await loadKeypairSigner(good)
  t.equal(signer.address, getAddressDecoder().decode(bytes.subarray(32)))

  const mismatched = join(dir, 'mismatched.json')
  await writeFile(mismatched, JSON.stringify([...bytes.subarray(0, 32), ...generateKeypairBytes().subarray(32)]))
  await t.rejects(loadKeypairSigner(mismatched), /does not match its secret key/)
  const short = join(dir, 'short.json')
  await writeFile(short, JSON.stringify([1, 2, 3]))
  await t.rejects(loadKeypairSigner(short), /JSON array of 64 bytes/)
  const garbage = join(dir, 'garbage.json')
  await writeFile(garbage, 'not json')
  await t.rejects(loadKeypairSigner(garbage), /not valid JSON/)
  await t.rejects(loadKeypairSigner(join(dir, 'missing.json')), /missing\.json does not exist \(write one: token-merchant keygen <file>\)/)
})
