import type { Message, Task } from '@a2a-js/sdk'
import { ExtensionSupportRequiredError, TaskNotCancelableError } from '@a2a-js/sdk/errors'
import { DefaultRequestHandler, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server'
import type { AgentCard, CancelTaskRequest, GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk'
import { asA2aError } from './a2a-errors.js'
import type { SkillSeller } from './paid-skill.js'
import { isEndedTask } from './task-states.js'
import { TASK_META, X402_EXTENSION_URI } from './x402-extension.js'

type Log = { error: (details: object, message: string) => void }

/**
 * The SDK's request handler with the merchant's rules: a message that starts a purchase is
 * answered with the payment-required task at once (no executor, no store: the `execute` of the
 * seller handles the payment that comes back on the task); a task whose payment was accepted
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
      if (message === undefined || message.taskId !== '') return await super.sendMessage(params, context)
      // The SDK checks the required extension on the calls it runs; this one does not reach it.
      if (!(context.requestedExtensions ?? []).includes(X402_EXTENSION_URI)) {
        throw new ExtensionSupportRequiredError(`Client must declare support for required extensions: ${X402_EXTENSION_URI}`)
      }
      return await this.seller.askPayment(message)
    })
  }

  override async getTask (params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return await this.guarded(async () => await super.getTask(params, context))
  }

  override async cancelTask (params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return await this.guarded(async () => {
      const task = params.id === '' ? undefined : await this.tasks.load(params.id, context)
      if (task?.metadata?.[TASK_META.payment] !== undefined && !isEndedTask(task)) {
        throw new TaskNotCancelableError(`Task ${params.id} is paid and being delivered: it completes, or fails with nothing charged`)
      }
      return await super.cancelTask(params, context)
    })
  }

  private async guarded<T> (call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      throw asA2aError(error, this.log)
    }
  }
}
