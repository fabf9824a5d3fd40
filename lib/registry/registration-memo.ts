import { MAX_AGENT_NAME_LENGTH } from '../../schemas/registry.js'
/**
 * The registration memo: `{ "agent": <name>, "manifest": <absolute http(s) URL>, "v": 1 }`.
 * The registry (reading) and the registration command (writing) share these rules, so the
 * command never sends a memo the registry would skip.
 */

const REGISTRATION_VERSION = 1
export { MAX_AGENT_NAME_LENGTH }
/** Characters of a manifest URL (ASCII only, so also its bytes). */
export const MAX_MANIFEST_URL_LENGTH = 512

export interface Registration {
  name: string
  manifestUrl: string
}

/** Thrown by the builder; `problems` holds one sentence per rule broken. */
export class InvalidRegistrationError extends Error {
  constructor (readonly problems: string[]) {
    super(`invalid registration: ${problems.join('; ')}`)
    this.name = 'InvalidRegistrationError'
  }
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/
// RFC 3986 characters only: non-ASCII must be percent-encoded or punycode. This also keeps the
// URL free of anything JSON would escape, so its length in the memo is its length here.
const URL_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/
const HTTP_SCHEME = /^https?:\/\//i

function nameProblems (name: unknown): string[] {
  if (typeof name !== 'string') return ['agent must be a string']
  if (name.trim() === '') return ['agent must not be empty']
  const problems: string[] = []
  if ([...name].length > MAX_AGENT_NAME_LENGTH) problems.push(`agent must be at most ${MAX_AGENT_NAME_LENGTH} characters`)
  if (CONTROL_CHARACTER.test(name)) problems.push('agent must not contain control characters')
  return problems
}

function manifestUrlProblems (manifestUrl: unknown): string[] {
  if (typeof manifestUrl !== 'string') return ['manifest must be a string']
  if (manifestUrl.length > MAX_MANIFEST_URL_LENGTH) return [`manifest must be at most ${MAX_MANIFEST_URL_LENGTH} characters`]
  if (!HTTP_SCHEME.test(manifestUrl) || !URL_CHARACTERS.test(manifestUrl)) {
    return ['manifest must be an absolute http or https URL (ASCII, non-ASCII percent-encoded)']
  }
  try {
    const url = new URL(manifestUrl)
    if (url.hostname === '') return ['manifest URL has no host']
  } catch {
    return ['manifest must be an absolute http or https URL (ASCII, non-ASCII percent-encoded)']
  }
  return []
}

/** Every rule a name and manifest URL break; empty when the registry accepts them. */
function registrationProblems (name: unknown, manifestUrl: unknown): string[] {
  return [...nameProblems(name), ...manifestUrlProblems(manifestUrl)]
}

function parseJsonObject (text: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return value as Record<string, unknown>
}

function registrationFromObject (object: Record<string, unknown>): Registration | null {
  if (object.v !== REGISTRATION_VERSION) return null
  if (registrationProblems(object.agent, object.manifest).length > 0) return null
  return { name: object.agent as string, manifestUrl: object.manifest as string }
}

/** The registration one memo text carries, or null when it carries none. Unknown keys are ignored. */
export function parseRegistrationMemo (text: string): Registration | null {
  const object = parseJsonObject(text)
  return object === undefined ? null : registrationFromObject(object)
}

/**
 * The registration of a transaction, given its memos in instruction order. Plain-text memos are
 * passed over; the first memo that is a JSON object decides, so a transaction whose first JSON
 * memo is not a valid registration registers nothing, whatever follows it.
 */
export function registrationFromMemos (memos: readonly string[]): Registration | null {
  for (const memo of memos) {
    const object = parseJsonObject(memo)
    if (object !== undefined) return registrationFromObject(object)
  }
  return null
}

/** The memo text of a registration; throws InvalidRegistrationError when the registry would skip it. */
export function buildRegistrationMemo ({ name, manifestUrl }: Registration): string {
  const problems = registrationProblems(name, manifestUrl)
  if (problems.length > 0) throw new InvalidRegistrationError(problems)
  return JSON.stringify({ agent: name, manifest: manifestUrl, v: REGISTRATION_VERSION })
}
