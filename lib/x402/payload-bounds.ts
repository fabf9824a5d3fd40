/**
 * A decoded payment payload is an attacker's JSON: before anything walks it, its shape is bounded.
 * A real payload (the official clients' v2 with the bazaar and payment-identifier extensions echoed)
 * is a dozen levels deep and a few hundred values; these limits leave room for that and refuse the
 * deeply nested or huge documents whose every reader costs time quadratic in their depth.
 */
export const MAX_PAYLOAD_DEPTH = 32
export const MAX_PAYLOAD_NODES = 5_000

/** Why the value exceeds the bounds, or undefined when it is within them. Iterative: no recursion to overflow. */
export function payloadBeyondBounds (value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]]
  let nodes = 0
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number]
    if (++nodes > MAX_PAYLOAD_NODES) return `the payment payload holds more than ${MAX_PAYLOAD_NODES} values`
    if (typeof node !== 'object' || node === null) continue
    if (depth > MAX_PAYLOAD_DEPTH) return `the payment payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1])
  }
  return undefined
}
