import type { IncomingHttpHeaders } from 'node:http'
import type { AuditFlow } from '../../db/contracts/audit-log.js'
import type { ClaimVerdict } from '../contract/claim-verdict.js'
import { refusal, type Refusal } from '../contract/refusal.js'
import type { PaidServiceName } from '../payment/catalog.js'

/** What a way to pay makes of a request it opened (the core's first phase takes it). */
export type MethodVerdict = ClaimVerdict

/** What a way to pay is given to open a request. */
export interface MethodRequest {
  request: { readonly method: string, readonly url: string, readonly headers: IncomingHttpHeaders }
  service: PaidServiceName
  /** The URL the payment buys, as the 402 offered it. */
  resource: string
  /** Method, resource and arguments (lib/contract/request-key.ts). */
  requestKey: string
  /** Called before the first work that costs (RPC, store): throws the 429 when the client's failed payments used up the limit, else counts the attempt as under way. */
  attempt: () => void
}

/** One way to pay over HTTP, as the door picks it (lib/doors/http-methods.ts lists them). */
export interface HttpPaymentMethod {
  /** The request headers that name this way to pay, lower-case: a request carrying any of them pays this way. */
  readonly headers: readonly string[]
  /** When a header alone does not name it (Authorization carries other schemes too): whether these headers do. */
  readonly carries?: (headers: IncomingHttpHeaders) => boolean
  /** How the answer to a request that names two ways to pay calls this one ("the proof headers"). */
  readonly called: string
  /** The flow of its attempts in the audit log and the metrics. */
  readonly flow: AuditFlow
  /** The answer header that carries its receipt (base64 JSON), on a delivery and on a re-delivery. */
  readonly receiptHeader: string
  /** The receipt header's value; base64 JSON of the receipt unless the way to pay has a format of its own. */
  readonly encodeReceipt?: (receipt: Record<string, unknown>) => string
  /** Verifies and claims the request's payment. */
  open: (opening: MethodRequest) => Promise<MethodVerdict>
}

/** The ways to pay a request names: none (it is unpaid), one (which opens it), or more (refused, and counted in the flow of `method`, the first one named). */
export type Named =
  | { kind: 'none' }
  | { kind: 'one', method: HttpPaymentMethod }
  | { kind: 'conflict', method: HttpPaymentMethod, refusal: Refusal }

const NONE: Named = { kind: 'none' }

const present = (headers: IncomingHttpHeaders, name: string) => headers[name] !== undefined

function names (method: HttpPaymentMethod, headers: IncomingHttpHeaders): boolean {
  if (method.carries !== undefined) return method.carries(headers)
  for (const name of method.headers) if (present(headers, name)) return true
  return false
}

/** "a", "a or b", "a, b or c". */
function either (phrases: string[]): string {
  return phrases.length < 2 ? phrases.join('') : `${phrases.slice(0, -1).join(', ')} or ${phrases[phrases.length - 1]}`
}

/**
 * Which of `methods` a request names, read from its headers alone (no promise: a request without
 * payment is answered synchronously). More than one way to pay in one request, or one header sent
 * twice, is a conflict: which payment is meant cannot be guessed, and paying with one while the
 * other is ignored would surprise the buyer.
 */
export function createMethodPicker (methods: readonly HttpPaymentMethod[]): (headers: IncomingHttpHeaders) => Named {
  const ways = either([...new Set(methods.map(method => method.called))])

  function conflict (headers: IncomingHttpHeaders, named: HttpPaymentMethod[]): Named {
    const sent = [...new Set(named.flatMap(method => method.headers.filter(name => present(headers, name))))]
    return {
      kind: 'conflict',
      method: named[0],
      refusal: refusal('PAYMENT_FORMS_CONFLICT', `One payment per request: send either ${ways}, not ${sent.join(' + ')}`, { details: { headers: sent } })
    }
  }

  return function named (headers) {
    let first: HttpPaymentMethod | undefined
    for (const method of methods) {
      if (!names(method, headers)) continue
      if (first !== undefined) return conflict(headers, methods.filter(other => names(other, headers)))
      first = method
    }
    if (first === undefined) return NONE
    // A repeated header is two payments in one request: as ambiguous as two ways to pay.
    if (first.headers.some(name => Array.isArray(headers[name]))) return conflict(headers, [first])
    return { kind: 'one', method: first }
  }
}
