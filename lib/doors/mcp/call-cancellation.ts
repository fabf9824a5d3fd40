import { createHash, randomBytes } from 'node:crypto'

const SESSION_ID = /^[A-Za-z0-9_-]{32}$/
/** How long a cancel notice is remembered in this process: longer than any paid call. */
const REMEMBERED_MS = 10 * 60_000
const MAX_REMEMBERED = 10_000

interface Message { method?: unknown, params?: { requestId?: unknown } }

/**
 * MCP cancellation for a stateless server. The official client cancels a call (AbortSignal,
 * timeout) with a `notifications/cancelled` POST of its own, so the notice must find the call
 * through the store: each call is named by its session id (random, 192 bits, given at initialize)
 * and its JSON-RPC id, hashed. A client can only name its own calls: another's session id is
 * never sent to it.
 */
export function createCallCancellation (options: { cancelCall: (callerRef: string) => Promise<boolean> }) {
  const cancelledHere = new Map<string, number>()

  // Every notice is kept as long, so the map's insertion order is its expiry order: the oldest go
  // first, in constant time per notice (a scan of the full map per notice made a large batch of
  // notices cost seconds of the event loop).
  function remember (callerRef: string, now: number) {
    cancelledHere.delete(callerRef)
    for (const [ref, until] of cancelledHere) {
      if (until > now && cancelledHere.size < MAX_REMEMBERED) break
      cancelledHere.delete(ref)
    }
    cancelledHere.set(callerRef, now + REMEMBERED_MS)
  }

  const refOf = (sessionId: string, jsonRpcId: string | number) =>
    createHash('sha256').update(`${sessionId}\n${JSON.stringify(jsonRpcId)}`).digest('base64url')

  return {
    /** A new session id, for the answer to an initialize request. */
    newSessionId: () => randomBytes(24).toString('base64url'),

    /** Whether the body holds an initialize request (the answer then carries a session id). */
    initializes: (body: unknown) => (Array.isArray(body) ? body : [body]).some(message => (message as Message | null)?.method === 'initialize'),

    /** The name of a call under the request's session, or undefined without a (well-formed) session. */
    callerRefOf (sessionHeader: unknown, jsonRpcId: string | number): string | undefined {
      return typeof sessionHeader === 'string' && SESSION_ID.test(sessionHeader) ? refOf(sessionHeader, jsonRpcId) : undefined
    },

    /** Records the body's cancel notices: before settlement nothing is sent, after it the result counts as not delivered. */
    async cancelNoticed (sessionHeader: unknown, body: unknown): Promise<void> {
      for (const message of Array.isArray(body) ? body : [body]) {
        const { method, params } = (message ?? {}) as Message
        const id = params?.requestId
        if (method !== 'notifications/cancelled' || (typeof id !== 'string' && typeof id !== 'number')) continue
        const callerRef = this.callerRefOf(sessionHeader, id)
        if (callerRef === undefined) continue
        remember(callerRef, Date.now())
        await options.cancelCall(callerRef)
      }
    },

    cancelledHere: (callerRef: string | undefined) => callerRef !== undefined && (cancelledHere.get(callerRef) ?? 0) > Date.now()
  }
}
