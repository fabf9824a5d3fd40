import fp from 'fastify-plugin'
import { ConfigError } from '../../config.js'
import { didDocument, didWebOf, keyIdOf, receiptBaseUrl } from '../../lib/receipts/did-document.js'
import { createReceiptSigner, type ReceiptSigner } from '../../lib/receipts/jws-signer.js'
import { defaultReceiptKeypairPath, loadReceiptKeys } from '../../lib/receipts/receipt-keys.js'
import { inspectKeypairFile } from '../../lib/solana/keypair-policy.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Signs offers, receipts and the reputation with the receipt key (never the money key). */
    receipts: {
      signer: ReceiptSigner
      /** The base the receipts' resource URLs and the did:web are made of. */
      baseUrl: string
      /** A stored resource (a path, or an absolute tool URL) as the absolute URL an offer named. */
      resourceUrl: (resource: string) => string
    }
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const baseUrl = receiptBaseUrl(config.PUBLIC_BASE_URL, config.PORT)
  const did = didWebOf(baseUrl)
  const path = config.RECEIPT_KEYPAIR_PATH ?? defaultReceiptKeypairPath(config.MERCHANT_KEYPAIR_PATH)
  // The merchant keypair's file rules: valid, owner-only (refused in production, else a warning).
  const inspection = inspectKeypairFile(path, { variable: 'RECEIPT_KEYPAIR_PATH', mayCreate: true, strictMode: process.env.NODE_ENV === 'production' })
  if (inspection.state === 'problem') throw new ConfigError([inspection.problem])
  if (inspection.state === 'exists' && inspection.warning !== undefined) fastify.log.warn(inspection.warning)
  let keys
  try {
    keys = await loadReceiptKeys(path, (config.RECEIPT_RETIRED_KEYS ?? '').split(',').map(key => key.trim()).filter(key => key !== ''))
  } catch (error) {
    throw new ConfigError([`RECEIPT_KEYPAIR_PATH: ${(error as Error).message}`])
  }
  if (keys.current === config.paymentAddress) throw new ConfigError(['RECEIPT_KEYPAIR_PATH: the receipt key must not be the merchant key that holds the money'])
  const signer = createReceiptSigner(keys, key => keyIdOf(did, key))
  const document = JSON.stringify(didDocument(did, keys))

  fastify.decorate('receipts', {
    signer,
    baseUrl,
    resourceUrl: (resource: string) => /^[a-z][a-z0-9+.-]*:/i.test(resource) ? resource : `${baseUrl}${resource}`
  })

  fastify.get('/.well-known/did.json', { schema: { hide: true } }, async (_request, reply) =>
    await reply.header('content-type', 'application/did+json').header('cache-control', 'public, max-age=300').send(document))
}, { name: 'receipts', fastify: '5.x', dependencies: ['config'] })
