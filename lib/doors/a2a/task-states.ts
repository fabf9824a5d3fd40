import { randomUUID } from 'node:crypto'
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk'
import { TASK_META, X402_META, type X402PaymentStatus } from './x402-extension.js'

/**
 * The A2A objects the merchant answers with (the SDK's types): tasks whose status message carries
 * the a2a-x402 metadata, and the artifact that carries the bought document.
 */

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined })
export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined })

export interface TaskRef { id: string, contextId: string }

function agentMessage (task: TaskRef, text: string, metadata: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId: task.contextId, taskId: task.id, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata, extensions: [], referenceTaskIds: [] }
}

/** One step of a task: its state and the status message with the payment metadata. */
export interface TaskStep {
  state: TaskState
  text: string
  payment: X402PaymentStatus
  /** More x402.payment.* entries (required, receipts, error). */
  x402?: Partial<Record<'required' | 'receipts' | 'error', unknown>>
  /** The bought document, as the artifact's data part. */
  document?: unknown
  /** Task metadata added by this step. */
  metadata?: Record<string, unknown>
  /** How long to wait before sending the same payment again, as a field of the status message. */
  retryAfterSeconds?: number
}

/** The task after `step`, from what it was (history kept, the step's message appended). */
export function taskAt (task: TaskRef & { history?: Message[], metadata?: Record<string, unknown> }, step: TaskStep): Task {
  const x402 = Object.fromEntries(Object.entries(step.x402 ?? {}).map(([key, value]) => [X402_META[key as keyof typeof X402_META], value]))
  const wait = step.retryAfterSeconds === undefined ? {} : { [TASK_META.retryAfterSeconds]: step.retryAfterSeconds }
  const message = agentMessage(task, step.text, { [X402_META.status]: step.payment, ...x402, ...wait })
  return {
    id: task.id,
    contextId: task.contextId,
    status: { state: step.state, message, timestamp: new Date().toISOString() },
    artifacts: step.document === undefined
      ? []
      : [{ artifactId: 'result', name: 'result', description: 'The JSON document the HTTP route answers with', parts: [dataPart(step.document)], metadata: undefined, extensions: [] }],
    history: [...(task.history ?? []), message],
    metadata: { ...task.metadata, ...step.metadata }
  }
}

const ENDED = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED])

/** The task ended: nothing changes it any more. */
export function isEndedTask (task: Task): boolean {
  return task.status !== undefined && ENDED.has(task.status.state)
}

/** A task is stored once a payment for it was accepted: unpaid traffic (asking, cancelling, declining) stores nothing. */
export function isStoredTask (task: Task): boolean {
  return task.metadata?.[TASK_META.payment] !== undefined
}

/** The data part a client's message carries: the first part whose content is JSON data. */
export function dataOf (message: Message | undefined): { value: unknown } | undefined {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case === 'data') return { value: part.content.value }
  }
  return undefined
}
