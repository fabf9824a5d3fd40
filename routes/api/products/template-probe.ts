import type { FastifyRequest } from 'fastify'
import { validationError } from '../../../lib/errors/error-body.js'

/**
 * Directory crawlers (x402scan) probe a paid route at its own OpenAPI template,
 * `GET /api/<product>/%7Bparam%7D`, and register it only if the answer is the 402 with the terms
 * ("ensure the x402 paywall runs before path parameter validation"). Everything else that is
 * malformed stays a 400 before any payment.
 *
 * The paid routes validate with `attachValidation`, and their own preHandler (ahead of the payment
 * gate) calls this first: a validation failure is thrown as Fastify would have thrown it, unless
 * the path parameter is its own template, which goes on to the gate and gets the unpaid 402. No
 * hook stage is added for it (each costs every request). A probe can never be bought: one that
 * carries a payment is refused as the malformed input it is.
 *
 * Returns true for a template probe (the route skips its input checks).
 */
export function passTemplateProbe (request: FastifyRequest, param: string): boolean {
  const failed = request.validationError
  if (failed === undefined) return false
  const template = `{${param}}`
  if ((request.params as Record<string, unknown>)[param] !== template) throw failed
  if (request.server.carriesPayment(request.headers)) {
    throw validationError([{ in: 'params', path: param, message: `is the route template ${template}: name a value to buy` }])
  }
  return true
}
