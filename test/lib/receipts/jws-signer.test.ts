import { statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { extractJWSHeader, verifyOfferSignatureJWS, verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt'
import type { PaymentRequirements } from '@x402/core/types'
import { didDocument, didWebOf, keyIdOf } from '../../../lib/receipts/did-document.js'
import { createReceiptSigner, OFFER_VALIDITY_SECONDS } from '../../../lib/receipts/jws-signer.js'
import { loadReceiptKeys } from '../../../lib/receipts/receipt-keys.js'
import { testFolder } from '../../fixtures/test-folder.js'

const ACCEPT = { scheme: 'exact', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', asset: 'So11111111111111111111111111111111111111112', payTo: '11111111111111111111111111111112', amount: '50000', maxTimeoutSeconds: 300, extra: {} } as PaymentRequirements

t.test('did:web of a base URL: the port percent-encoded, path segments joined by colons', async t => {
  t.equal(didWebOf('https://merchant.example'), 'did:web:merchant.example')
  t.equal(didWebOf('http://localhost:3000'), 'did:web:localhost%3A3000')
  t.equal(didWebOf('https://example.com/shop/'), 'did:web:example.com:shop')
})

t.test('a key file created owner-only, offers and receipts the library verifies with the DID document\'s key', async t => {
  const path = join(testFolder(t), 'keys', 'receipt-keypair.json')
  const keys = await loadReceiptKeys(path, ['11111111111111111111111111111112'])
  t.equal(statSync(path).mode & 0o777, 0o600)
  t.same((await loadReceiptKeys(path)).current, keys.current, 'the same key on the next start')
  const did = didWebOf('https://merchant.example')
  const signer = createReceiptSigner(keys, key => keyIdOf(did, key))
  const document = didDocument(did, keys)
  t.same(document.verificationMethod.map(m => m.id), [keyIdOf(did, keys.current), keyIdOf(did, '11111111111111111111111111111112')])
  const jwk = document.verificationMethod[0].publicKeyJwk as Parameters<typeof verifyOfferSignatureJWS>[1]

  const now = 1_800_000_000
  const [offer] = signer.offers('https://merchant.example/api/x', [ACCEPT], now)
  t.same(extractJWSHeader(offer.signature), { alg: 'EdDSA', kid: signer.kid })
  const payload = await verifyOfferSignatureJWS(offer, jwk)
  t.match(payload, { version: 1, resourceUrl: 'https://merchant.example/api/x', amount: '50000', payTo: ACCEPT.payTo })
  const left = (payload.validUntil ?? 0) - now
  t.ok(left > OFFER_VALIDITY_SECONDS / 2 && left <= OFFER_VALIDITY_SECONDS, `valid ${left} s: between half and all of the validity`)
  t.same(signer.offers('https://merchant.example/api/x', [ACCEPT], now + 1), [offer], 'the same bytes within one step')
  t.not(signer.offers('https://merchant.example/api/x', [ACCEPT], now + OFFER_VALIDITY_SECONDS)[0].signature, offer.signature, 'a later step signs anew')

  const receipt = signer.receipt({ resourceUrl: 'https://merchant.example/api/x', payer: 'buyer', network: ACCEPT.network, transaction: 'tx', issuedAt: now })
  t.same(await verifyReceiptSignatureJWS(receipt, jwk), { version: 1, network: ACCEPT.network, resourceUrl: 'https://merchant.example/api/x', payer: 'buyer', issuedAt: now, transaction: 'tx' })
  const tampered = { ...receipt, signature: receipt.signature.replace(/\.[^.]+\./, `.${Buffer.from(JSON.stringify({ payer: 'someone else' })).toString('base64url')}.`) }
  await t.rejects(verifyReceiptSignatureJWS(tampered, jwk), 'a changed payload does not verify')
})
