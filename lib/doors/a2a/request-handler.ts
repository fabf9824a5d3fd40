import type { Message, Task } from '@a2a-js/sdk'
import { ExtensionSupportRequiredError, TaskNotCancelableError } from '@a2a-js/sdk/errors'
import { DefaultRequestHandler, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server'
import type { AgentCard, CancelTaskRequest, GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk'
import { asA2aError, malformed } from './a2a-errors.js'
import type { SkillSeller } from './paid-skill.js'
import { isEndedTask } from './task-states.js'
import { TASK_META, X402_EXTENSION_URI, X402_META } from './x402-extension.js'

/** A few, for a client's own context; each one listed is a store read. */
export const MAX_REFERENCE_TASK_IDS = 8

/** The SDK checks the required extension on the calls it runs; those answered here do not reach it. */
function requireX402 (context: ServerCallContext): void {
  if (!(context.requestedExtensions ?? []).includes(X402_EXTENSION_URI)) {
    throw new ExtensionSupportRequiredError(`Client must declare support for required extensions: ${X402_EXTENSION_URI}`)
  }
}

type Log = { error: (details: object, message: string) => void }

/**
 * The SDK's request handler with the merchant's rules: a message that starts a purchase is
 * answered with the payment-required task at once (no executor, no store: the `execute` of the
 * seller handles the payment that comes back on the task); a task awaiting payment that its
 * client cancels or declines is answered from its id, nothing stored; a task whose payment was accepted
 * cannot be cancelled (it completes, or fails with nothing charged); errors keep our codes and
 * never leak internals. Event buses are not kept past a call (`keepBusAliveStates: []`): every
 * call of a task runs on its own.
 */
export class MerchantRequestHandler extends DefaultRequestHandler {
  private readonly seller: SkillSeller
  private readonly tasks: TaskStore
  private readonly log: Log

  constructor (card: AgentCard, tasks: TaskStore, seller: SkillSeller, log: Log) {
    super(card, tasks, { execute: seller.execute, cancelTask: async () => {} }, undefined, undefined, undefined, undefined, undefined, { keepBusAliveStates: [] })
    this.seller = seller
    this.tasks = tasks
    this.log = log
  }

  override async sendMessage (params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return await this.guarded(async () => {
      const message = params.message
      // The SDK reads every referenced task from the store (and warns on stderr for each it lacks); no skill reads them.
      if (message !== undefined && message.referenceTaskIds.length > MAX_REFERENCE_TASK_IDS) {
        throw malformed(`referenceTaskIds lists ${message.referenceTaskIds.length} tasks; at most ${MAX_REFERENCE_TASK_IDS}`)
      }
      const unknown = message?.referenceTaskIds.find(id => !this.seller.namesTask(id))
      if (unknown !== undefined) throw malformed(`referenceTaskIds names ${JSON.stringify(unknown.slice(0, 80))}, not a task of this merchant`)
      if (message === undefined) return await super.sendMessage(params, context)
      if (message.taskId !== '') {
        const unpaid = message.metadata?.[X402_META.status] === 'payment-rejected' ? await this.unpaid(message.taskId, context) : undefined
        if (unpaid === undefined) return await super.sendMessage(params, context)
        requireX402(context)
        return this.seller.ended(unpaid, 'declined')
      }
      requireX402(context)
      return await this.seller.askPayment(message)
    })
  }

  override async getTask (params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return await this.guarded(async () => await super.getTask(params, context))
  }

  override async cancelTask (params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return await this.guarded(async () => {
      const task = params.id === '' ? undefined : await this.tasks.load(params.id, context)
      if (task !== undefined && task.metadata?.[TASK_META.payment] === undefined) return this.seller.ended(task, 'cancelled')
      if (task?.metadata?.[TASK_META.payment] !== undefined && !isEndedTask(task)) {
        throw new TaskNotCancelableError(`Task ${params.id} is paid and being delivered: it completes, or fails with nothing charged`)
      }
      return await super.cancelTask(params, context)
    })
  }

  /** The task `id` names if it awaits payment (nothing stored for it), else undefined. */
  private async unpaid (id: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = await this.tasks.load(id, context)
    return task !== undefined && task.metadata?.[TASK_META.payment] === undefined ? task : undefined
  }

  private async guarded<T> (call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      throw asA2aError(error, this.log)
    }
  }
}
