/**
 * DNS-rebinding protection for the MCP endpoint (the MCP transport requires servers to validate
 * Origin). A browser page on any site can be made to reach a server by a name that resolves to it,
 * and then its Host header names that site too, so comparing Origin with Host proves nothing: only
 * a fixed list does. Allowed: calls without Origin (agents, not browsers), the origin of
 * PUBLIC_BASE_URL, loopback origins (local tools), and MCP_ALLOWED_ORIGINS (`*` allows any).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** MCP_ALLOWED_ORIGINS: empty, `*`, or comma-separated http(s) origins (scheme://host[:port], no path). */
export function parseOriginList (value: string): '*' | string[] | undefined {
  const trimmed = value.trim()
  if (trimmed === '') return []
  if (trimmed === '*') return '*'
  const entries = trimmed.split(',').map(entry => entry.trim())
  const origins: string[] = []
  for (const entry of entries) {
    let url: URL
    try {
      url = new URL(entry)
    } catch {
      return undefined
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '').toLowerCase()) return undefined
    origins.push(url.origin)
  }
  return origins
}

export type OriginPolicy = (origin: string | undefined) => boolean

export function createOriginPolicy (options: { allowed: '*' | string[], publicBaseUrl?: string }): OriginPolicy {
  if (options.allowed === '*') return () => true
  const allowed = new Set(options.allowed)
  if (options.publicBaseUrl !== undefined) allowed.add(new URL(options.publicBaseUrl).origin)
  return (origin) => {
    if (origin === undefined) return true
    if (allowed.has(origin)) return true
    try {
      const url = new URL(origin)
      return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname) && url.origin === origin
    } catch {
      return false
    }
  }
}
