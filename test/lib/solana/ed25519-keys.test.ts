import { generateKeyPairSync, sign, verify } from 'node:crypto'
import t from 'tap'
import { createEd25519KeyCache } from '../../../lib/solana/ed25519-keys.js'

function rawKeyPair () {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  // The raw key is the SPKI DER's last 32 bytes.
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32))
  return { raw, privateKey }
}

t.test('the key made from raw bytes verifies that key\'s signatures, and is made once', async t => {
  const publicKeyOf = createEd25519KeyCache()
  const { raw, privateKey } = rawKeyPair()
  const message = Buffer.from('a transaction message')
  const key = publicKeyOf(raw)
  t.ok(key !== undefined && verify(null, message, key, sign(null, message, privateKey)), 'verifies')
  t.notOk(key !== undefined && verify(null, Buffer.from('another message'), key, sign(null, message, privateKey)), 'refuses another message')
  // The same bytes at another offset of another buffer (as read out of a transaction) name the same key.
  const inTransaction = new Uint8Array(100)
  inTransaction.set(raw, 40)
  t.equal(publicKeyOf(inTransaction.subarray(40, 72)), key, 'kept')
})

t.test('bytes that are no Ed25519 key give none', async t => {
  t.equal(createEd25519KeyCache()(new Uint8Array(31)), undefined)
})

t.test('the cache keeps at most its capacity: the oldest key goes first', async t => {
  const publicKeyOf = createEd25519KeyCache(2)
  const [a, b, c] = [rawKeyPair().raw, rawKeyPair().raw, rawKeyPair().raw]
  const first = publicKeyOf(a)
  publicKeyOf(b)
  t.equal(publicKeyOf(a), first, 'within capacity: kept')
  publicKeyOf(c)
  const again = publicKeyOf(a)
  t.not(again, first, 'the oldest was let go: made anew')
  t.ok(again?.equals(first as NonNullable<typeof first>), 'the same key')
})
