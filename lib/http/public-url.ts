import type { FastifyRequest } from 'fastify'

/**
 * The absolute base URL clients reach us at: PUBLIC_BASE_URL when set (behind a proxy or
 * a load balancer), otherwise what the request itself says.
 */
export function publicBaseUrl (request: FastifyRequest, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '')
  return `${request.protocol}://${request.host}`
}
