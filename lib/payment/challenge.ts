import { errorBody } from '../errors/error-body.js'
import type { Refusal } from '../contract/refusal.js'

// Stands for the resource URL while a requirement is serialised once; split out afterwards.
const RESOURCE_MARK = '\u0000resource\u0000'
const RESOURCE_MARK_JSON = JSON.stringify(RESOURCE_MARK)

/** One x402 payment requirement of a service: the same for every request but its `resource`. */
export interface ResourceRequirement {
  resource: string
}

/**
 * The JSON text of a requirement cut around its resource URL: `prefix + JSON(url) + suffix`.
 * Serialised once per service (and again only when the requirement changes).
 */
export interface SplicedJson {
  prefix: string
  suffix: string
}

/** Serialises `value` once with a mark in place of the resource URL and cuts the text there. */
export function spliceAroundResource<T extends ResourceRequirement> (value: T): SplicedJson {
  const text = JSON.stringify({ ...value, resource: RESOURCE_MARK })
  const at = text.indexOf(RESOURCE_MARK_JSON)
  if (at === -1 || text.indexOf(RESOURCE_MARK_JSON, at + 1) !== -1) throw new Error('the requirement must hold its resource URL exactly once')
  return { prefix: text.slice(0, at), suffix: text.slice(at + RESOURCE_MARK_JSON.length) }
}

/** The error-shape head of a challenge, `{"statusCode":...,"code":"..."` without the request id. */
function headOf (refused: Refusal): string {
  const { requestId, ...head } = errorBody({ id: '' }, refused.statusCode, refused.code, refused.message, refused.details)
  const text = JSON.stringify(head)
  return text.slice(0, -1)
}

/**
 * The 402 challenge bodies of one paid service: the error shape (with the request id) plus the
 * x402 v1 fields, `{...error, "x402Version":1, "accepts":[requirement]}`. Everything but the
 * request id and the resource URL is text made once: a challenge costs two JSON string escapes
 * and a concatenation, not a serialisation of the whole body. The plain no-proof head is kept;
 * other rejections (rare: they follow a malformed or failed proof) build their head per call.
 */
export function createChallengeBodies (requirement: ResourceRequirement, paymentRequired: Refusal) {
  const { prefix, suffix } = spliceAroundResource(requirement)
  const accepts = `,"x402Version":1,"accepts":[${prefix}`
  const close = `${suffix}]}`
  const plainHead = headOf(paymentRequired)
  const plainBeforeId = `${plainHead},"requestId":`
  // Everything after the request id: the same for every request to one resource URL.
  const afterRequestId = (resourceUrl: string) => `${accepts}${JSON.stringify(resourceUrl)}${close}`

  function body (head: string, requestId: string, resourceUrl: string): string {
    return `${head},"requestId":${JSON.stringify(requestId)}${afterRequestId(resourceUrl)}`
  }

  return {
    /**
     * The answer to a request without a proof, for one resource URL: made once per URL, after
     * which a challenge joins three strings. Text, not bytes: Node writes a text body in one
     * write with the headers, while bytes go out as a second chunk (measured 16% more CPU per 402).
     */
    paymentRequiredAt (resourceUrl: string): (requestId: string) => string {
      const afterId = afterRequestId(resourceUrl)
      return requestId => plainBeforeId + JSON.stringify(requestId) + afterId
    },
    /** The answer to a refused payment: its status, code, message and details, with the requirements again. */
    refused: (refused: Refusal, requestId: string, resourceUrl: string): string =>
      body(headOf(refused), requestId, resourceUrl)
  }
}

export type ChallengeBodies = ReturnType<typeof createChallengeBodies>
