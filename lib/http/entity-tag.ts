import { createHash } from 'node:crypto'

/** A strong entity tag for a body that is the same bytes for every request: `"<sha-256, base64url>"`. */
export function entityTag (body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`
}

/**
 * Whether an If-None-Match header names `tag` (RFC 9110 §13.1.2: `*`, or a list compared weakly,
 * so `W/"x"` matches `"x"`): the client's copy is current and a 304 will do.
 */
export function noneMatchHits (header: string | undefined, tag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  for (const candidate of header.split(',')) {
    const trimmed = candidate.trim()
    if ((trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === tag) return true
  }
  return false
}
