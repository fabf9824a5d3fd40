import { createHash } from 'node:crypto'
import type { DeliveryEvidence } from '../../db/contracts/delivery-evidence.js'
import type { Static } from '@sinclair/typebox'
import type { ReputationDeliveries } from '../../schemas/reputation.js'

export type DeliveriesBody = Static<typeof ReputationDeliveries>

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** One page of /reputation/deliveries: the audit id of its last entry is the next cursor. */
export function createDeliveriesPage (evidence: DeliveryEvidence, network: string) {
  return async (cursor: string | undefined, limit: number): Promise<DeliveriesBody> => {
    // One more than asked tells whether a next page exists without a count.
    const rows = await evidence.page(BigInt(cursor ?? '0'), limit + 1)
    const page = rows.slice(0, limit)
    return {
      deliveries: page.map(row => ({
        signature: row.signature,
        network,
        service: row.service,
        price: row.amount.toString(),
        resource_hash: sha256(row.resource),
        outcome: row.outcome,
        at: new Date(row.at).toISOString()
      })),
      next_cursor: rows.length > limit ? (page.at(-1)?.id ?? 0n).toString() : null
    }
  }
}
