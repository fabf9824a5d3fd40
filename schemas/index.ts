import { Kind, type TSchema } from '@sinclair/typebox'
import * as discovery from './discovery.js'
import * as error from './error.js'
import * as health from './health.js'
import * as manifest from './manifest.js'
import * as payment from './payment.js'
import * as paywall from './paywall.js'
import * as price from './price.js'
import * as refunds from './refunds.js'
import * as registry from './registry.js'
import * as reputation from './reputation.js'
import { OPERATION_ERROR_MODELS, operationErrorModels } from './responses.js'
import * as tokenAnalysis from './token-analysis.js'
import * as x402 from './x402.js'

function isModel (value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && Kind in value && typeof (value as TSchema).$id === 'string'
}

function refundErrorModels (): TSchema[] {
  return operationErrorModels('requestRefund')
}
const REFUND_ERROR_IDS = new Set(refundErrorModels().map(model => model.$id))

/** Every named model (each exported schema with a `$id`), registered once with fastify.addSchema. */
export const MODELS: TSchema[] = [discovery, error, health, manifest, payment, paywall, price, registry, reputation, tokenAnalysis, x402]
  .flatMap(module => Object.values(module))
  .filter(isModel)
  .concat(OPERATION_ERROR_MODELS.filter(model => !REFUND_ERROR_IDS.has(model.$id)))

/**
 * The refund endpoint's models, registered only when REFUNDS is on: off, no operation refers to
 * them and the document would list components nothing uses.
 */
export const REFUND_MODELS: TSchema[] = [...Object.values(refunds).filter(isModel), ...refundErrorModels()]
