// One process hammering the replay store: claim then redeem, each pair on a signature of its own,
// for STORE_SECONDS after the parent says go. Reports the pairs it completed.
import { randomUUID } from 'node:crypto'
import { openDatabase } from '../db/open-database.js'
import { createPaymentClaims } from '../db/payment-claims.js'

const path = process.env.STORE_DATABASE as string
const seconds = Number(process.env.STORE_SECONDS)
const tag = process.env.STORE_TAG as string
const db = openDatabase(path)
const claims = createPaymentClaims(db)
const SIGNATURE_LENGTH = 88 // a base58 64-byte signature is 87 or 88 characters

function pairs (): { pairs: number, seconds: number } {
  const request = { claimId: '', service: 'fetch-price', payer: 'Fe8T7EDJ2EoLcpAXUjbKETZsycerL5AHKkcRz8hporXW', amount: 50_000n, resource: 'http://127.0.0.1/api/fetch-price/SOL', leaseMs: 60_000 }
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  let done = 0
  while (performance.now() < deadline) {
    const signature = `${tag}${done}`.padStart(SIGNATURE_LENGTH, '1')
    const claimId = randomUUID()
    if (!claims.claim({ ...request, signature, claimId }).claimed) throw new Error(`claim of a new signature ${signature} lost`)
    if (!claims.redeem(signature, claimId)) throw new Error(`redeem of ${signature} failed`)
    done++
  }
  return { pairs: done, seconds: (performance.now() - started) / 1000 }
}

process.once('message', () => {
  const result = pairs()
  db.close()
  process.send?.(result, () => process.exit(0))
})
process.send?.('ready')
