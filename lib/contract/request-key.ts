import { createHash } from 'node:crypto'

/** JSON with object keys sorted at every level: the same arguments give the same text in any order. */
function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, field]) => field !== undefined).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * What a payment bought, as one short key: the method, the resource (an HTTP path with its query,
 * or an MCP tool's URL) and the arguments. A kept answer is re-delivered only to the same key, and
 * a payment-identifier names one key.
 */
export function requestKey (method: string, resource: string, args?: unknown): string {
  return createHash('sha256').update(`${method}\n${resource}\n${args === undefined ? '' : canonicalJson(args)}`).digest('base64url')
}
