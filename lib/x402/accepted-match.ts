/**
 * Whether a v2 payload's `accepted` is the offered requirement. Compared here rather than with
 * @x402/core's matcher, whose deep equality re-serialises every level (time quadratic in depth: a
 * 6 KB nested `accepted` held the event loop for seconds). The requirement is flat: its own keys
 * with scalar values, and `extra`, a flat object of scalars; anything else in `accepted` is not it.
 */

/** Fields the scheme fills per transaction (the SVM exact server's dynamic extra fields), not part of the offer. */
const DYNAMIC_EXTRA_FIELDS = new Set(['recentBlockhash', 'lastValidBlockHeight'])

type Scalar = string | number | boolean | null

function isScalar (value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isFlat (value: Record<string, unknown>): boolean {
  return Object.values(value).every(isScalar)
}

export function acceptedMatches (requirement: object, accepted: unknown): boolean {
  if (!isRecord(accepted)) return false
  const { extra: requiredExtra, ...requiredCore } = requirement as Record<string, unknown>
  const { extra: acceptedExtra, ...acceptedCore } = accepted
  const keys = Object.keys(requiredCore)
  if (Object.keys(acceptedCore).length !== keys.length) return false
  for (const key of keys) {
    const value = requiredCore[key]
    if (!isScalar(value) || !Object.hasOwn(acceptedCore, key) || acceptedCore[key] !== value) return false
  }
  if (requiredExtra === undefined) return acceptedExtra === undefined || (isRecord(acceptedExtra) && isFlat(acceptedExtra))
  if (!isRecord(requiredExtra) || !isRecord(acceptedExtra) || !isFlat(acceptedExtra)) return false
  // `accepted.extra` may carry more than the offer's (the client's dynamic fields); every offered one must be equal.
  return Object.entries(requiredExtra).every(([key, value]) =>
    DYNAMIC_EXTRA_FIELDS.has(key) || (isScalar(value) && Object.hasOwn(acceptedExtra, key) && acceptedExtra[key] === value))
}
