import { randomUUID } from 'node:crypto'
import type { Catalogue } from '../../catalogue/catalogue.js'
import { readPurchase, SKILL_FIELD, type Purchase } from './skills.js'

/**
 * Ids of tasks that await payment. Asking for payment stores nothing (unpaid traffic must not cost
 * storage): the task's id carries what it sells (skill, input, context) beside 122 random bits, so
 * any instance can rebuild the task from its id alone when the payment comes. Nothing in it is
 * secret or trusted: it is read with the same checks as a message, and it names only what the
 * holder could have asked for anyway.
 */
const PREFIX = 'tm1.'
/** Far above a real id (a mint address and a context id), far below anything a row should hold. */
export const MAX_TASK_ID_LENGTH = 1024
export const MAX_CONTEXT_ID_LENGTH = 200

export interface UnpaidTask {
  purchase: Purchase
  contextId: string
}

export function newTaskId (purchase: Purchase, contextId: string): string {
  const input = { [SKILL_FIELD]: purchase.service, ...purchase.args }
  return PREFIX + Buffer.from(JSON.stringify([randomUUID(), input, contextId])).toString('base64url')
}

/** What a task id of ours sells, or undefined for any other text. */
export function readTaskId (id: string, catalogue: Catalogue): UnpaidTask | undefined {
  if (!id.startsWith(PREFIX) || id.length > MAX_TASK_ID_LENGTH) return undefined
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(id.slice(PREFIX.length), 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) return undefined
  const [, input, contextId] = decoded as [unknown, unknown, unknown]
  if (typeof contextId !== 'string' || contextId.length > MAX_CONTEXT_ID_LENGTH) return undefined
  const purchase = readPurchase(input, catalogue)
  return 'problems' in purchase ? undefined : { purchase, contextId }
}
